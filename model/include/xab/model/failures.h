// xab/model/failures.h -- calls that returned an error.
//
// Every record of a PVM call whose result is an error (rc < 0), grouped by
// task, call and error: how often, and the first.  pvm_parent's PvmNoParent
// (and PvmParentNotSet) is not listed: it is how a task learns that no task
// spawned it.  Records that are not calls (libab's clock, cost and flush
// records, a handler's message, output, marks, abmon's own) carry no
// status and are never listed.
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

struct FailureReport {
  std::vector<FailedCall> calls;          // by task, then by first occurrence
  std::uint64_t failed = 0;               // failed call records in all (sum of counts)
  std::vector<TimeoutUnpacks> timeouts;   // by task, then by time
};

FailureReport findFailedCalls(const Trace& trace);

// PVM's name of an error code with the code: "PvmNoBuf (-15)"; an unknown
// code: "error -99".  The names are traceformat's table (pvmErrorName).
std::string errorWords(std::int32_t rc);

// The sentences front ends show, one per entry:
// "(ring, 1): pvm_upkint failed 3 times with PvmNoBuf (-15), first at 0.512000 s"
std::string describe(const Trace& trace, const FailedCall& f);
// "(ring, 1) took a timeout for a message: pvm_trecv got none (rc=0) at
//  0.510000 s, then 3 unpacks failed with PvmNoBuf (-15)"
std::string describe(const Trace& trace, const TimeoutUnpacks& t);

}  // namespace xab
