// live_time_base.cpp -- the reader's pictures on their time base (live_time_base.h).
#include "live_time_base.h"

#include <xab/model/memory.h>
#include <xab/replay/correct.h>

namespace xab::view {

LiveTimeBase::Picture LiveTimeBase::apply(TracePtr trace, bool rawTime, bool compensate,
                                          const replay::RecordSet* record, bool settled, bool rebased) {
  Picture p;
  const bool wasGlobal = shownGlobal_;
  TimeBase base{.globalTime = !rawTime, .compensate = compensate, .correct = {}};
  // --replay-of: the picture on the recorded run's dates (docs/replay.md).
  // Every snapshot is corrected whole: a correction moves every task.
  ReplayCorrectionReport replayReport;
  if (record) base.correct = replay::correctionTo(*record, replayReport);
  LiveTimeBaseReport rep;
  p.trace = prepareLive(std::move(trace), fit_, base, settled, rep);
  if (rep.global) returnFreedPages();  // global time's message table and correction
  if (!rawTime) {
    clocksMove_ = rep.clocksMove;
    if (rep.global)
      p.note = "global time";
    else if (rep.clocksMove)
      p.note = "task clocks while records flow, global time when they pause";
    else
      p.note = rep.clockSamples ? "global time, every clock agrees with abmon's" : "task clocks, no clock records";
    p.retimed = rep.global || shownGlobal_;  // another time base: the picture starts again
    shownGlobal_ = rep.global;
  } else {
    p.note = "task clocks as recorded";
    p.retimed = shownGlobal_;
    shownGlobal_ = false;
  }
  p.newTimeBase = rebased || wasGlobal != shownGlobal_;
  p.retimed = p.retimed || p.newTimeBase;
  // --compensate: the model's compensation of the whole trace so far (it
  // needs every task's history from its start), so the picture starts again.
  if (rep.compensated) {
    if (!rep.compensation.costRecords) {
      p.note += ", not compensated: no cost records";
    } else {
      p.retimed = true;
      p.note += ", compensated: xab's cost taken out";
    }
  }
  if (rep.corrected) {
    p.retimed = true;
    p.note += replayReport.tasksMatched ? ", replay on the record's dates" : ", not a replay of the record";
  }
  return p;
}

}  // namespace xab::view
