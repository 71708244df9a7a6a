// The JSON report; its shape is documented in docs/abstat-json.md.
#include "json_writer.h"
#include "reports.h"

#include <xab/model/hosts.h>
#include <xab/model/mismatch_text.h>

#include <algorithm>
#include <cstdio>

namespace xab::abstat {
namespace {

struct Json {
  const Report& a;
  const Trace& t;
  JsonWriter& w;

  double at(TimeNs time) const { return seconds(t, time); }
  std::string label(TaskIndex k) const { return t.label(k); }

  void taskRef(std::string_view key, TaskIndex k) {
    w.key(key).beginObject().field("label", label(k)).field("tid", formatTid(t.task(k).tid)).endObject();
  }
  void tidRef(Tid tid) {
    auto k = t.findTask(tid);
    w.beginObject().field("tid", formatTid(tid));
    if (k) w.field("label", label(*k));
    else w.key("label").null();
    w.endObject();
  }

  void trace() {
    const TraceHeader& h = t.header();
    w.key("trace").beginObject();
    w.field("source", a.source).field("header", h.present).field("version", h.version);
    w.field("abmon", formatTid(h.abmon)).field("host", h.host);
    // A string: a double cannot hold ns since the epoch.
    char origin[32];
    std::snprintf(origin, sizeof origin, "%lld.%09lld", static_cast<long long>(t.firstTime() / 1'000'000'000),
                  static_cast<long long>(t.firstTime() % 1'000'000'000));
    w.field("origin", std::string_view(origin));
    w.field("events", t.eventCount()).field("tasks", static_cast<std::uint64_t>(t.taskCount()));
    w.field("duration", durationSeconds(t.lastTime() - t.firstTime()));
    w.field("stopped", t.stopped()).field("bytes", a.bytes);
    if (a.stalledFor > 0) w.field("stalledFor", a.stalledFor);
    w.endObject();
    window();
    clock();
    compensation();
    replay();
    w.key("errors").beginObject().field("count", a.errorCount).key("lines").beginArray();
    for (const ReadError& e : a.errors)
      w.beginObject().field("line", e.line).field("reason", e.reason).endObject();
    w.endArray().endObject();
  }

  // The window (--budget): which part of the run the report covers.
  void window() {
    if (!a.window.on) return;
    const TraceCut& c = t.cut();
    w.key("window").beginObject();
    w.field("budget", a.window.budget).field("cut", c.cut).field("cuts", a.window.cuts);
    w.field("runRecords", a.window.runRecords).field("position", c.position);
    w.field("records", a.window.runRecords - std::min(a.window.runRecords, c.position));
    w.field("dropped", c.dropped).field("carried", static_cast<std::uint64_t>(c.carried));
    if (c.cut) w.field("time", seconds(t, c.time)); else w.key("time").null();
    w.endObject();
  }

  // Global time (docs/global-time.md): "time" says which; "clock" the fit.
  void clock() {
    const ClockReport& c = a.clock;
    w.field("time", !a.globalTime ? "raw" : c.clockRecords ? "global" : "raw-no-clock-records");
    if (!a.globalTime || !c.clockRecords) return;
    w.key("clock").beginObject();
    w.field("minTransfer", durationSeconds(c.minTransfer)).field("messagesChecked", c.messagesChecked);
    w.field("violationsRaw", c.violationsRaw).field("violationsFit", c.violationsFit);
    w.field("violationsCorrected", c.violationsCorrected).field("receivesMoved", c.receivesMoved);
    w.field("largestMove", durationSeconds(c.largestMove));
    w.field("poor", a.clockQuality.poor).field("poorTasks", static_cast<std::uint64_t>(a.clockQuality.poorTasks));
    w.field("poorWhy", a.clockQuality.why);
    w.key("tasks").beginArray();
    for (TaskIndex k = 0; k < t.taskCount() && k < c.fits.size(); ++k) {
      const ClockFit& f = c.fits[k];
      if (!f.valid) continue;
      w.beginObject().field("tid", formatTid(t.task(k).tid)).field("samples", static_cast<std::uint64_t>(f.samples));
      w.field("used", static_cast<std::uint64_t>(f.used)).field("offset", f.offsetAt(f.localAt) / 1e9);
      w.field("offsetAt", static_cast<double>(f.localAt) / 1e9);  // a reader can redo the fit's line
      w.field("driftPpm", f.driftPpm()).field("rateFitted", f.rateFitted);
      w.field("rms", f.rmsResidual / 1e9).field("maxResidual", durationSeconds(f.maxResidual)).field("poor", fitIsPoor(f));
      w.field("fastestTransit", durationSeconds(f.minTransit)).endObject();
    }
    w.endArray().endObject();
  }

  // Intrusion compensation (--compensate): what xab cost each task.
  void compensation() {
    if (!a.compensated) return;
    const CompensationReport& c = a.compensation;
    w.key("compensation").beginObject().field("costRecords", c.costRecords);
    if (c.costRecords) {
      w.field("transfer", durationSeconds(c.transfer)).field("receiveDuration", durationSeconds(c.receiveDuration));
      w.field("receivesRebased", c.receivesRebased).field("collectivesRebased", c.collectivesRebased);
      w.field("spawnsRebased", c.spawnsRebased).field("forced", c.forced);
      w.key("tasks").beginArray();
      for (TaskIndex k = 0; k < t.taskCount() && k < c.tasks.size(); ++k) {
        const TaskIntrusion& i = c.tasks[k];
        w.beginObject().field("tid", formatTid(t.task(k).tid)).field("recordCost", durationSeconds(i.recordCost));
        w.field("records", i.records).field("measured", i.measured).field("recordTime", durationSeconds(i.recordTime));
        w.field("sends", i.sends).field("sendTime", durationSeconds(i.sendTime));
        w.field("clockTime", durationSeconds(i.clockTime)).field("mates", i.mates);
        w.field("contention", durationSeconds(i.contention)).field("charged", durationSeconds(i.charged));
        w.field("run", durationSeconds(i.rawRun)).field("compensatedRun", durationSeconds(i.compensatedRun));
        w.field("intrusion", i.share()).field("xabWaits", i.xabWaits).endObject();
      }
      w.endArray();
    }
    w.endObject();
  }

  // The replay correction (--replay-of): its counts and every anchor.
  void replay() {
    if (a.replayOf.empty()) return;
    const ReplayCorrectionReport& r = a.replay;
    w.key("replay").beginObject().field("record", a.replayOf).field("note", r.note);
    w.field("tasksMatched", r.tasksMatched).field("tasksUnmatched", r.tasksUnmatched);
    w.field("recordedNotReplayed", r.recordedNotReplayed).field("anchorsUsed", r.anchorsUsed);
    w.field("anchorsPushed", r.anchorsPushed).field("anchorsMismatched", r.anchorsMismatched);
    w.field("largestPush", durationSeconds(r.largestPush)).field("largestHeldOutError", durationSeconds(r.largestHeldOutError));
    w.field("transfer", durationSeconds(r.transfer)).field("receivesRebased", r.receivesRebased);
    w.key("anchors").beginArray();
    for (const ReplayAnchor& x : r.anchors) {
      w.beginObject().field("path", x.path).field("seq", x.seq).field("tid", formatTid(t.task(x.event.task).tid));
      w.field("recorded", seconds(t, x.recorded)).field("corrected", seconds(t, x.corrected));
      w.field("error", durationSeconds(x.corrected - x.recorded)).field("used", x.used).field("pushed", x.pushed).endObject();
    }
    w.endArray().endObject();
  }

  void tasks() {
    w.key("tasks").beginArray();
    for (TaskIndex k = 0; k < t.taskCount(); ++k) {
      const TaskInfo& i = t.task(k);
      w.beginObject().field("label", label(k)).field("tid", formatTid(i.tid));
      if (i.name >= 0) w.field("name", t.str(i.name)); else w.key("name").null();
      w.field("instance", i.instance).field("host", t.str(i.host));
      if (i.parent == kNoTid) w.key("parent").null(); else w.field("parent", formatTid(i.parent));
      w.field("lang", i.lang == 0 ? "c" : i.lang == 1 ? "fortran" : "unknown").field("pid", i.pid);
      w.field("events", static_cast<std::uint64_t>(t.events(k).size()));
      if (t.cut().cut) w.field("runEvents", t.cutTask(k).dropped + t.events(k).size());
      w.field("first", at(i.firstTime)).field("last", at(i.lastTime));
      if (i.exit == ExitHow::None) w.key("exit").null();
      else w.field("exit", i.exit == ExitHow::Exit ? "exit" : "task.exit").field("exitTime", at(i.exitTime));
      if (i.status < 0) w.key("status").null(); else w.field("status", i.status).field("signal", i.signal);
      w.field("lost", i.lost).field("lost_messages", i.lostMessages).field("state", stateName(currentState(t, k).state));
      if (k < a.samples.tasks.size() && !a.samples.tasks[k].empty()) {
        CpuTime c = a.samples.whole(t, k);
        w.field("cpu", durationSeconds(c.cpu)).field("runnable", durationSeconds(c.runnable));
      } else {
        w.key("cpu").null().key("runnable").null();
      }
      w.endObject();
    }
    w.endArray();
  }

  void hosts() {
    w.key("hosts").beginArray();
    std::vector<HostFigures> figures = hostFigures(t);
    for (const HostLoad& l : a.samples.hosts)  // a host sampled whose tasks name none
      if (std::none_of(figures.begin(), figures.end(), [&](const HostFigures& h) { return h.host == l.host; }))
        figures.emplace_back().host = l.host;
    for (const HostFigures& h : figures) {
      w.beginObject().field("host", h.host).field("tasks", h.tasks).field("events", h.events);
      w.field("lost", h.lost).field("collectedBy", h.relay ? "relay" : "abmon");
      w.field("batches", h.batches).field("relayed", h.relayed).field("deleted", h.deleted);
      if (h.deleted) w.field("how", h.how.empty() ? "delete" : h.how);
      w.key("load").beginArray();
      if (const HostLoad* l = a.samples.host(h.host))
        for (const LoadPoint& p : l->points) {
          w.beginObject().field("at", at(p.at)).field("load", p.load).field("cpus", p.cpus);
          if (p.busyPermille < 0) w.key("busy").null(); else w.field("busy", p.busyPermille / 1000.0);
          w.endObject();
        }
      w.endArray().endObject();
    }
    w.endArray();
  }

  void pair(const PairStats& s) {
    w.field("count", s.count).field("bytes", s.bytes).field("bandwidth", s.bandwidth());
  }

  void messages() {
    const MessageTable& m = a.messages;
    w.key("messages").beginObject();
    w.field("sent", m.sent).field("matched", m.total.count);
    w.field("unmatchedReceives", static_cast<std::uint64_t>(m.unmatched.size())).field("fromPvmd", m.fromPvmd);
    if (t.cut().cut) w.field("beforeCut", m.beforeCut).field("receivedBeforeCut", m.receivedBeforeCut);
    w.field("neverReceived", m.neverReceived).field("bytes", m.total.bytes);
    w.field("messages", m.messagesSent).field("unreceivedMessages", m.unreceivedMessages);
    w.field("duplicateSerials", m.duplicateSerials).field("duplicateReceives", m.duplicateReceives);
    w.field("consistent", m.consistent());
    w.field("bandwidth", m.total.bandwidth());
    w.key("pairs").beginArray();
    for (const auto& [p, s] : m.pairs) {
      w.beginObject();
      taskRef("from", p.first);
      taskRef("to", p.second);
      pair(s);
      w.endObject();
    }
    w.endArray().key("unreceived").beginArray();
    for (std::size_t i = 0; i < m.messages.size(); ++i) {
      if (!m.messages.listedUnreceived(i)) continue;  // decodes no record
      const Message msg = m.messages[i];
      w.beginObject();
      taskRef("from", msg.sender);
      w.field("kind", kindName(msg.kind)).field("tag", msg.tag).field("bytes", msg.bytes);
      w.field("serial", msg.serial).field("time", at(msg.time));
      w.field("destinationsKnown", msg.destinationsKnown).key("to").beginArray();
      for (Tid d : msg.unreceived) tidRef(d);
      w.endArray().endObject();
    }
    w.endArray().key("unmatched").beginArray();
    for (const UnmatchedReceive& u : m.unmatched) {
      w.beginObject();
      taskRef("receiver", u.recv.task);
      w.field("src", formatTid(u.src)).field("serial", u.serial).endObject();
    }
    w.endArray().endObject();
  }

  void barriers() {
    const BarrierAnalysis& b = a.barriers;
    w.key("barriers").beginObject().field("totalWait", durationSeconds(b.totalWait));
    w.key("instances").beginArray();
    for (const BarrierInstance& bi : b.instances) {
      w.beginObject().field("group", t.str(bi.group)).field("count", bi.count).field("use", bi.use);
      w.field("complete", bi.complete());
      if (bi.beforeCut) w.field("beforeCut", true);
      if (bi.lastArrival >= 0) taskRef("lastArrival", bi.visits[static_cast<std::size_t>(bi.lastArrival)].task);
      w.field("lateBy", durationSeconds(bi.lateBy)).field("totalWait", durationSeconds(bi.totalWait));
      w.key("visits").beginArray();
      for (const BarrierVisit& v : bi.visits) {
        w.beginObject();
        taskRef("task", v.task);
        w.field("arrive", at(v.arrive));
        if (v.depart == kOpenEnd) w.key("depart").null(); else w.field("depart", at(v.depart));
        w.field("wait", durationSeconds(v.wait())).endObject();
      }
      w.endArray().endObject();
    }
    w.endArray().key("perTask").beginArray();
    for (TaskIndex k = 0; k < t.taskCount(); ++k) {
      const BarrierTaskTotals& tt = b.perTask[k];
      if (tt.visits == 0) continue;
      w.beginObject();
      taskRef("task", k);
      w.field("wait", durationSeconds(tt.wait)).field("uses", tt.visits);
      w.field("lastToArrive", tt.lastToArrive).field("share", tt.share).endObject();
    }
    w.endArray().endObject();
  }

  void blocked(const BlockedTask& b, const std::string& explanation) {
    w.beginObject();
    taskRef("task", b.task);
    w.field("state", stateName(b.state.state)).field("call", kindName(b.state.call));
    w.field("since", at(b.state.begin)).field("ended", b.ended);
    if (b.ended) w.field("endedAt", at(b.endedAt));
    else w.key("endedAt").null();
    if (b.state.state == TaskState::Receiving) {
      w.key("src");
      tidRef(b.state.a);
      w.field("tag", formatTag(b.state.b));
    } else if (b.state.state == TaskState::Barrier || b.state.state == TaskState::Collective) {
      w.field("group", t.str(b.state.a)).field("count", b.state.b);
    }
    w.key("pending").beginArray();
    for (const PendingMessage& p : b.pending) {
      w.beginObject();
      taskRef("from", p.sender);
      w.field("tag", p.tag).field("bytes", p.bytes).field("matches", p.matches).endObject();
    }
    w.endArray().key("waitingWith").beginArray();
    for (TaskIndex k : b.waitingWith) w.value(label(k));
    w.endArray().key("missing").beginArray();
    for (TaskIndex k : b.missing) w.value(label(k));
    w.endArray().field("explanation", explanation).endObject();
  }

  void hang() {
    const HangReport& h = a.hang;
    const HangText words = hangText(t, h);
    w.key("hang").beginObject().field("hung", h.hung);
    w.field("stillBlocked", static_cast<std::uint64_t>(h.stillBlocked));
    w.field("endedBlocked", static_cast<std::uint64_t>(h.endedBlocked)).field("headline", words.headline);
    w.key("blocked").beginArray();
    for (std::size_t i = 0; i < h.blocked.size(); ++i) blocked(h.blocked[i], words.explanations[i]);
    w.endArray().key("cycles").beginArray();
    for (const auto& c : h.cycles) {
      w.beginArray();
      for (TaskIndex k : c) w.value(label(k));
      w.endArray();
    }
    w.endArray().key("summary").beginArray();
    for (const std::string& s : words.summary) w.value(s);
    w.endArray().key("recordsMissing").beginArray();
    for (const std::string& s : words.recordsMissing) w.value(s);
    w.endArray().key("crashed").beginArray();
    for (const std::string& s : words.crashed) w.value(s);
    w.endArray().key("boundedWaits").beginArray();
    for (const std::string& s : words.boundedWaits) w.value(s);
    w.endArray().endObject();
  }

  void items(std::string_view key, const std::vector<PackItem>& v) {
    w.key(key).beginArray();
    for (const PackItem& p : v) {
      auto name = dataTypeName(p.type);
      w.beginObject();
      if (name.empty()) w.field("type", p.type); else w.field("type", name);
      w.field("n", p.n).endObject();
    }
    w.endArray();
  }

  void mismatch() {
    const MismatchReport& r = a.mismatch;
    w.key("mismatch").beginObject().field("checked", r.checked).field("records", r.records);
    w.field("filteredReceives", r.filteredReceives);
    w.field("status", mismatchStatus(r)).key("mismatches").beginArray();
    for (const PackMismatch& x : r.mismatches) {
      const Message& m = a.messages.messages[x.message];
      w.beginObject();
      taskRef("from", x.sender);
      taskRef("to", x.receiver);
      w.field("tag", m.tag).field("serial", m.serial);
      items("packed", x.packed);
      items("unpacked", x.unpacked);
      w.field("partsAt", x.partsAt).field("explanation", mismatchText(x)).endObject();
    }
    w.endArray().endObject();
  }

  void failures() {
    const FailureReport& f = a.failures;
    w.key("failures").beginObject().field("failed", f.failed).key("calls").beginArray();
    for (const FailedCall& c : f.calls) {
      w.beginObject();
      taskRef("task", c.task);
      w.field("call", kindName(c.call)).field("rc", c.rc);
      if (auto n = pvmErrorName(c.rc); !n.empty()) w.field("error", n); else w.key("error").null();
      w.field("count", c.count).field("first", at(c.firstTime)).field("record", t.event(c.first).seq);
      w.field("text", describe(t, c)).endObject();
    }
    w.endArray().key("timeouts").beginArray();
    for (const TimeoutUnpacks& x : f.timeouts) {
      const Event& r = t.event(x.receive);
      w.beginObject();
      taskRef("task", x.task);
      w.field("call", kindName(r.kind)).field("time", at(r.time)).field("record", r.seq);
      w.field("unpacks", x.unpacks).field("rc", x.rc).field("firstUnpack", t.event(x.firstUnpack).seq);
      w.field("text", describe(t, x)).endObject();
    }
    w.endArray().field("timedOutCount", f.timedOutCount).key("timedOut").beginArray();
    for (const TimedOutReceives& x : f.timedOut) {
      w.beginObject();
      taskRef("task", x.task);
      w.field("count", x.count).field("first", at(x.firstTime)).field("record", t.event(x.first).seq);
      w.field("waited", durationSeconds(x.waited)).field("text", describe(t, x)).endObject();
    }
    w.endArray().endObject();
  }

  void races() {
    const RaceReport& r = a.races;
    w.key("races").beginObject().field("checked", r.checked).field("anySource", r.anySource);
    w.field("racy", r.racy).key("groups").beginArray();
    for (const RaceGroup& g : r.groups) {
      const Message& took = a.messages.messages[static_cast<std::size_t>(g.first.took)];
      const Message& other = a.messages.messages[static_cast<std::size_t>(g.first.other)];
      const Event& rec = t.event(g.first.receive);
      w.beginObject();
      taskRef("task", g.task);
      if (g.tag == kAnyTag) w.key("tag").null(); else w.field("tag", g.tag);
      w.field("receives", g.receives).field("racy", g.racy);
      w.key("first").beginObject().field("time", at(rec.time)).field("record", rec.seq);
      taskRef("took", took.sender);
      w.field("tookRecord", t.event(took.send).seq);
      taskRef("couldHaveTaken", other.sender);
      w.field("couldHaveTakenRecord", t.event(other.send).seq).endObject();
      w.field("text", describe(t, a.messages, g)).endObject();
    }
    w.endArray().endObject();
  }

  void times(const TimeBreakdown& b) {
    w.field("compute", durationSeconds(b.compute)).field("communication", durationSeconds(b.communication));
    w.field("blocked", durationSeconds(b.blocked)).field("barrier", durationSeconds(b.barrier));
    w.field("total", durationSeconds(b.total()));
  }

  // Why the run is slow (docs/why-slow.md): the root causes by the
  // waiting they cost, the critical path, each task's figures, the words.
  void why() {
    const WhyReport& r = a.why;
    w.key("why").beginArray();
    for (const WaitCause& c : r.causes) {
      w.beginObject();
      taskRef("task", c.task);
      w.field("pattern", waitPatternKey(c.pattern)).field("waitCaused", durationSeconds(c.cost));
      w.field("share", c.share).field("instances", static_cast<std::uint64_t>(c.instances));
      if (c.group >= 0) w.field("group", t.str(c.group));
      w.key("waiters").beginArray();
      for (const auto& [k, d] : c.waiters) {
        w.beginObject();
        taskRef("task", k);
        w.field("wait", durationSeconds(d)).endObject();
      }
      w.endArray().endObject();
    }
    w.endArray();
    w.key("criticalPath").beginObject().field("length", durationSeconds(r.criticalLength)).key("tasks").beginArray();
    for (TaskIndex k = 0; k < r.perTask.size(); ++k) {
      if (r.perTask[k].critical == 0) continue;
      w.beginObject();
      taskRef("task", k);
      w.field("time", durationSeconds(r.perTask[k].critical)).endObject();
    }
    w.endArray().key("steps").beginArray();
    for (const CriticalStep& s : r.criticalPath) {
      w.beginObject();
      taskRef("task", s.task);
      w.field("from", at(s.from)).field("to", at(s.to)).endObject();
    }
    w.endArray().endObject();
    std::uint64_t counts[kWaitPatternCount] = {};
    TimeNs waited[kWaitPatternCount] = {};
    for (const WaitState& x : r.waits) {
      ++counts[static_cast<int>(x.pattern)];
      waited[static_cast<int>(x.pattern)] += x.wait();
    }
    w.key("waits").beginObject().field("total", durationSeconds(r.totalWait)).field("count", static_cast<std::uint64_t>(r.waits.size()));
    w.key("patterns").beginObject();
    for (int p = 0; p < kWaitPatternCount; ++p)
      w.key(waitPatternKey(static_cast<WaitPattern>(p))).beginObject().field("count", counts[p])
          .field("wait", durationSeconds(waited[p])).endObject();
    w.endObject().key("perTask").beginArray();
    for (TaskIndex k = 0; k < r.perTask.size(); ++k) {
      const TaskWaiting& p = r.perTask[k];
      w.beginObject();
      taskRef("task", k);
      w.field("waited", durationSeconds(p.waited)).field("caused", durationSeconds(p.caused));
      w.field("rootCost", durationSeconds(p.rootCost)).field("passedOn", durationSeconds(p.passedOn));
      w.field("rootCause", p.rootCause()).field("symptom", p.symptom());
      w.field("critical", durationSeconds(p.critical)).field("slack", durationSeconds(p.slack));
      if (p.hostOverload >= 0) w.field("cpuWait", durationSeconds(p.cpuWait));
      else w.key("cpuWait").null();
      w.endObject();
    }
    w.endArray().endObject();
    const WhyText words = whyText(a);
    w.key("whyText").beginObject().field("headline", words.headline).key("causes").beginArray();
    for (const std::string& s : words.causes) w.value(s);
    w.endArray().key("symptoms").beginArray();
    for (const std::string& s : words.symptoms) w.value(s);
    w.endArray().field("criticalPath", words.criticalPath).field("slack", words.slack).endObject();
  }

  void breakdown() {
    w.key("breakdown").beginObject().key("perTask").beginArray();
    for (TaskIndex k = 0; k < t.taskCount(); ++k) {
      w.beginObject();
      taskRef("task", k);
      times(a.breakdown.perTask[k]);
      w.endObject();
    }
    w.endArray().key("total").beginObject();
    times(a.breakdown.total);
    w.endObject().endObject();
  }
};

}  // namespace

std::string jsonReport(const Report& a, const Sections& s, bool pretty) {
  JsonWriter w(pretty);
  Json j{a, *a.trace, w};
  w.beginObject().field("abstat", 1);
  j.trace();
  if (s.tasks) {
    j.tasks();
    j.hosts();
  }
  if (s.messages) j.messages();
  if (s.barriers) j.barriers();
  if (s.hang) j.hang();
  if (s.mismatch) j.mismatch();
  if (s.failures) j.failures();
  if (s.races) j.races();
  if (s.breakdown) j.breakdown();
  if (s.why) j.why();
  w.field("exitStatus", exitStatus(a));
  w.endObject();
  return w.str() + "\n";
}

}  // namespace xab::abstat
