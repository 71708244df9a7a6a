// xab/model/clock_quality.h -- whether global time's fit is poor.
//
// Each sample of a task's clock fit is good to half its exchange's transit
// (clock.h).  A task's fit is poor when a sample it kept lies off its line
// farther than that bound, by more than the fastest exchange's whole
// transit (both ways) and more than kPoorFitFloor: the clock jumped or ran
// unevenly, and a line cannot say where its times belong.  A sample that
// waited is far off the line yet within its bound: no sign of a poor fit.  The trace's fit is poor when some task's is, when a task with
// clock records got no fit, or when receives are still before their sends
// after the causality correction.  abstat shows its clock table by default
// only then (docs/global-time.md, "When the fit is poor").
#pragma once

#include <xab/model/clock.h>

#include <string>

namespace xab {

inline constexpr TimeNs kPoorFitFloor = 50'000;  // 50 us: a loaded host's scheduling noise

struct ClockQuality {
  bool poor = false;
  std::size_t poorTasks = 0;   // tasks whose fit is poor, or that got none
  std::string why;             // the first reason, for people
};

bool fitIsPoor(const ClockFit& fit);
ClockQuality assessClocks(const Trace& trace, const ClockReport& report);

}  // namespace xab
