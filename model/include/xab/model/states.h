// xab/model/states.h -- what a task was doing, as intervals of its own time.
//
// The trace holds instants (one record per call; a blocking call has a
// begin and an end record).  Each gap between two consecutive records of a
// task is given one state:
//   begin of a blocking call .. its end      Receiving / Barrier / Collective /
//                                            Spawning / Blocked (addhosts ...)
//   initsend/mkbuf/pack .. next pack         Packing
//   initsend/mkbuf/pack .. send/mcast/bcast  Sending
//   receive (got a message)/unpack .. unpack Unpacking
//   after exit / task.exit                   Exited
//   anything else                            Computing
// Before its first record a task does not exist yet (NotStarted).
#pragma once

#include <xab/model/trace.h>

#include <vector>

namespace xab {

enum class TaskState : std::uint8_t {
  NotStarted, Computing, Packing, Unpacking, Sending, Receiving,
  Barrier, Collective, Spawning, Blocked, Exited,
};
std::string_view stateName(TaskState s);  // "computing", "receiving", ...

struct StateInterval {
  TimeNs begin = 0;
  TimeNs end = 0;          // kOpenEnd: still in this state when the trace ends
  TaskState state = TaskState::NotStarted;
  Kind call = Kind::OTHER; // the blocking call, for Receiving..Blocked
  // Receiving: a = source asked (kAnyTid), b = tag asked (kAnyTag).
  // Barrier / Collective: a = group StrId, b = count (barrier) or root.
  std::int32_t a = 0, b = 0;
  std::uint32_t first = 0; // index of the record that opens the interval
};

// The interval that holds time t for task `task`: O(log n) (binary search
// over the task's records).
StateInterval stateAt(const Trace& trace, TaskIndex task, TimeNs t);

// The state the task is in after its last record (what it is doing now, in
// a live trace).
StateInterval currentState(const Trace& trace, TaskIndex task);

// All intervals of a task that overlap [from, to), in time order.
std::vector<StateInterval> stateIntervals(const Trace& trace, TaskIndex task,
                                          TimeNs from = INT64_MIN, TimeNs to = INT64_MAX);

// The interval opened by record i of the task (i < events(task).size()).
StateInterval intervalAfter(const Trace& trace, TaskIndex task, std::uint32_t i);
// The same through a cursor on the task's events: a walk over a task's
// records decodes each block once (SnapshotBuilder's spans).
StateInterval intervalAfter(const Trace& trace, TaskIndex task, std::uint32_t i, EventStore::Cursor& cursor);

// Whether the interval record e opens depends on no record before it: e is
// no note (libab's clock, cost and flush records, abmon's; a note's
// interval is the call's before it) and was not made inside a blocking
// call (whose state it has).  From such a record on, a task's intervals
// are the same whatever came before it (a cut's window and the run).
bool opensOwnInterval(const Event& e);

// The begin record of the innermost blocking call that event i, made
// inside a call (Event::insideCall), was made in.
std::uint32_t enclosingCall(const Trace& trace, TaskIndex task, std::uint32_t i);

}  // namespace xab
