// A hang report in plain words.
#include <xab/model/hang_text.h>

#include <map>
#include <set>

namespace xab {

std::string labelSet(const Trace& trace, const std::vector<TaskIndex>& tasks) {
  std::map<std::string, std::set<std::int32_t>> byName;
  std::vector<std::string> unnamed;
  for (TaskIndex t : tasks) {
    if (trace.task(t).name < 0) unnamed.push_back(trace.label(t));
    else byName[std::string(trace.taskName(t))].insert(trace.task(t).instance);
  }
  std::string out;
  auto sep = [&] { if (!out.empty()) out += ", "; };
  for (const auto& [name, insts] : byName) {
    sep();
    std::vector<std::int32_t> v(insts.begin(), insts.end());
    bool contiguous = v.back() - v.front() + 1 == static_cast<std::int32_t>(v.size());
    out += "(" + name + ", ";
    if (v.size() > 2 && contiguous) {
      out += std::to_string(v.front()) + ".." + std::to_string(v.back());
    } else {
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
    }
    out += ")";
  }
  for (const auto& u : unnamed) { sep(); out += u; }
  return out;
}

namespace {

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

const char* signalName(int number) {
  switch (number) {
    case 4: return "SIGILL";
    case 6: return "SIGABRT";
    case 7: return "SIGBUS";
    case 8: return "SIGFPE";
    case 11: return "SIGSEGV";
  }
  return "?";
}

struct Words {
  const Trace& trace;
  const HangReport& report;

  std::string label(TaskIndex t) const { return trace.label(t); }
  std::string at(TimeNs t) const { return formatSeconds(t, trace.firstTime()); }
  std::string since(TimeNs t) const { return "since " + at(t) + " s"; }
  std::string call(Kind k) const { return std::string(kindName(k)); }

  std::string source(Tid src) const {
    if (src == kAnyTid) return "any task";
    auto t = trace.findTask(src);
    return t ? trace.label(*t) : formatTid(src);
  }

  std::string endedWords(TaskIndex t) const {
    return "until it ended at " + at(trace.task(t).exitTime) + " s (killed, or gone without pvm_exit)";
  }

  // What a task that another waits for is doing.
  std::string doing(TaskIndex t) const {
    const TaskCondition& c = report.tasks[t];
    const StateInterval& s = c.now;
    if (c.ended) {
      std::string what = "was blocked in " + call(s.call);
      if (s.state == TaskState::Receiving) what += " waiting for tag " + formatTag(s.b) + " from " + source(s.a);
      return what + " " + endedWords(t);
    }
    if (c.exited) return "has exited";
    if (s.state == TaskState::Receiving)
      return "is blocked in " + call(s.call) + " waiting for tag " + formatTag(s.b) + " from " + source(s.a);
    if (c.blocked) return "is blocked in " + call(s.call);
    return "is " + std::string(stateName(s.state));
  }

  std::string receive(const BlockedTask& b) const {
    std::string s = label(b.task) + (b.ended ? " waited" : " waits") + " for tag " + formatTag(b.state.b) +
                    " from " + source(b.state.a) + " (" + call(b.state.call) + ", " + since(b.state.begin) + ")";
    if (b.ended) s += " " + endedWords(b.task);
    if (!b.goneChildren.empty())
      s += "; " + std::string(b.goneChildren.size() == 1 ? "its child " : "its children ") +
           labelSet(trace, b.goneChildren) + " ended without pvm_exit while working (crashed or killed" +
           (b.goneChildren.size() == 1 ? ", at " + at(trace.task(b.goneChildren[0]).exitTime) + " s" : "") +
           "): what " + (b.goneChildren.size() == 1 ? "it was" : "they were") + " to send will never come";
    if (b.pending.empty()) {
      s += b.ended ? "; no message sent to it was left unreceived" : "; no message sent to it is left unreceived";
      if (b.state.a != kAnyTid)
        if (auto src = trace.findTask(b.state.a)) s += "; " + label(*src) + " " + doing(*src);
      return s + ".";
    }
    std::map<std::int32_t, std::vector<TaskIndex>> byTag;
    bool anyMatch = false;
    for (const auto& p : b.pending) {
      byTag[p.tag].push_back(p.sender);
      anyMatch |= p.matches;
    }
    for (const auto& [tag, senders] : byTag)
      s += "; " + plural(senders.size(), "message", "messages") + " with tag " + std::to_string(tag) + " from " +
           labelSet(trace, senders) +
           (senders.size() == 1 ? (b.ended ? " was" : " is") : (b.ended ? " were" : " are")) + " waiting for it";
    if (anyMatch && b.ownMatcher)
      s += b.ended ? "; the program's own matching function (pvm_recvf) accepted none of them"
                   : "; the program's own matching function (pvm_recvf) accepts none of them so far";
    else if (anyMatch)
      s += b.ended ? "; one of them matched it (were records lost?)"
                   : "; one of them matches, so the receive may still complete (or records were lost)";
    return s + ".";
  }

  std::string barrier(const BlockedTask& b) const {
    std::string s = label(b.task) + (b.ended ? " waited" : " waits") + " at barrier '" +
                    std::string(trace.str(b.state.a)) + "' (count " + std::to_string(b.state.b) + ", " +
                    since(b.state.begin) + ")";
    if (b.ended) s += " " + endedWords(b.task);
    if (b.barrierKnown) s += "; " + std::to_string(b.arrived) + " of " + std::to_string(b.barrierCount) + " arrived";
    if (b.barrierKnown && b.elsewhere)
      s += "; " + plural(b.elsewhere, "other member waits", "other members wait") +
           " at another use of it (the members called it a different number of times)";
    if (!b.missing.empty()) s += "; not arrived: " + labelSet(trace, b.missing);
    if (b.missing.empty() && b.barrierKnown && static_cast<std::int32_t>(b.arrived) < b.barrierCount)
      s += "; the other members never joined the group in this trace";
    return s + ".";
  }

  std::string explanation(const BlockedTask& b) const {
    const std::string until = b.ended ? " " + endedWords(b.task) : "";
    switch (b.state.state) {
      case TaskState::Receiving: return receive(b);
      case TaskState::Barrier: return barrier(b);
      case TaskState::Collective:
        return label(b.task) + (b.ended ? " was in " : " is in ") + call(b.state.call) + " on group '" +
               std::string(trace.str(b.state.a)) + "' (" + since(b.state.begin) + ")" + until + ".";
      default:
        return label(b.task) + (b.ended ? " was blocked in " : " is blocked in ") + call(b.state.call) + " (" +
               since(b.state.begin) + ")" + until + ".";
    }
  }

  std::string barrierWait(const BarrierWait& w) const {
    std::string s = "barrier '" + std::string(trace.str(w.group)) + "' (count " + std::to_string(w.count) +
                    "): " + std::to_string(w.arrived) + " of " + std::to_string(w.count) + " arrived, " +
                    labelSet(trace, w.waiters) + (w.waiters.size() == 1 ? " waits" : " wait");
    for (TaskIndex m : w.missing) s += "; " + label(m) + " " + doing(m);
    return s + ".";
  }

  std::string recordsMissing(const RecordsMissing& r) const {
    return label(r.task) + " ended without pvm_exit in " + call(r.call) + " while a message for it (tag " +
           std::to_string(r.tag) + " from " + label(r.sender) + ") had been sent: its last records are missing " +
           "(a task that ends without pvm_exit may lose them under PVM's tracer), not a hang.";
  }

  std::string crashed(const CrashedTask& c) const {
    return label(c.task) + " died of signal " + std::to_string(c.signal) + " (" + signalName(c.signal) + ") in " +
           call(c.call) + " at " + at(c.at) + " s: it crashed there, it was not blocked.";
  }

  std::string boundedWait(const BoundedWait& w) const {
    return label(w.task) + (w.ended ? " was" : " is") + " in trecv with a timeout of " +
           formatSeconds(std::int64_t{w.timeoutUs} * 1000, 0) + " s (since " + at(w.since) +
           " s): a wait that ends by itself, not a hang.";
  }
};

}  // namespace

HangText hangText(const Trace& trace, const HangReport& report) {
  const Words words{trace, report};
  HangText out;
  for (const BlockedTask& b : report.blocked) out.explanations.push_back(words.explanation(b));
  for (const auto& cyc : report.cycles) {
    std::string s = "deadlock: ";
    for (TaskIndex t : cyc) s += trace.label(t) + " waits for ";
    out.summary.push_back(s + trace.label(cyc.front()) + ".");
  }
  const std::size_t died = report.endedBlocked, live = report.liveTasks;
  if (died)
    out.summary.push_back(plural(died, "task", "tasks") + " ended while blocked (killed, or gone without " +
                          "pvm_exit): the program was hung when it was stopped.");
  if (live && report.stillBlocked == live)
    out.summary.push_back((live == 1 ? std::string("the only live task is") : "all " + plural(live, "", "live tasks are")) +
                          " blocked: the program cannot make progress.");
  for (const BarrierWait& w : report.barrierWaits) out.summary.push_back(words.barrierWait(w));
  out.summary.insert(out.summary.end(), out.explanations.begin(), out.explanations.end());
  if (report.hung)
    out.headline = plural(report.stillBlocked, "task", "tasks") + " blocked" +
                   (died ? ", " + std::to_string(died) + " ended while blocked" : "");
  for (const RecordsMissing& r : report.recordsMissing) out.recordsMissing.push_back(words.recordsMissing(r));
  for (const CrashedTask& c : report.crashed) out.crashed.push_back(words.crashed(c));
  for (const BoundedWait& w : report.boundedWaits) out.boundedWaits.push_back(words.boundedWait(w));
  return out;
}

}  // namespace xab
