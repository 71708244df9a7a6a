// xab/replay/correct.h -- post-mortem date correction of a replay
// (the Athapascan record/replay paper ("post-mortem correction ... by use of RECORD-REPLAY"), §4; docs/replay.md): the dates of a replay's full
// trace put back to estimates of the dates of the record run it replayed.
//
// A replay is slower than its record: it is traced in full, and each
// forced receive waits for the recorded message.  Its trace tells what
// happened; the record (XAB_RECORD=DIR) tells when, at a few points.  The
// correction walks the replay's events in causal order (every receive
// after its send) and gives each a date:
//  - correlation points (anchors): the start of a task's first
//    receive-like call or spawn (the record's header), and the end of each
//    recorded call (its entry's date; the begin of a call left pending).
//    The record run's own date replaces the estimate there, which resets
//    the error accumulated since the last anchor (§4.2);
//  - between anchors, durations are invariant (§4.1): an event keeps the
//    replay's distance from the one before it.  Compensate first (prepare()
//    does, xab/model/time_base.h) so that xab's own cost is not counted as
//    the program's;
//  - a receive's wait is not invariant (a forced receive waits for its
//    message): its end is estimated from its message's corrected send plus
//    the transfer time (§4.3, eq. 3) by compensation's rule for a receive
//    (receiveEnd, xab/model/causal_walk.h), except that one that found its
//    message there keeps its own duration;
//  - a collective's wait is not invariant either: a barrier, reduce,
//    gather or scatter that waits for members ends its own release after
//    the latest corrected arrival it waits for, as in compensation
//    (measureCollectives, syncEnd: xab/model/causal_walk.h);
//  - incoherences (§4.4): an anchor earlier than its message's corrected
//    send plus the least transfer, or than the task's previous corrected
//    event, is pushed to that bound and counted.  A task's order and every
//    receive's order are kept.
// Record dates are each host's clock: one host (or clocks in sync) is
// assumed for the record run.
#pragma once

#include <xab/replay/record_set.h>
#include <xab/model/trace.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace xab {

struct ReplayAnchor {
  EventRef event;          // in the replay trace
  std::string path;        // the task's spawn path
  std::uint32_t seq = 0;   // its receive-like call or spawn number (0: the task's start)
  TimeNs recorded = 0;     // the record run's date
  TimeNs replayed = 0;     // the replay's date (as given to the correction)
  TimeNs corrected = 0;    // the corrected date
  bool used = true;        // false: held out (options.holdOutEvery), only measured
  bool pushed = false;     // the record's date broke causality or task order: moved to the bound
};

struct ReplayCorrectionOptions {
  // > 0: every n-th anchor of each task (the n-th, 2n-th, ...) is not used
  // but measured: how well the invariance estimates the record's dates
  // where the correction had no anchor (a validation; abstat --replay-check).
  std::uint32_t holdOutEvery = 0;
};

struct ReplayCorrectionReport {
  std::size_t tasksMatched = 0;       // replay tasks named by a replay.task record found in the record
  std::size_t tasksUnmatched = 0;     // replay tasks with no path, or a path the record has not
  std::size_t recordedNotReplayed = 0;
  std::vector<ReplayAnchor> anchors;  // every correlation point found, in task order
  std::uint64_t anchorsUsed = 0, anchorsPushed = 0;
  std::uint64_t anchorsMismatched = 0;  // the replay's call there is not the recorded one (a departure)
  TimeNs largestPush = 0;
  TimeNs largestHeldOutError = 0;     // |corrected - recorded| over held-out anchors
  std::uint64_t receivesRebased = 0;  // receive ends dated from their message's send
  std::uint64_t collectivesRebased = 0;  // barrier, reduce, gather, scatter ends dated from their members' arrivals
  TimeNs transfer = 0;                // the least transfer (receive end - send) in the replay
  std::string note;                   // one line: what was done, or why not
};

// The replay trace with dates corrected to the record run's (a new trace).
// A trace with no replay.task record, or none whose path the record has,
// is handed back as it is (report.note says why).  Give it the trace on
// global time and, where it has cost records, compensated.
std::shared_ptr<const Trace> correctReplay(std::shared_ptr<const Trace> replay, const replay::RecordSet& record,
                                           ReplayCorrectionReport& report, const ReplayCorrectionOptions& options = {});

namespace replay {
// correctReplay as the time base's last pass (TimeBase::correct,
// xab/model/time_base.h): prepare() runs it after global time and
// compensation, and fills `report`.  `record` and `report` must outlive
// the prepare() call.
std::function<std::shared_ptr<const Trace>(std::shared_ptr<const Trace>)> correctionTo(
    const RecordSet& record, ReplayCorrectionReport& report, const ReplayCorrectionOptions& options = {});
}  // namespace replay

}  // namespace xab
