// xab/model/failures.h -- calls that returned an error.
//
// Every record of a PVM call whose result is an error (rc < 0), grouped by
// task, call and error: how often, and the first.  pvm_parent's PvmNoParent
// (and PvmParentNotSet) is not listed: it is how a task learns that no task
// spawned it.  Records that are not calls (libab's clock, cost and flush
// records, a handler's message, output, marks, abmon's own) carry no
// status and are never listed.
//
// A pvm_trecv that timed out (rc = 0) is no error but no success either:
// the task waited its whole timeout for nothing.  They are listed apart,
// by task.  (pvm_nrecv finding nothing is how a task polls: not listed.)
//
// One pattern is named besides: a receive that got no message (pvm_trecv
// timed out, pvm_nrecv found none: rc = 0) followed by unpacks that failed
// before the task's next receive -- the program took a timeout for a
// message and unpacked a buffer it never got.
#pragma once

#include <xab/model/trace.h>

#include <string>
#include <vector>

namespace xab {

struct FailedCall {
  TaskIndex task = 0;
  Kind call = Kind::OTHER;
  std::int32_t rc = 0;       // the error code (PvmBadParam = -2, ...)
  std::uint64_t count = 0;   // records of this task, call and code
  EventRef first;            // the first of them
  TimeNs firstTime = 0;      // its time (the task's clock)
};

// A receive that got nothing, then unpacks that failed.
struct TimeoutUnpacks {
  TaskIndex task = 0;
  EventRef receive;          // the trecv/nrecv end record with rc = 0
  EventRef firstUnpack;      // the first unpack that failed after it
  std::uint32_t unpacks = 0; // failed unpacks before the next receive
  std::int32_t rc = 0;       // the first failed unpack's code
};

// A task's pvm_trecv calls that timed out.
struct TimedOutReceives {
  TaskIndex task = 0;
  std::uint64_t count = 0;   // trecv end records with rc = 0
  EventRef first;            // the first of them
  TimeNs firstTime = 0;      // its time (the task's clock)
  TimeNs waited = 0;         // from each one's begin to its end, summed
};

// What a call's end record says of it: a success, an error, or a timeout.
enum class CallOutcome : std::uint8_t { Ok, Failed, TimedOut };
CallOutcome outcomeOf(const Event& e);

struct FailureReport {
  std::vector<FailedCall> calls;          // by task, then by first occurrence
  std::uint64_t failed = 0;               // failed call records in all (sum of counts)
  std::vector<TimeoutUnpacks> timeouts;   // by task, then by time
  std::vector<TimedOutReceives> timedOut; // by task
  std::uint64_t timedOutCount = 0;        // timed-out trecv records in all
  // Per task, the indices (in order) of its records that failed or timed
  // out: what the viewer marks.  Empty when there are none at all.
  std::vector<std::vector<std::uint32_t>> marked;
  bool any() const { return failed > 0 || timedOutCount > 0; }
};

FailureReport findFailedCalls(const Trace& trace);

// PVM's name of an error code with the code: "PvmNoBuf (-15)"; an unknown
// code: "error -99".  The names are traceformat's table (pvmErrorName).
std::string errorWords(std::int32_t rc);

// The sentences front ends show, one per entry:
// "(ring, 1): pvm_upkint failed 3 times with PvmNoBuf (-15), first at 0.512000 s"
std::string describe(const Trace& trace, const FailedCall& f);
// "(ring, 1): pvm_trecv timed out 5 times, waiting 10.000000 s in all, first at 0.510000 s";
// once: "... timed out once, waiting 2.000000 s, at 0.510000 s"
std::string describe(const Trace& trace, const TimedOutReceives& t);
// "(ring, 1) took a timeout for a message: pvm_trecv got none (rc=0) at
//  0.510000 s, then 3 unpacks failed with PvmNoBuf (-15)"
std::string describe(const Trace& trace, const TimeoutUnpacks& t);

}  // namespace xab
