// analysis_pace.h -- when the snapshot thread starts the next whole-trace
// analysis while records flow (snapshot_thread.cpp).
//
// An analysis costs the whole trace: while records flow, the next starts
// once the last is done and kRest times its duration has passed again, so
// analyses take at most a third of the time.  An analysis that ended stale
// (a budget's cut moved the window on, or the time base changed, while it
// ran) showed nothing: no rest is owed for it, and the new window's
// analysis starts at once.  Without that, a window whose analysis takes
// more than a third of the time between two cuts never showed one: each
// ended after the next cut and was dropped.
#pragma once

#include <chrono>

namespace xab::view {

class AnalysisPace {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr double kRest = 2.0;

  // An analysis of `ms` ended at `now`; stale: its result was dropped.
  void finished(double ms, Clock::time_point now, bool stale) {
    if (stale) {
      owed_ = false;
      return;
    }
    lastMs_ = ms;
    lastDone_ = now;
    owed_ = true;
  }
  // The records analysed so far are gone (a cut, a new time base): the
  // rest owed for the last analysis is waived.
  void restart() { owed_ = false; }
  // Rested enough for the next to start while records flow.
  bool rested(Clock::time_point now) const {
    return !owed_ || now - lastDone_ >= std::chrono::duration<double, std::milli>(kRest * lastMs_);
  }

 private:
  double lastMs_ = 0;
  Clock::time_point lastDone_{};
  bool owed_ = false;
};

}  // namespace xab::view
