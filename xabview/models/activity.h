// activity.h -- what a task is doing, in words (paper Figure 1).
//
// "blocked in recv(src any, tag 16040) for 12.4 s", "packing 8 floats",
// "in barrier `workers` (3 of 4 arrived)", "exited": a phrase for the last
// record of the task that the current replay position shows, and a class
// for its colour.
#pragma once

#include "snapshot.h"
#include "view_state.h"

#include <QColor>
#include <QString>

namespace xab::view {

enum class Activity : std::uint8_t { NotStarted, Computing, Communicating, Blocked, Barrier, Exited };
inline constexpr int kActivityCount = 6;

struct TaskActivity {
  Activity kind = Activity::NotStarted;
  QString text;
  TimeNs since = 0;  // when the task's last shown record happened
};

// `shown`: records of the task at the replay position; `now`: the time "for"
// counts to; `position`: the replay position (a barrier's arrivals are the
// barrier.begin records shown by then; SIZE_MAX: those up to `now`).
TaskActivity describeTask(const ViewSnapshot& s, TaskIndex task, std::uint32_t shown, TimeNs now,
                          std::size_t position = SIZE_MAX);
// The same at the shared state's position.
TaskActivity describeTask(const ViewState& state, TaskIndex task);

// The class of a state (the diagram's and the utilization's colours).
Activity activityOf(TaskState state);
QString activityName(Activity a);
QColor activityColor(Activity a);
QColor stateColor(TaskState s);
// A call that failed (rc < 0) and a pvm_trecv that timed out: their marks
// in the diagram (failure_marks.h) and their rows in the event log.
inline const QColor kFailedCall{0xc6, 0x28, 0x28};
inline const QColor kTimedOutCall{0xef, 0x6c, 0x00};

// "12.4 s", "3.1 ms", "250 µs"
QString formatDuration(TimeNs d);
// The record's fields as the trace file writes them ("src=any tag=16040").
QString eventArgs(const Trace& trace, const Event& e);
// The same appended to `out`, each field after a space (no QString: Find reads millions).
void appendEventArgs(std::string& out, const Trace& trace, const Event& e);

}  // namespace xab::view
