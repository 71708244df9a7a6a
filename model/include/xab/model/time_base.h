// xab/model/time_base.h -- the one entry that puts a trace on the time
// base a reader asks for (docs/global-time.md): every front end (abstat,
// the translators, xabview) and the replay library call it; none calls
// toGlobalTime or compensate itself.
//
// The order is fixed: first global time (clock.h: each task's clock fit,
// then the causality correction), then intrusion compensation
// (compensate.h: xab's costs come out of times that are already on one
// clock), then a last re-dating pass when one is given -- the correction
// of a replay to its record's dates (xab/replay/correct.h,
// replay::correctionTo), which wants global, compensated times.  The model
// does not depend on the replay library: the pass comes in as a function.
#pragma once

#include <xab/model/clock.h>
#include <xab/model/compensate.h>
#include <xab/model/trace.h>

#include <functional>
#include <memory>
#include <unordered_map>

namespace xab {

using TracePtr = std::shared_ptr<const Trace>;

struct TimeBase {
  bool globalTime = true;   // false: task clocks as recorded (--raw-time)
  bool compensate = false;  // xab's measured cost taken out (--compensate)
  // The last pass (a replay's correction to its record); empty: none.
  std::function<TracePtr(TracePtr)> correct;
};

struct TimeBaseReport {
  ClockReport clock;                // when the trace went through global time
  CompensationReport compensation;  // when it was compensated
  bool global = false;              // the times were put on global time
  bool compensated = false;         // compensate() ran (compensation.costRecords: it took something out)
  bool corrected = false;           // the last pass ran
  // prepare(): the message table of the trace returned, when global time
  // made one and nothing after it changed the records: analyse() takes it
  // (AnalyseOptions::messages) instead of matching again.  Null otherwise
  // (and always from prepareLive(), whose analysis comes later).
  std::shared_ptr<MessageTable> messages;
};

// The trace on `base`: re-dated in place when the caller hands over the
// only reference (std::move) and no snapshot shares its events, else a new
// trace; the same one when nothing applies.  The last pass is the caller's
// function and may copy.
TracePtr prepare(TracePtr trace, const TimeBase& base, TimeBaseReport& report);

// The live variant, for a growing trace read again and again (xabview):
// `fit` follows the records as they come (LiveClockFit::update) and says
// whether global time would move any task (report.clocksMove).  Re-timing
// copies the whole trace, so while records flow a trace whose clocks move
// keeps its task clocks; it is put on global time only when `settled`
// (the input paused or ended).  A trace whose clocks all agree with the
// reference within their fits' error is on global time as recorded.
// Compensation and the last pass follow as in prepare().
struct LiveTimeBaseReport : TimeBaseReport {
  bool clocksMove = false;    // some task's clock is off the reference by more than its fit's error
  bool clockSamples = false;  // the trace has clock records at all
};
TracePtr prepareLive(TracePtr trace, LiveClockFit& fit, const TimeBase& base, bool settled,
                     LiveTimeBaseReport& report);

// The streaming variant, for a reader that never holds the whole trace
// (the translators' streams): a first pass hands every piece to gather(),
// fit() fits each task's clock once, then every piece of a second pass
// goes through apply().  Global time by the clock fits alone: the
// causality correction needs every message at once, and compensation and
// the last pass need the whole trace (a reader that asks for them reads it
// whole and calls prepare()).
class StreamTimeBase {
 public:
  explicit StreamTimeBase(const TimeBase& base) : globalTime_(base.globalTime) {}
  // Whether pieces need a first pass at all (global time asked for).
  bool wantsFirstPass() const { return globalTime_; }
  void gather(const Trace& piece);
  // Fits the clocks gathered; the tasks fitted (0: apply() hands pieces back as they are).
  std::size_t fit();
  TracePtr apply(TracePtr piece) const;

 private:
  bool globalTime_;
  ClockFitter fitter_;
  std::unordered_map<Tid, ClockFit> fits_;
};

}  // namespace xab
