// xab/model/hang.h -- why a program stopped making progress.
//
// Run it on a finished trace, or on a snapshot of a live one that made no
// progress for a while: every task whose last record is the begin of a
// blocking call (and that has not exited) is blocked.  So is a task that
// ended while blocked: its last call before its exit record (`task.exit`:
// killed by Ctrl-C, `timeout`, the console's kill, a crash) is the begin of
// a blocking call -- a user who kills a hung program keeps the diagnosis.
// Not one the program ended itself (a recorded pvm_kill of it by another
// task): workers killed by their master while waiting for work are fine.  For each: what it
// waits for and since when; messages sent to it and never received; the
// mismatch in plain words (Beguelin, Xab, §3.5); cycles of tasks each waiting for
// the next (deadlock); barriers waiting for tasks that exited or are blocked
// elsewhere: one per barrier that tasks wait at, with each waiter once
// and each member that has not arrived.  The report holds facts; the
// sentences for people (the same in abstat and xabview) are hang_text.h's.
#pragma once

#include <xab/model/barriers.h>
#include <xab/model/messages.h>
#include <xab/model/states.h>

#include <string>
#include <vector>

namespace xab {

struct PendingMessage {
  std::uint32_t message = 0;  // index into MessageTable::messages
  TaskIndex sender = 0;
  std::int32_t tag = 0;
  std::int32_t bytes = 0;
  bool matches = false;       // would satisfy the blocked receive (src and tag)
};

struct BlockedTask {
  TaskIndex task = 0;
  StateInterval state;                  // Receiving, Barrier, Collective, Spawning, Blocked
  std::vector<PendingMessage> pending;  // sent to it, never received
  // Barrier/collective: members that arrived and those it still waits for.
  std::vector<TaskIndex> waitingWith;
  std::vector<TaskIndex> missing;
  // Barrier: the use it waits at, when the barrier analysis has it open
  // (barrierKnown): how many arrived of its count; and how many other
  // members wait at another use of the same group.
  bool barrierKnown = false;
  std::size_t arrived = 0;
  std::int32_t barrierCount = 0;
  std::size_t elsewhere = 0;
  // The task ended while blocked (killed, or gone without pvm_exit): the
  // wait never ended.  endedAt: its exit record's time.
  bool ended = false;
  TimeNs endedAt = 0;
  // Before this receive the task installed a matching function of its own
  // (pvm_recvf): what it accepts is the program's choice, not tag and source.
  bool ownMatcher = false;
  // A receive from any task: the tasks it spawned that ended without
  // pvm_exit, not in a blocking call and not by a recorded pvm_kill
  // (crashed or killed from outside while working).
  // If one of them was to send what it waits for, that will never come.
  std::vector<TaskIndex> goneChildren;
};

// What a task is doing at the end of the trace: the words about a task
// that another waits for are made from it.
struct TaskCondition {
  StateInterval now;     // its state (for one that ended blocked: that wait)
  bool exited = false;   // it has an exit record
  bool ended = false;    // it ended while blocked
  bool blocked = false;  // counted as blocked (ended ones included)
};

// One barrier use that tasks wait at: its waiters, and the members that
// have not arrived (those the first blocked waiter misses).
struct BarrierWait {
  StrId group = -1;
  std::int32_t count = 0;
  std::size_t arrived = 0;
  std::vector<TaskIndex> waiters;
  std::vector<TaskIndex> missing;
};

// A task PVM's tracer recorded that ended without pvm_exit in a receive
// (call) that a message sent to it matches (tag, from sender): the receive
// most likely completed and its last records are missing.
struct RecordsMissing {
  TaskIndex task = 0;
  Kind call = Kind::RECV;
  std::int32_t tag = 0;
  TaskIndex sender = 0;
};

// The program abmon started, ended by a fault signal inside a blocking call.
struct CrashedTask {
  TaskIndex task = 0;
  int signal = 0;
  Kind call = Kind::RECV;
  TimeNs at = 0;  // its exit
};

// A task in a receive with a timeout (pvm_trecv) at the end of the trace.
struct BoundedWait {
  TaskIndex task = 0;
  bool ended = false;          // it ended in that receive
  std::int32_t timeoutUs = 0;
  TimeNs since = 0;            // the receive's begin
};

// Facts only: the sentences for people are hang_text.h's.
struct HangReport {
  bool hung = false;                    // some task is blocked (or ended blocked)
  std::vector<BlockedTask> blocked;
  std::vector<std::vector<TaskIndex>> cycles;  // each: t0 waits for t1 ... waits for t0
  std::vector<BarrierWait> barrierWaits;       // in the order of their first blocked waiter
  std::vector<TaskCondition> tasks;            // per task
  std::size_t liveTasks = 0;                   // tasks that have not exited
  // Tasks that ended without pvm_exit in a receive that a message sent to
  // them matches (PVM's tracer loses a task's last records): not counted
  // as blocked.
  std::vector<RecordsMissing> recordsMissing;
  // The program abmon started that a fault signal ended (SIGSEGV, SIGBUS,
  // SIGABRT, SIGFPE, SIGILL: program.exit) inside a blocking call: it
  // crashed there, it was not blocked.
  std::vector<CrashedTask> crashed;
  // Tasks in a receive with a timeout (pvm_trecv) at the end of the trace:
  // waiting at most that long, not blocked.
  std::vector<BoundedWait> boundedWaits;
  // The counts every front end shows: tasks blocked at the end of the trace,
  // and tasks that ended while blocked (not counted among the blocked).
  // blocked.size() == stillBlocked + endedBlocked.
  std::size_t stillBlocked = 0;
  std::size_t endedBlocked = 0;
};

struct HangOptions {
  // Tasks that exited don't count as blocked; tasks without records for
  // this long before the trace's last record still do.  (Reserved.)
  bool includeExited = false;
};

HangReport diagnoseHang(const Trace& trace, const MessageTable& messages,
                        const BarrierAnalysis& barriers, HangOptions options = {});

}  // namespace xab
