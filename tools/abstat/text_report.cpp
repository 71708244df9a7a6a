// The readable report: one block per section, tables with aligned columns.
#include "reports.h"

#include <xab/model/hosts.h>
#include <xab/model/mismatch_text.h>

#include <algorithm>
#include <cstdio>

namespace xab::abstat {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

namespace {

std::string secs(double s) { return fmt("%.6f", s); }

std::string bandwidth(double bytesPerSecond) {
  if (bytesPerSecond <= 0) return "-";
  if (bytesPerSecond >= 1e6) return fmt("%.2f MB/s", bytesPerSecond / 1e6);
  return fmt("%.1f kB/s", bytesPerSecond / 1e3);
}

// Columns padded to the widest cell.
class Table {
 public:
  explicit Table(std::vector<std::string> head) { rows_.push_back(std::move(head)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str() const {
    std::vector<std::size_t> w;
    for (const auto& r : rows_)
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (w.size() <= i) w.push_back(0);
        w[i] = std::max(w[i], r[i].size());
      }
    std::string out;
    for (const auto& r : rows_) {
      std::string line;
      for (std::size_t i = 0; i < r.size(); ++i) {
        line += r[i];
        if (i + 1 < r.size()) line.append(w[i] - r[i].size() + 2, ' ');
      }
      out += "  " + line + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string exitWords(const Trace& t, TaskIndex k) {
  const TaskInfo& i = t.task(k);
  std::string status;  // the program abmon started (program.exit)
  if (i.signal > 0) status = ", killed by signal " + std::to_string(i.signal);
  else if (i.status >= 0) status = ", exited with status " + std::to_string(i.status);
  if (i.exit == ExitHow::Exit) return "exit at " + secs(seconds(t, i.exitTime)) + status;
  if (i.exit == ExitHow::TaskExit) return "ended without pvm_exit at " + secs(seconds(t, i.exitTime)) + status;
  return std::string(stateName(currentState(t, k).state)) + status;
}

// One line on compensation, after the time line (--compensate only).
std::string compensationLine(const Report& a) {
  if (!a.compensated) return {};
  if (!a.compensation.costRecords) return "compensation: none: the trace has no cost records\n";
  return "compensation: xab's measured cost taken out of every task's times (--compensate, docs/compensation.md)\n";
}

// What the replay correction did (--replay-of only).
std::string replayLines(const Report& a) {
  if (a.replayOf.empty()) return {};
  const ReplayCorrectionReport& r = a.replay;
  std::string out = "replay of " + a.replayOf + ": " + r.note + "\n";
  if (r.anchorsMismatched)
    out += "replay: " + std::to_string(r.anchorsMismatched) +
           " recorded calls not used: the replay departed or made another call there\n";
  if (r.anchorsUsed < r.anchors.size())
    out += "replay check: " + std::to_string(r.anchors.size() - r.anchorsUsed) +
           " anchors held out, largest |corrected - recorded| " + fmt("%.6f", durationSeconds(r.largestHeldOutError)) + " s\n";
  return out;
}

std::string timeLine(const Report& a) {
  if (!a.globalTime) return "time: task clocks as recorded (--raw-time)\n";
  if (!a.clock.clockRecords) return "time: task clocks as recorded: the trace has no clock records\n";
  return "time: global (each task's clock fitted to abmon's from its clock records; --raw-time for the clocks as recorded)\n";
}

// What a window leaves out (--budget), as filtered runs say what they
// cannot check.
std::string windowLine(const Report& a) {
  const TraceCut& c = a.trace->cut();
  if (!a.window.on || !c.cut) return {};
  const std::uint64_t held = a.window.runRecords - c.position;
  return "window: the newest " + std::to_string(held) + " of the run's " + std::to_string(a.window.runRecords) +
         " records (from record " + std::to_string(c.position) + ", " + secs(seconds(*a.trace, c.time)) +
         " s); the " + std::to_string(c.dropped) + " before it were dropped " + std::to_string(a.window.cuts) +
         (a.window.cuts == 1 ? " time" : " times") + " to keep within --budget " +
         std::to_string(a.window.budget >> 20) + " MiB and are not analysed (receives of messages sent before it "
         "are not counted unmatched; 'abstat FILE' analyses the whole of a file)\n";
}

std::string header(const Report& a) {
  const Trace& t = *a.trace;
  std::string out = "trace " + a.source + ": ";
  out += t.header().present ? "format " + std::to_string(t.header().version) : "no header";
  out += ", " + std::to_string(t.eventCount()) + " events, " + std::to_string(t.taskCount()) +
         " tasks, " + secs(durationSeconds(t.lastTime() - t.firstTime())) + " s";
  if (a.errorCount) out += ", " + std::to_string(a.errorCount) + " malformed lines skipped";
  if (a.stalledFor > 0) out += fmt(", no progress for %.1f s", a.stalledFor);
  out += "\n";
  return out + windowLine(a) + timeLine(a) + compensationLine(a) + replayLines(a);
}

std::string us(double ns) { return fmt("%.1f", ns / 1e3); }

// Per task, what xab cost it and the run with and without (--compensate).
std::string intrusion(const Report& a) {
  if (!a.compensated || !a.compensation.costRecords) return {};
  const Trace& t = *a.trace;
  const CompensationReport& c = a.compensation;
  Table tab({"TASK", "RECORDS", "COST us", "MEASURED", "RECORDS ms", "SENDS", "SEND ms", "CLOCK ms", "MATES ms", "RUN s",
             "COMPENSATED s", "INTRUSION", "XAB WAITS"});
  for (TaskIndex k = 0; k < t.taskCount() && k < c.tasks.size(); ++k) {
    const TaskIntrusion& i = c.tasks[k];
    tab.add({t.label(k), std::to_string(i.records), us(static_cast<double>(i.recordCost)), std::to_string(i.measured),
             fmt("%.3f", static_cast<double>(i.recordTime) / 1e6), std::to_string(i.sends),
             fmt("%.3f", static_cast<double>(i.sendTime) / 1e6), fmt("%.3f", static_cast<double>(i.clockTime) / 1e6),
             i.mates ? fmt("%.3f", static_cast<double>(i.contention) / 1e6) : std::string("-"),
             fmt("%.6f", durationSeconds(i.rawRun)), fmt("%.6f", durationSeconds(i.compensatedRun)),
             fmt("%.1f %%", 100.0 * i.share()), std::to_string(i.xabWaits)});
  }
  return "\nIntrusion (time added by xab, as a share of the task's recorded run; transfer " +
         us(static_cast<double>(c.transfer)) + " us, receive " + us(static_cast<double>(c.receiveDuration)) + " us, " +
         std::to_string(c.receivesRebased) + " receives, " + std::to_string(c.collectivesRebased) + " collectives and " +
         std::to_string(c.spawnsRebased) + " spawned tasks re-based; XAB WAITS: receives that waited only because of "
         "xab, whose cost is not taken out)\n" + tab.str();
}

// The fit per task and the causality counts (docs/global-time.md).
std::string clocks(const Report& a) {
  if (!a.globalTime || !a.clock.clockRecords) return {};
  const Trace& t = *a.trace;
  const ClockReport& c = a.clock;
  Table tab({"TASK", "SAMPLES", "USED", "OFFSET s", "DRIFT ppm", "RMS us", "MAX us", "FASTEST us"});
  for (TaskIndex k = 0; k < t.taskCount() && k < c.fits.size(); ++k) {
    const ClockFit& f = c.fits[k];
    if (!f.valid) {
      if (t.events(k).size() > 1) tab.add({t.label(k), "0", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    tab.add({t.label(k), std::to_string(f.samples), std::to_string(f.used), fmt("%.6f", f.offsetAt(f.localAt) / 1e9),
             f.rateFitted ? fmt("%.2f", f.driftPpm()) : "-", us(f.rmsResidual), us(static_cast<double>(f.maxResidual)),
             us(static_cast<double>(f.minTransit))});
  }
  std::string out = "\nClocks (offset: the task's clock minus abmon's at its first sample; drift - : samples span too little to fit one)\n";
  if (a.clockQuality.poor)
    out += "  the fit is poor (" +
           (a.clockQuality.poorTasks == 0 ? std::string()
            : std::to_string(a.clockQuality.poorTasks) + (a.clockQuality.poorTasks == 1 ? " task: " : " tasks, the first: ")) +
           a.clockQuality.why + ")\n";
  out += tab.str();
  out += "  receives before send + " + us(static_cast<double>(c.minTransfer)) + " us (fastest one-way transit) of " +
         std::to_string(c.messagesChecked) + ": " + std::to_string(c.violationsRaw) + " as recorded, " +
         std::to_string(c.violationsFit) + " after the fit, " + std::to_string(c.violationsCorrected) +
         " after the correction (" + std::to_string(c.receivesMoved) + " receives moved, at most " +
         us(static_cast<double>(c.largestMove)) + " us)\n";
  return out;
}

// Per host: its tasks and records, and how they were collected.
std::string hosts(const Trace& t) {
  Table tab({"HOST", "TASKS", "EVENTS", "LOST", "COLLECTED BY", "BATCHES", "RELAYED", "STATE"});
  for (const HostFigures& h : hostFigures(t))
    tab.add({h.host.empty() ? "?" : h.host, std::to_string(h.tasks), std::to_string(h.events),
             std::to_string(h.lost), h.relay ? "relay" : "abmon", std::to_string(h.batches),
             std::to_string(h.relayed), !h.deleted ? "-" : h.how == "lost" ? "lost" : "deleted"});
  return "\nHosts\n" + tab.str();
}

// A task's CPU and WAITING FOR CPU cells: seconds over its life, "-" when
// it was never sampled.
std::vector<std::string> cpuCells(const Report& a, TaskIndex k) {
  if (k >= a.samples.tasks.size() || a.samples.tasks[k].empty()) return {"-", "-"};
  CpuTime c = a.samples.whole(*a.trace, k);
  return {secs(durationSeconds(c.cpu)), secs(durationSeconds(c.runnable))};
}

std::string tasks(const Report& a) {
  const Trace& t = *a.trace;
  const bool sampled = a.samples.anyTask;  // CPU columns only where there are samples
  std::vector<std::string> head = {"TASK", "TID", "HOST", "PARENT", "EVENTS", "FIRST", "LAST", "END"};
  if (sampled) head.insert(head.end() - 1, {"CPU", "WAITING FOR CPU"});
  const bool cut = t.cut().cut;  // a window: each task's records in the whole run too
  if (cut) head.insert(head.begin() + 5, "RUN EVENTS");
  Table tab(std::move(head));
  for (TaskIndex k = 0; k < t.taskCount(); ++k) {
    const TaskInfo& i = t.task(k);
    auto parent = t.findTask(i.parent);
    std::vector<std::string> row = {
        t.label(k), formatTid(i.tid), std::string(t.str(i.host)),
        i.parent == kNoTid ? "-" : parent ? t.label(*parent) : formatTid(i.parent),
        std::to_string(t.events(k).size()), secs(seconds(t, i.firstTime)),
        secs(seconds(t, i.lastTime)), exitWords(t, k) + (i.lost ? " (" + std::to_string(i.lost) + " events lost)" : "") +
            (i.lostMessages ? " (" + std::to_string(i.lostMessages) + " event messages lost)" : "")};
    if (cut) row.insert(row.begin() + 5, std::to_string(t.cutTask(k).dropped + t.events(k).size()));
    if (sampled) {
      auto cells = cpuCells(a, k);
      row.insert(row.end() - 1, cells.begin(), cells.end());
    }
    tab.add(std::move(row));
  }
  return "\nTasks\n" + tab.str() + hosts(t);
}

std::string messages(const Report& a) {
  const Trace& t = *a.trace;
  const MessageTable& m = a.messages;
  // Sends and messages apart, so the numbers add up: an mcast or bcast is
  // one send and one message per destination.
  std::string out = "\nMessages\n  " + std::to_string(m.sent) + (m.sent == 1 ? " send, " : " sends, ") +
                    std::to_string(m.messagesSent) + " messages (one per destination): " +
                    std::to_string(m.total.count) + " received and matched, " +
                    std::to_string(m.unreceivedMessages) + " never received; " +
                    std::to_string(m.unmatched.size()) + " receives without a send in the trace; " +
                    (m.fromPvmd ? std::to_string(m.fromPvmd) + " notify messages from pvmd received; " : "") +
                    (t.cut().cut ? std::to_string(m.beforeCut) + " receives of messages sent before the window, " +
                                       std::to_string(m.receivedBeforeCut) +
                                       " sends whose destination may have received them before it (not counted); "
                                 : "") +
                    std::to_string(m.total.bytes) + " bytes, " + bandwidth(m.total.bandwidth()) + "\n";
  if (!m.consistent()) out += "  warning: " + inconsistencyWarning(m) + "\n";
  Table tab({"FROM", "TO", "COUNT", "BYTES", "BANDWIDTH"});
  for (const auto& [pair, s] : m.pairs)
    tab.add({t.label(pair.first), t.label(pair.second), std::to_string(s.count),
             std::to_string(s.bytes), bandwidth(s.bandwidth())});
  if (!m.pairs.empty()) out += tab.str();
  for (std::size_t i = 0; i < m.messages.size(); ++i) {
    if (!m.messages.listedUnreceived(i)) continue;  // decodes no record
    const Message msg = m.messages[i];
    if (!msg.destinationsKnown && msg.receives.empty())
      out += "  " + t.label(msg.sender) + " " + std::string(kindName(msg.kind)) + " tag " +
             std::to_string(msg.tag) + " to group '" + std::string(t.str(msg.group)) +
             "': no receive in the trace (its destinations are not recorded)\n";
    if (msg.unreceived.empty()) continue;
    std::string to;
    for (Tid d : msg.unreceived) {
      auto k = t.findTask(d);
      to += (to.empty() ? "" : ", ") + (k ? t.label(*k) : formatTid(d));
    }
    out += "  never received: " + t.label(msg.sender) + " " + std::string(kindName(msg.kind)) +
           " tag " + std::to_string(msg.tag) + ", " + std::to_string(msg.bytes) + " bytes, serial " +
           std::to_string(msg.serial) + " at " + secs(seconds(t, msg.time)) + " to " + to + "\n";
  }
  return out;
}

std::string barriers(const Report& a) {
  const Trace& t = *a.trace;
  const BarrierAnalysis& b = a.barriers;
  std::string out = "\nBarriers\n  " + std::to_string(b.instances.size()) + " barrier uses, " +
                    secs(durationSeconds(b.totalWait)) + " s waited in all\n";
  for (const BarrierInstance& bi : b.instances) {
    out += "  '" + std::string(t.str(bi.group)) + "' count " + std::to_string(bi.count) + " use " +
           std::to_string(bi.use) + ": " + std::to_string(bi.visits.size()) + " arrived" +
           (bi.beforeCut ? " in the window (the others before it)" : "");
    if (bi.lastArrival >= 0)
      out += ", last " + t.label(bi.visits[static_cast<std::size_t>(bi.lastArrival)].task) + " late by " +
             secs(durationSeconds(bi.lateBy)) + " s";
    out += ", waits " + secs(durationSeconds(bi.totalWait)) + " s" + (bi.complete() ? "" : ", still open") + "\n";
  }
  Table tab({"TASK", "USES", "WAIT", "SHARE", "LAST TO ARRIVE"});
  for (TaskIndex k = 0; k < t.taskCount(); ++k) {
    const BarrierTaskTotals& tt = b.perTask[k];
    if (tt.visits == 0) continue;
    tab.add({t.label(k), std::to_string(tt.visits), secs(durationSeconds(tt.wait)),
             fmt("%.1f%%", tt.share * 100), std::to_string(tt.lastToArrive)});
  }
  if (!b.instances.empty()) out += tab.str();
  return out;
}

std::string hang(const Report& a) {
  const HangText h = hangText(*a.trace, a.hang);
  std::string missing;
  for (const std::string& s : h.recordsMissing) missing += "  " + s + "\n";
  for (const std::string& s : h.crashed) missing += "  " + s + "\n";
  for (const std::string& s : h.boundedWaits) missing += "  " + s + "\n";
  if (!a.hang.hung) return "\nHang\n  no task is blocked\n" + missing;
  std::string out = "\nHang: " + h.headline + "\n";
  for (const std::string& s : h.summary) out += "  " + s + "\n";
  return out + missing;
}

std::string mismatch(const Report& a) {
  const Trace& t = *a.trace;
  const MismatchReport& r = a.mismatch;
  if (r.records == 0)
    return std::string("\nPack/unpack mismatches\n  not checked: ") +
           (r.packFiltered ? "pack records filtered at the source (XAB_FILTER)" : "no pack records") + "\n";
  std::string out = "\nPack/unpack mismatches\n  " + std::to_string(r.checked) + " receives checked, " +
                    std::to_string(r.mismatches.size()) + " mismatched\n";
  if (r.packFiltered)
    out += "  incomplete: " + std::to_string(r.filteredReceives) +
           " receives not checked: pack records filtered at the source (XAB_FILTER or the control channel)\n";
  for (const PackMismatch& x : r.mismatches) {
    const Message& m = a.messages.messages[x.message];
    out += "  " + t.label(x.sender) + " -> " + t.label(x.receiver) + " tag " + std::to_string(m.tag) +
           " serial " + std::to_string(m.serial) + ": " + mismatchText(x) + " (unpack #" +
           std::to_string(x.partsAt + 1) + ")\n";
    out += "    packed:   " + formatPackItems(x.packed) + "\n";
    out += "    unpacked: " + formatPackItems(x.unpacked) + "\n";
  }
  return out;
}

std::string failures(const Report& a) {
  const FailureReport& f = a.failures;
  std::string out = f.calls.empty() ? "\nFailed calls\n  none\n" : "\nFailed calls (" + std::to_string(f.failed) + ")\n";
  for (const TimeoutUnpacks& t : f.timeouts) out += "  " + describe(*a.trace, t) + "\n";
  for (const FailedCall& c : f.calls) out += "  " + describe(*a.trace, c) + "\n";
  if (f.timedOut.empty()) return out;
  out += "\nReceives that timed out (" + std::to_string(f.timedOutCount) + ")\n";
  for (const TimedOutReceives& t : f.timedOut) out += "  " + describe(*a.trace, t) + "\n";
  return out;
}

std::string races(const Report& a) {
  const RaceReport& r = a.races;
  std::string out = "\nMessage races\n";
  if (!r.checked) return out + "  not checked: more than " + std::to_string(kRaceTaskLimit) + " tasks\n";
  out += "  " + std::to_string(r.anySource) + " receives from any task, " + std::to_string(r.racy) +
         " of them message races (which message comes first depends on timing)\n";
  if (r.racy == 0) return out;
  constexpr std::size_t kShown = 8;
  for (std::size_t k = 0; k < r.groups.size() && k < kShown; ++k)
    out += "  " + describe(*a.trace, a.messages, r.groups[k]) + "\n";
  if (r.groups.size() > kShown)
    out += "  ... and " + std::to_string(r.groups.size() - kShown) + " more (--json lists every one)\n";
  out += "  A program that relies on which comes first receives from the task it means (pvm_recv(tid, tag)).\n";
  return out;
}

std::string pct(TimeNs part, TimeNs total) {
  return total > 0 ? fmt("%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(total)) : "-";
}

// CPU and WAITING FOR CPU over the whole of a task, as % of its total (the
// breakdown's) when one is given.
void breakdownRow(Table& tab, const std::string& name, const TimeBreakdown& b, const CpuTime* cpu = nullptr) {
  auto cell = [&](TimeNs v) { return secs(durationSeconds(v)) + " (" + pct(v, b.total()) + ")"; };
  std::vector<std::string> row = {name, cell(b.compute), cell(b.communication), cell(b.blocked), cell(b.barrier)};
  if (cpu) row.insert(row.end(), {cell(cpu->cpu), cell(cpu->runnable)});
  row.push_back(secs(durationSeconds(b.total())));
  tab.add(std::move(row));
}

std::string breakdown(const Report& a) {
  const Trace& t = *a.trace;
  const bool sampled = a.samples.anyTask;
  std::vector<std::string> head = {"TASK", "COMPUTE", "COMMUNICATION", "BLOCKED", "BARRIER", "TOTAL"};
  if (sampled) head.insert(head.end() - 1, {"CPU", "WAITING FOR CPU"});
  const bool cut = t.cut().cut;  // a window: each task's records in the whole run too
  if (cut) head.insert(head.begin() + 5, "RUN EVENTS");
  Table tab(std::move(head));
  CpuTime all;
  for (TaskIndex k = 0; k < t.taskCount(); ++k) {
    CpuTime c = a.samples.whole(t, k);
    all.cpu = addTime(all.cpu, c.cpu);
    all.runnable = addTime(all.runnable, c.runnable);
    breakdownRow(tab, t.label(k), a.breakdown.perTask[k], sampled ? &c : nullptr);
  }
  breakdownRow(tab, "all tasks", a.breakdown.total, sampled ? &all : nullptr);
  return "\nTime breakdown (seconds)\n" + tab.str();
}

// Why the run is slow: the model's words (why_text.h).
std::string why(const Report& a) {
  const WhyText w = whyText(a);
  std::string out = "\nWhy slow: " + w.headline + "\n";
  for (std::size_t i = 0; i < w.causes.size(); ++i) out += "  " + std::to_string(i + 1) + ". " + w.causes[i] + "\n";
  for (const std::string& s : w.symptoms) out += "  " + s + "\n";
  if (!w.criticalPath.empty()) out += "  " + w.criticalPath + "\n";
  if (!w.slack.empty()) out += "  " + w.slack + "\n";
  return out;
}

}  // namespace

std::string inconsistencyWarning(const MessageTable& m) {
  return "inconsistent input: " + std::to_string(m.duplicateSerials) +
         " sends repeat a serial their task already used, " + std::to_string(m.duplicateReceives) +
         " receives name a message their task already received (not counted again); "
         "was a trace read twice, or traces of two runs joined?";
}

std::string textReport(const Report& a, const Sections& s) {
  std::string out = header(a);
  if (s.tasks) out += tasks(a);
  if (s.clocks || (s.tasks && a.clockQuality.poor)) out += clocks(a);
  if (s.tasks) out += intrusion(a);
  if (s.messages) out += messages(a);
  if (s.barriers) out += barriers(a);
  if (s.hang) out += hang(a);
  if (s.mismatch) out += mismatch(a);
  if (s.failures) out += failures(a);
  if (s.races) out += races(a);
  if (s.breakdown) out += breakdown(a);
  if (s.why) out += why(a);
  return out;
}

}  // namespace xab::abstat
