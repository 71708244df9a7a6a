// Calls that returned an error, and a receive's timeout taken for a message.
#include <xab/model/failures.h>

#include <map>
#include <tuple>

namespace xab {
namespace {

// Records of PVM calls: the event table's rows less those that are not
// calls or whose rc is no status.
bool isCall(Kind k) {
  if (static_cast<int>(k) >= XAB_EV_COUNT_) return false;  // abmon's records, `other`
  switch (k) {
    case Kind::INFO: case Kind::TIDS: case Kind::MARK: case Kind::REPLAY_TASK: case Kind::REPLAY_DEPART:
    case Kind::CLOCK: case Kind::OUTPUT: case Kind::COST: case Kind::FLUSH: case Kind::STEP_WAIT:
    case Kind::HANDLER:
      return false;
    default:
      return true;
  }
}

// pvm_parent's error is the usual answer of a task nobody spawned.
bool usual(const Event& e) {
  return e.kind == Kind::PARENT && (e.rc == -23 || e.rc == -35);  // PvmNoParent, PvmParentNotSet
}

std::string seconds(const Trace& trace, TimeNs t) { return formatSeconds(t, trace.firstTime()); }

std::string callName(Kind k) { return "pvm_" + std::string(kindName(k)); }

}  // namespace

CallOutcome outcomeOf(const Event& e) {
  if (e.phase != Phase::End || !isCall(e.kind) || !e.hasRc()) return CallOutcome::Ok;
  if (e.kind == Kind::TRECV && e.rc == 0) return CallOutcome::TimedOut;
  return e.rc < 0 && !usual(e) ? CallOutcome::Failed : CallOutcome::Ok;
}

FailureReport findFailedCalls(const Trace& trace) {
  FailureReport out;
  std::vector<std::vector<std::uint32_t>> marked(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    std::map<std::pair<Kind, std::int32_t>, std::size_t> at;  // (call, rc) -> index in out.calls
    const auto& ev = trace.events(t);
    std::int64_t emptyReceive = -1;  // the last receive that got nothing, while no other followed
    TimeNs trecvBegin = -1;          // the open pvm_trecv's begin
    std::uint32_t next = 0;
    ev.forEach([&](const Event& e) {  // chunk by chunk: every record is read
      const std::uint32_t i = next++;
      if (e.kind == Kind::TRECV && e.isBegin()) trecvBegin = e.time;
      if (e.phase != Phase::End || !isCall(e.kind)) return;
      if (isMsgIn(e.kind) || e.kind == Kind::SETRBUF) {
        bool none = (e.kind == Kind::TRECV || e.kind == Kind::NRECV) && e.hasRc() && e.rc == 0;
        emptyReceive = none ? static_cast<std::int64_t>(i) : -1;
      }
      const CallOutcome outcome = outcomeOf(e);
      if (outcome != CallOutcome::Ok) marked[t].push_back(i);
      if (outcome == CallOutcome::TimedOut) {
        if (out.timedOut.empty() || out.timedOut.back().task != t) out.timedOut.push_back({t, 0, {t, i}, e.time, 0});
        ++out.timedOut.back().count;
        ++out.timedOutCount;
        if (trecvBegin >= 0 && trecvBegin <= e.time) out.timedOut.back().waited += e.time - trecvBegin;
      }
      if (e.kind == Kind::TRECV) trecvBegin = -1;
      if (outcome != CallOutcome::Failed) return;
      ++out.failed;
      auto [it, added] = at.try_emplace({e.kind, e.rc}, out.calls.size());
      if (added) out.calls.push_back({t, e.kind, e.rc, 0, {t, i}, e.time});
      ++out.calls[it->second].count;
      if (isUnpack(e.kind) && emptyReceive >= 0) {
        auto r = static_cast<std::uint32_t>(emptyReceive);
        if (out.timeouts.empty() || out.timeouts.back().task != t || out.timeouts.back().receive.index != r)
          out.timeouts.push_back({t, {t, r}, {t, i}, 0, e.rc});
        ++out.timeouts.back().unpacks;
      }
    });
  }
  if (out.any()) out.marked = std::move(marked);
  return out;
}

std::string errorWords(std::int32_t rc) {
  std::string_view name = pvmErrorName(rc);
  if (rc < 0 && !name.empty()) return std::string(name) + " (" + std::to_string(rc) + ")";
  return "error " + std::to_string(rc);
}

std::string describe(const Trace& trace, const FailedCall& f) {
  std::string times = f.count == 1 ? "once" : std::to_string(f.count) + " times";
  return trace.label(f.task) + ": " + callName(f.call) + " failed " + times + " with " + errorWords(f.rc) +
         (f.count == 1 ? ", at " : ", first at ") + seconds(trace, f.firstTime) + " s";
}

std::string describe(const Trace& trace, const TimedOutReceives& t) {
  std::string times = t.count == 1 ? "once" : std::to_string(t.count) + " times";
  return trace.label(t.task) + ": pvm_trecv timed out " + times + ", waiting " + formatSeconds(t.waited, 0) +
         " s" + (t.count == 1 ? ", at " : " in all, first at ") + seconds(trace, t.firstTime) + " s";
}

std::string describe(const Trace& trace, const TimeoutUnpacks& t) {
  const Event& r = trace.event(t.receive);
  std::string how = r.kind == Kind::TRECV ? " timed out" : " found none";
  return trace.label(t.task) + " took a timeout for a message: " + callName(r.kind) + how + " (rc=0) at " +
         seconds(trace, r.time) + " s, then " + (t.unpacks == 1 ? std::string("1 unpack") : std::to_string(t.unpacks) + " unpacks") +
         " failed with " + errorWords(t.rc) + " (there was no message to unpack)";
}

}  // namespace xab
