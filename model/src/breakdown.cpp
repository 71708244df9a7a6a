// Time per task in four classes, from the state intervals.
#include <xab/model/breakdown.h>

#include <algorithm>

namespace xab {
namespace {

TimeNs* bucket(TimeBreakdown& b, TaskState s) {
  switch (s) {
    case TaskState::Computing: return &b.compute;
    case TaskState::Packing:
    case TaskState::Unpacking:
    case TaskState::Sending: return &b.communication;
    case TaskState::Receiving:
    case TaskState::Collective:
    case TaskState::Spawning:
    case TaskState::Blocked: return &b.blocked;
    case TaskState::Barrier: return &b.barrier;
    default: return nullptr;  // not started, exited
  }
}

void add(TimeBreakdown& to, const TimeBreakdown& x) {
  to.compute = addTime(to.compute, x.compute);
  to.communication = addTime(to.communication, x.communication);
  to.blocked = addTime(to.blocked, x.blocked);
  to.barrier = addTime(to.barrier, x.barrier);
}

}  // namespace

BreakdownReport timeBreakdown(const Trace& trace) {
  BreakdownReport out;
  out.perTask.resize(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    const auto& ev = trace.events(t);
    TimeBreakdown& b = out.perTask[t];
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      StateInterval iv = intervalAfter(trace, t, i);
      TimeNs end = iv.end == kOpenEnd ? std::max(trace.lastTime(), iv.begin) : iv.end;
      if (TimeNs* slot = bucket(b, iv.state)) *slot = addTime(*slot, std::max<TimeNs>(end - iv.begin, 0));
    }
    add(out.total, b);
  }
  return out;
}

}  // namespace xab
