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

FailureReport findFailedCalls(const Trace& trace) {
  FailureReport out;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    std::map<std::pair<Kind, std::int32_t>, std::size_t> at;  // (call, rc) -> index in out.calls
    const auto& ev = trace.events(t);
    std::int64_t emptyReceive = -1;  // the last receive that got nothing, while no other followed
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      const Event& e = ev[i];
      if (e.phase != Phase::End || !isCall(e.kind)) continue;
      if (isMsgIn(e.kind) || e.kind == Kind::SETRBUF) {
        bool none = (e.kind == Kind::TRECV || e.kind == Kind::NRECV) && e.hasRc() && e.rc == 0;
        emptyReceive = none ? static_cast<std::int64_t>(i) : -1;
      }
      if (!e.hasRc() || e.rc >= 0 || usual(e)) continue;
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
    }
  }
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

std::string describe(const Trace& trace, const TimeoutUnpacks& t) {
  const Event& r = trace.event(t.receive);
  std::string how = r.kind == Kind::TRECV ? " timed out" : " found none";
  return trace.label(t.task) + " took a timeout for a message: " + callName(r.kind) + how + " (rc=0) at " +
         seconds(trace, r.time) + " s, then " + (t.unpacks == 1 ? std::string("1 unpack") : std::to_string(t.unpacks) + " unpacks") +
         " failed with " + errorWords(t.rc) + " (there was no message to unpack)";
}

}  // namespace xab
