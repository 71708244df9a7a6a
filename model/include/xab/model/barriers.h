// xab/model/barriers.h -- who waited at each barrier, and for whom.
//
// A barrier instance is (group, count, n): the n-th time (from 0) the
// tasks passed a barrier of that group with that count.  Each task's
// arrival is its barrier.begin, its departure its barrier end record, its
// wait the difference (in its own clock).  PVM releases a barrier once
// `count` tasks arrived: when numbering each task's calls would put more
// than `count` tasks in one use (tasks that joined in later rounds), the
// uses of that (group, count) are cut again by arrival time.  The other blocking collectives
// (reduce, gather, scatter) form instances by the same rule
// (collectiveInstances): intrusion compensation re-bases them.
#pragma once

#include <xab/model/trace.h>

#include <vector>

namespace xab {

inline constexpr std::uint32_t kNoRecord = UINT32_MAX;

struct BarrierVisit {
  TaskIndex task = 0;
  std::uint32_t arriveAt = kNoRecord;  // index of the begin record in the task (kNoRecord: lost)
  std::uint32_t departAt = kNoRecord;  // index of the end record (kNoRecord: still waiting)
  TimeNs arrive = 0;
  TimeNs depart = kOpenEnd;  // kOpenEnd: still waiting when the trace ends
  TimeNs wait() const;       // depart - arrive (0 while open)
};

struct BarrierInstance {
  StrId group = -1;
  std::int32_t count = 0;
  std::int32_t root = -1;      // reduce, gather, scatter: the root's instance in the group
  std::uint32_t use = 0;       // n-th use of (group, count)
  std::vector<BarrierVisit> visits;
  int lastArrival = -1;        // index into visits of the last task to arrive
  TimeNs lateBy = 0;           // last arrival - first arrival
  TimeNs totalWait = 0;
  // A cut trace (Trace::cut()): some members arrived before the cut and
  // are not held, so the last to arrive is not known (lastArrival -1).
  bool beforeCut = false;
  bool complete() const;       // every visit departed
};

struct BarrierTaskTotals {
  TimeNs wait = 0;
  std::uint32_t visits = 0;
  std::uint32_t lastToArrive = 0;  // times this task was the last one
  double share = 0;                // wait / the task's run time (first to last record)
};

struct BarrierAnalysis {
  std::vector<BarrierInstance> instances;     // in order of first arrival
  std::vector<BarrierTaskTotals> perTask;     // indexed by TaskIndex
  TimeNs totalWait = 0;
};

BarrierAnalysis analyzeBarriers(const Trace& trace);

// The instances of one blocking collective kind (BARRIER, REDUCE, GATHER,
// SCATTER), keyed as barriers are (group, count, use), in no set order.
std::vector<BarrierInstance> collectiveInstances(const Trace& trace, Kind kind);

}  // namespace xab
