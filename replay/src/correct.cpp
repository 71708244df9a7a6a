// correct.cpp -- post-mortem date correction of a replay
// (xab/replay/correct.h).
#include <xab/model/causal_walk.h>

#include <xab/model/clock.h>
#include <xab/model/messages.h>
#include <xab/replay/correct.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "xab/events.h"
#include "xab/record.h"

namespace xab {

namespace {

static_assert(static_cast<int>(Kind::RECV) == XAB_EV_RECV && static_cast<int>(Kind::SPAWN) == XAB_EV_SPAWN &&
                  static_cast<int>(Kind::PROBE) == XAB_EV_PROBE,
              "the record's call kinds are events.h ids, the model's Kind follows the same table");

constexpr Key kPath = static_cast<Key>(fieldKey("path"));
constexpr Key kSeq = static_cast<Key>(fieldKey("seq"));

// The calls libab numbers in record and replay (xab/record.h, the one rule).
bool numbered(Kind k) { return xab_record_numbered(static_cast<int>(k)) != 0; }

// A replay task's numbered calls, found in its trace as libab counts them.
struct CallIndex {
  std::map<std::uint32_t, std::uint32_t> begin, end;  // seq -> event index
  std::map<std::uint32_t, Kind> kind;
  std::uint32_t departedAt = UINT32_MAX;  // seq of its first replay.depart record
};

CallIndex indexCalls(const Trace& trace, TaskIndex t) {
  CallIndex ix;
  std::uint32_t ended = 0;
  const auto& ev = trace.events(t);
  for (std::uint32_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (e.kind == Kind::REPLAY_DEPART && ix.departedAt == UINT32_MAX)
      ix.departedAt = static_cast<std::uint32_t>(std::max(0, e.get(kSeq, 0)));
    if (!numbered(e.kind)) continue;
    if (e.isBegin()) {
      ix.begin[ended + 1] = i;
      ix.kind[ended + 1] = e.kind;
    } else {
      ix.end[++ended] = i;
      ix.kind[ended] = e.kind;
    }
  }
  return ix;
}

std::string pathOf(const Trace& trace, TaskIndex t) {
  const auto& ev = trace.events(t);
  for (std::uint32_t i = 0; i < ev.size(); ++i)
    if (ev[i].kind == Kind::REPLAY_TASK) return std::string(trace.str(ev[i].get(kPath, -1)));
  return {};
}

struct Correction {
  const Trace& trace;
  ReplayCorrectionReport& report;
  detail::Communication comm;                                // each receive's send, the least transfer and DC
  detail::Collectives coll;                                  // the collectives' ends to re-base
  std::vector<std::vector<std::int32_t>> anchorAt;           // per event: index in report.anchors, -1
  std::vector<std::vector<TimeNs>> comp;                     // corrected dates, as computed
  std::vector<std::vector<TimeNs>> upper;                    // latest date the record allows (INT64_MAX: none)
  std::vector<std::uint32_t> cursor;
  std::vector<std::optional<TimeNs>> delta;  // per task: corrected - replayed, now (none before its start)
  std::vector<std::optional<EventRef>> spawnedAt;  // per task: its parent's spawn that started it
  TimeNs fallbackDelta = 0;                  // for tasks with neither anchor nor recorded parent

  bool done(EventRef r) const { return cursor[r.task] > r.index; }

  std::optional<std::uint32_t> beginOf(TaskIndex t, std::uint32_t i) const { return detail::beginOf(trace.events(t), i); }

  // Where task t's dates start before its first event: its first used
  // anchor's offset, else its parent's at the spawn (nullopt: the parent
  // is not there yet), else the run's.
  std::optional<TimeNs> startDelta(TaskIndex t, bool force) const {
    for (const auto& a : report.anchors)
      if (a.event.task == t && a.used) return a.recorded - a.replayed;
    if (const auto& s = spawnedAt[t]) {
      if (done(*s)) return comp[s->task][s->index] - trace.event(*s).time;
      if (!force) return std::nullopt;
    }
    return fallbackDelta;
  }

  // The end of a receive of the message sent at s (causal_walk.h's
  // receiveEnd; eq. 3 of the Athapascan record/replay paper).  One that
  // found its message there keeps its own duration (§4.1: durations are
  // invariant); one that waited ends its message's own transfer after the
  // send.
  TimeNs rebase(TaskIndex t, std::uint32_t i, EventRef s, TimeNs invariant) const {
    TimeNs r = trace.events(t)[i].time;
    detail::ReceiveDates d;
    d.sent = comp[s.task][s.index];
    d.sequential = invariant;
    if (auto b = beginOf(t, i)) {
      d.start = comp[t][*b];
      d.duration = d.kept = r - trace.events(t)[*b].time;
    }
    return detail::receiveEnd(d, comm, [&] { return r - trace.event(s).time; }).end;
  }

  bool step(TaskIndex t, bool force) {
    std::uint32_t i = cursor[t];
    const Event& e = trace.events(t)[i];
    if (!delta[t]) {
      delta[t] = startDelta(t, force);
      if (!delta[t]) return false;
    }
    TimeNs c = e.time + *delta[t], bound = i > 0 ? comp[t][i - 1] : INT64_MIN;
    // A collective's wait is not invariant either: its end follows the
    // latest corrected arrival it waits for, its own release later.
    const detail::CollectiveStep sync =
        detail::collectiveStep(coll, comp, t, i, force, [&](EventRef r) { return done(r); });
    if (sync.state == detail::CollectiveStep::State::Wait) return false;
    if (sync.state == detail::CollectiveStep::State::Rebased) {
      c = sync.end;
      bound = std::max(bound, c - sync.sync->release);
      ++report.collectivesRebased;
    }
    const auto& s = comm.sendOf[t][i];
    if (s && !done(*s) && !force) return false;
    if (s && done(*s)) {
      c = rebase(t, i, *s, c);
      bound = std::max(bound, comp[s->task][s->index] + report.transfer);
      ++report.receivesRebased;
    }
    std::int32_t a = anchorAt[t][i];
    bool anchored = a >= 0 && report.anchors[a].used;
    c = anchored ? report.anchors[a].recorded : std::min(c, upper[t][i]);
    if (c < bound) {
      if (anchored) {
        report.anchors[a].pushed = true;
        ++report.anchorsPushed;
        report.largestPush = std::max(report.largestPush, bound - c);
      }
      c = bound;
    }
    comp[t][i] = c;
    delta[t] = c - e.time;
    ++cursor[t];
    return true;
  }

  void run() {
    detail::walkCausally(trace, cursor, [this](TaskIndex t, bool force) { return step(t, force); });
  }
};

// The correlation points of replay task t, recorded as task rec.
void findAnchors(const Trace& trace, TaskIndex t, const replay::RecordedTask& rec, const ReplayCorrectionOptions& o,
                 ReplayCorrectionReport& report) {
  CallIndex ix = indexCalls(trace, t);
  std::uint32_t nth = 0;
  auto add = [&](std::uint32_t seq, std::uint32_t index, TimeNs recorded) {
    ReplayAnchor a;
    a.event = {t, index};
    a.path = rec.path;
    a.seq = seq;
    a.recorded = recorded;
    a.replayed = trace.events(t)[index].time;
    a.used = o.holdOutEvery == 0 || ++nth % o.holdOutEvery != 0;
    report.anchors.push_back(a);
  };
  auto at = [](const std::map<std::uint32_t, std::uint32_t>& m, std::uint32_t seq) -> std::optional<std::uint32_t> {
    auto it = m.find(seq);
    return it == m.end() ? std::nullopt : std::optional(it->second);
  };
  // The header's date is the start of call 1 (libab opens the record
  // there; a version 1 record after a first spawn, at its end).
  bool headerAtStart = rec.header.version >= 2 || (ix.kind.count(1) && ix.kind[1] != Kind::SPAWN);
  if (rec.header.last_seq >= 1 && ix.kind.count(1) && headerAtStart && ix.departedAt > 1)
    if (auto i = ix.begin.count(1) ? at(ix.begin, 1) : at(ix.end, 1)) add(0, *i, rec.header.start_ns);
  for (const xab_rec_entry& e : rec.entries) {
    if (e.outcome > XAB_REC_SPAWN) continue;  // a spawn's tids and hosts, results, handlers: not numbered calls
    bool pending = e.outcome == XAB_REC_PENDING;
    auto i = at(pending ? ix.begin : ix.end, e.seq);
    if (!i || e.seq >= ix.departedAt || static_cast<int>(ix.kind[e.seq]) != e.kind) {
      ++report.anchorsMismatched;
      continue;
    }
    add(e.seq, *i, e.t_ns);
  }
}

// Upper bounds from the record: an event is no later than the task's next
// anchor, and a send no later than the recorded end of its receive less
// the least transfer (in the record run it was sent before it came).  A
// sender whose replay computed longer than its record (xabrace's random
// pause is drawn again) is thus pulled back to the record's course rather
// than pushing the receiver's anchor off the record's date.
void upperBounds(const Trace& trace, Correction& w) {
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) w.upper[t].assign(trace.events(t).size(), INT64_MAX);
  for (const ReplayAnchor& a : w.report.anchors) {
    if (!a.used) continue;
    TimeNs& own = w.upper[a.event.task][a.event.index];
    own = std::min(own, a.recorded);
    if (const auto& s = w.comm.sendOf[a.event.task][a.event.index]; s && !trace.event(a.event).isBegin()) {
      TimeNs& sent = w.upper[s->task][s->index];
      sent = std::min(sent, a.recorded - w.report.transfer);
    }
  }
  for (auto& u : w.upper)
    for (std::size_t i = u.size(); i-- > 1;) u[i - 1] = std::min(u[i - 1], u[i]);
}

}  // namespace

std::shared_ptr<const Trace> correctReplay(std::shared_ptr<const Trace> input, const replay::RecordSet& record,
                                           ReplayCorrectionReport& report, const ReplayCorrectionOptions& options) {
  report = ReplayCorrectionReport{};
  const Trace& trace = *input;
  std::vector<bool> replayed(record.tasks().size(), false);
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    std::string path = pathOf(trace, t);
    const replay::RecordedTask* rec = path.empty() ? nullptr : record.find(path);
    if (!rec) {
      ++report.tasksUnmatched;
      continue;
    }
    ++report.tasksMatched;
    replayed[static_cast<std::size_t>(rec - record.tasks().data())] = true;
    findAnchors(trace, t, *rec, options, report);
  }
  report.recordedNotReplayed = static_cast<std::size_t>(std::count(replayed.begin(), replayed.end(), false));
  if (report.tasksMatched == 0) {
    report.note = "no task of the trace is a replay of the record (no replay.task record with a recorded path): dates as they were";
    return input;
  }
  Correction w{trace, report, {}, {}, {}, {}, {}, {}, {}, {}, 0};
  std::size_t n = trace.taskCount();
  w.anchorAt.resize(n);
  w.comp.resize(n);
  for (TaskIndex t = 0; t < n; ++t) {
    w.anchorAt[t].assign(trace.events(t).size(), -1);
    w.comp[t].assign(trace.events(t).size(), 0);
  }
  for (std::size_t k = 0; k < report.anchors.size(); ++k) {
    const ReplayAnchor& a = report.anchors[k];
    if (w.anchorAt[a.event.task][a.event.index] < 0) w.anchorAt[a.event.task][a.event.index] = static_cast<std::int32_t>(k);
    report.anchorsUsed += a.used;
  }
  for (const auto& a : report.anchors)  // the run's offset: its first task's (the command's)
    if (a.used) {
      w.fallbackDelta = a.recorded - a.replayed;
      if (a.path == "1") break;
    }
  w.cursor.assign(n, 0);
  w.delta.assign(n, std::nullopt);
  w.spawnedAt = detail::spawnedAt(trace);
  w.comm = detail::measureCommunication(trace, matchMessages(trace));
  report.transfer = w.comm.transfer;
  w.coll = detail::measureCollectives(trace);
  w.upper.resize(n);
  upperBounds(trace, w);
  w.run();
  std::vector<std::vector<TimeNs>> shift(n);
  for (TaskIndex t = 0; t < n; ++t) {
    const auto& ev = trace.events(t);
    shift[t].resize(ev.size());
    for (std::uint32_t i = 0; i < ev.size(); ++i) shift[t][i] = w.comp[t][i] - ev[i].time;
  }
  for (auto& a : report.anchors) {
    a.corrected = w.comp[a.event.task][a.event.index];
    if (!a.used) report.largestHeldOutError = std::max(report.largestHeldOutError, std::abs(a.corrected - a.recorded));
  }
  char buf[240];
  std::snprintf(buf, sizeof buf,
                "replay dates corrected to the record's: %zu tasks, %llu anchors used (%llu pushed by causality or "
                "task order, largest %.6f s), %llu receives dated from their sends",
                report.tasksMatched, static_cast<unsigned long long>(report.anchorsUsed),
                static_cast<unsigned long long>(report.anchorsPushed), static_cast<double>(report.largestPush) / 1e9,
                static_cast<unsigned long long>(report.receivesRebased));
  report.note = buf;
  // Record mode stamps each host's clock: say whether the record's hosts
  // were put on one clock (abreplay --record's DIR/clocks) or not.
  // (The reference host, abreplay's, has no fit: its stamps are the clock.)
  std::set<std::int32_t> hosts, unmeasured;
  for (const auto& t : record.tasks()) hosts.insert(replay::hostOfTid(t.header.tid));
  for (auto h : hosts)
    if (!record.hostClocks().count(h)) unmeasured.insert(h);
  if (hosts.size() > 1 && unmeasured.size() <= 1)
    report.note += "; the record's " + std::to_string(hosts.size()) + " hosts' clocks put on one";
  else if (hosts.size() > 1)
    report.note += "; " + std::to_string(unmeasured.size() - 1) + " of the record's " + std::to_string(hosts.size()) +
                   " hosts' clocks not measured: their stamps are their own clock's";
  return shiftTimes(trace, shift);
}

std::function<std::shared_ptr<const Trace>(std::shared_ptr<const Trace>)> replay::correctionTo(
    const RecordSet& record, ReplayCorrectionReport& report, const ReplayCorrectionOptions& options) {
  return [&record, &report, options](std::shared_ptr<const Trace> trace) {
    return correctReplay(std::move(trace), record, report, options);
  };
}

}  // namespace xab
