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
// elsewhere: one sentence per barrier that tasks wait at, naming each
// waiter once and what each member that has not arrived is doing.
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
  std::string explanation;              // one or more sentences, plain words
  // The task ended while blocked (killed, or gone without pvm_exit): the
  // wait never ended.  endedAt: its exit record's time.
  bool ended = false;
  TimeNs endedAt = 0;
  // Before this receive the task installed a matching function of its own
  // (pvm_recvf): what it accepts is the program's choice, not tag and source.
  bool ownMatcher = false;
};

struct HangReport {
  bool hung = false;                    // some task is blocked (or ended blocked)
  std::vector<BlockedTask> blocked;
  std::vector<std::vector<TaskIndex>> cycles;  // each: t0 waits for t1 ... waits for t0
  std::vector<std::string> summary;     // sentences for people, most important first
  // Tasks that ended without pvm_exit in a receive that a message sent to
  // them matches: the receive most likely completed and the task's last
  // records are missing (PVM's tracer loses them), so they are not counted
  // as blocked.  One sentence each.
  std::vector<std::string> recordsMissing;
  // The program abmon started that a fault signal ended (SIGSEGV, SIGBUS,
  // SIGABRT, SIGFPE, SIGILL: program.exit) inside a blocking call: it
  // crashed there, it was not blocked.  One sentence each.
  std::vector<std::string> crashed;
  // Tasks in a receive with a timeout (pvm_trecv) at the end of the trace:
  // waiting at most that long, not blocked.  One sentence each.
  std::vector<std::string> boundedWaits;
  // The counts every front end shows: tasks blocked at the end of the trace,
  // and tasks that ended while blocked (not counted among the blocked).
  // blocked.size() == stillBlocked + endedBlocked.
  std::size_t stillBlocked = 0;
  std::size_t endedBlocked = 0;
  std::string headline;                 // "10 tasks blocked, 1 ended while blocked"; "" when not hung
};

struct HangOptions {
  // Tasks that exited don't count as blocked; tasks without records for
  // this long before the trace's last record still do.  (Reserved.)
  bool includeExited = false;
};

HangReport diagnoseHang(const Trace& trace, const MessageTable& messages,
                        const BarrierAnalysis& barriers, HangOptions options = {});

}  // namespace xab
