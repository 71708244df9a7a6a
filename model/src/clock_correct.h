// clock_correct.h -- global time's causality correction (clock_correct.cpp),
// for toGlobalTime (clock_retime.cpp).
#pragma once

#include <xab/model/clock.h>
#include <xab/model/messages.h>

#include <cstdint>
#include <vector>

namespace xab::detail {

struct CausalCorrection {
  std::vector<std::vector<TimeNs>> shift;  // per task, per record: how far it moves forward
  std::uint64_t violationsLeft = 0;        // receives still earlier than send + minTransfer after the shifts
};

// The conservative correction of `trace`'s receives that come too early
// against `m` (the table of `trace`, or of a trace with the same records
// in the same order: matching does not read times), counting in `report`
// the receives moved and the largest move.
CausalCorrection causalShifts(const Trace& trace, const MessageTable& m, TimeNs minTransfer, ClockReport& report);

}  // namespace xab::detail
