// live_time_base.h -- the time base of the reader's pictures (the reader
// thread's; trace_loader.h): the model's live time-base entry
// (prepareLive, xab/model/time_base.h) and what the status bar says of it.
//
// Global time while records flow: re-timing copies the whole trace and
// rebuilds the picture from scratch (seconds at millions of records, and a
// loaded machine's fits "move" tasks on abmon's own host by milliseconds to
// hundreds of ms: noise, every task there reads abmon's clock).  So live
// pictures keep the task clocks while records flow; once the input pauses
// or ends (`settled`) the picture is put on global time.  A trace whose
// clocks all agree with abmon's within the fits' error (one host, an idle
// machine) is on global time as recorded, and each picture extends the last.
#pragma once

#include <xab/model/time_base.h>
#include <xab/replay/record_set.h>

#include <string>

namespace xab::view {

class LiveTimeBase {
 public:
  struct Picture {
    TracePtr trace;
    std::string note;          // what the status bar says of the times
    bool retimed = false;      // a new trace, not an extension of the last picture's
    bool newTimeBase = false;  // times changed base: older analyses are stale
  };
  // The trace read so far on the time base asked for (rawTime, compensate:
  // the View menu's; record: --replay-of's, or null).  rebased: the time
  // base was just changed.
  Picture apply(TracePtr trace, bool rawTime, bool compensate, const replay::RecordSet* record, bool settled,
                bool rebased);
  // The last picture kept task clocks that global time would move: once
  // the input pauses it is owed a picture on global time.
  bool owesGlobal() const { return clocksMove_ && !shownGlobal_; }

 private:
  LiveClockFit fit_;
  bool shownGlobal_ = false;  // the last picture was re-timed
  bool clocksMove_ = false;   // the last fit said re-timing would move some task
};

}  // namespace xab::view
