// causal_walk.h -- the one driver of the model's re-dating passes
// (compensate.cpp, replay_correct.cpp): every task's events in turn, each
// event only once what it depends on (a receive's send, a barrier's other
// members) has been computed.
#pragma once

#include <xab/model/trace.h>

#include <cstdint>
#include <vector>

namespace xab::detail {

// cursor[t]: task t's next event to compute.  step(t, force) computes it
// and advances cursor[t], or returns false when it must wait for another
// task; with force it must not wait (a receive goes without its send).
// When every task waits -- a cycle only a corrupt trace has -- the first
// waiting task is forced one event.
template <class Step>
void walkCausally(const Trace& trace, const std::vector<std::uint32_t>& cursor, Step&& step) {
  for (;;) {
    bool progress = false, left = false;
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      while (cursor[t] < trace.events(t).size() && step(t, false)) progress = true;
      left |= cursor[t] < trace.events(t).size();
    }
    if (!left) return;
    if (progress) continue;
    for (TaskIndex t = 0; t < trace.taskCount(); ++t)
      if (cursor[t] < trace.events(t).size()) {
        step(t, true);
        break;
      }
  }
}

}  // namespace xab::detail
