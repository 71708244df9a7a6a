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

  // Task t's shifts read with a rising record index: a walk along its
  // steps, not a search for each record.
  class Walk {
   public:
    Walk(const RecordShift& s, TaskIndex t);
    TimeNs operator()(std::size_t i);

   private:
    const std::vector<TimeNs>* perRecord_ = nullptr;
    const std::vector<std::uint32_t>* from_ = nullptr;
    const std::vector<TimeNs>* shift_ = nullptr;
    std::size_t next_ = 0;  // the first step after the record read last
  };

 private:
  const std::vector<std::vector<TimeNs>>* perRecord_ = nullptr;
  const CausalCorrection* steps_ = nullptr;
};

// One matched receive, in the table's order (each message, then its
// receives): first its send's time and its own as recorded (`times`,
// made by exchanges()), then its edge, which causalShifts makes in the
// same place (one array of 16 bytes a receive for both).
union Exchange {
  struct {
    TimeNs sent, got;
  } times;
  struct {
    TimeNs transit;          // receive's time - send's, through the fits, saturated (never INT64_MIN)
    std::uint32_t sendSlot;  // of the sender's last receive at or before the send; 0: none
    std::uint32_t recvSlot;
  } edge;
};
static_assert(sizeof(Exchange) == 16);

// The matched receives of `m` (the table of `trace`) with their times as
// recorded: the one walk of the records that the causality check, the
// refusal of fits and the correction share.
std::vector<Exchange> exchanges(const Trace& trace, const MessageTable& m);

// The conservative correction of the receives that come too early once
// each task's times go through its fit (`x`: exchanges() of the table `m`,
// turned into edges here), counting in `report` the receives moved and
// the largest move.  The table is freed as soon as the edges are made.
CausalCorrection causalShifts(MessageTable m, std::vector<Exchange> x, const std::vector<ClockFit>& fits,
                              TimeNs minTransfer, ClockReport& report);

}  // namespace xab::detail
