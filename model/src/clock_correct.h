// clock_correct.h -- global time's causality correction (clock_correct.cpp),
// for toGlobalTime (clock_retime.cpp).
#pragma once

#include <xab/model/clock.h>
#include <xab/model/messages.h>

#include <cstdint>
#include <vector>

namespace xab::detail {

// How far each record moves forward, in steps: a task's shift changes
// only at its receives, so it is kept per receive (12 bytes), not per
// record.
struct CausalCorrection {
  std::vector<std::vector<std::uint32_t>> from;  // per task: the records where its shift changes, rising
  std::vector<std::vector<TimeNs>> shift;        // per task: the shift from from[t][k] to the next step
  std::uint64_t violationsLeft = 0;              // receives still earlier than send + minTransfer after the shifts
};

// How far record i of task t moves forward: per record (shiftTimes' table)
// or from a CausalCorrection's steps.
class RecordShift {
 public:
  explicit RecordShift(const std::vector<std::vector<TimeNs>>& perRecord) : perRecord_(&perRecord) {}
  explicit RecordShift(const CausalCorrection& steps) : steps_(&steps) {}
  TimeNs operator()(TaskIndex t, std::size_t i) const;

 private:
  const std::vector<std::vector<TimeNs>>* perRecord_ = nullptr;
  const CausalCorrection* steps_ = nullptr;
};

// The conservative correction of `trace`'s receives that come too early
// against `m` (the table of `trace`, or of a trace with the same records
// in the same order: matching does not read times), counting in `report`
// the receives moved and the largest move.  The table is freed as soon
// as its receives are read.
CausalCorrection causalShifts(const Trace& trace, MessageTable m, TimeNs minTransfer, ClockReport& report);

}  // namespace xab::detail
