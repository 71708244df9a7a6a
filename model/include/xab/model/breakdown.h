// xab/model/breakdown.h -- where each task's time went.
//
// Sums the state intervals (states.h) of each task from its first record to
// its last (or its exit), in four classes:
//   compute        Computing
//   communication  Packing, Unpacking, Sending
//   blocked        Receiving, Collective, Spawning, Blocked
//   barrier        Barrier
#pragma once

#include <xab/model/states.h>

#include <vector>

namespace xab {

struct TimeBreakdown {
  TimeNs compute = 0, communication = 0, blocked = 0, barrier = 0;
  TimeNs total() const { return addTime(addTime(compute, communication), addTime(blocked, barrier)); }
};

struct BreakdownReport {
  std::vector<TimeBreakdown> perTask;  // indexed by TaskIndex
  TimeBreakdown total;
};

// Open intervals (a task still blocked) end at the trace's last time.
BreakdownReport timeBreakdown(const Trace& trace);

}  // namespace xab
