// xab/model/wait_states.h -- why a run is slow: its wait states on global
// time, the task whose work caused each, the root causes behind chains of
// waits, and the critical path (docs/why-slow.md).
//
// A wait state is an interval in which a task could do nothing but wait
// for another (Scalasca's patterns: Geimer, Wolf, Wylie et al., "The
// Scalasca performance toolset architecture"):
//   late sender   a blocking recv/trecv/precv, or a loop of probes, nrecvs
//                 or trecvs that found nothing, waiting for a message whose
//                 send came after the wait began;
//   wrong order   a late sender while a message the task takes later was
//                 already sent: the task waits for one message with another
//                 at hand;
//   barrier       a barrier waiting for the last member to arrive;
//   collective    a reduce's or gather's root waiting for the last member,
//                 a scatter's member waiting for the root;
//   spawn         a wait for a task that did not exist yet: the part of a
//                 late sender or a collective before the awaited task's
//                 first record, caused by its spawner;
//   join          a loop of gettid/getinst calls that fail until a task
//                 joins its group.
// Group broadcasts are messages (one send, a receive per member): a
// receive that waits for a late bcast is a late sender.
//
// Root causes (the delay analysis of Böhme, Wolf, Geimer et al.,
// "Identifying the root causes of wait states in large-scale parallel
// applications"): the waiting of a wait state is charged to what its
// cause did over the same interval.  Time the cause spent working is its
// own (it is a root cause); time it spent in a wait state of its own is
// passed on, through that wait, to whatever caused it, and so on up the
// chain; time before the cause existed goes to its spawner.  Every
// nanosecond of waiting is charged to exactly one root, so the roots'
// costs add up to the total waiting.  A task that kept others waiting only
// because it was kept waiting is a symptom, not a root cause.
//
// The critical path walks back from the run's end: along the last task's
// own work to the end of its latest wait, then to the cause of that wait
// at the record that released it, and so on to the run's start.
//
// One pass over the records plus a sort of each task's receives: linear in
// records up to the logarithms (docs/performance.md).
#pragma once

#include <xab/model/messages.h>
#include <xab/model/samples.h>
#include <xab/model/trace.h>

#include <string_view>
#include <vector>

namespace xab {

enum class WaitPattern : std::uint8_t { LateSender, WrongOrder, Barrier, Collective, Spawn, Join };
inline constexpr int kWaitPatternCount = 6;
std::string_view waitPatternName(WaitPattern p);  // "late sender", "wrong order", "barrier", ...
std::string_view waitPatternKey(WaitPattern p);   // "lateSender", "wrongOrder", ... (JSON)

struct WaitState {
  TaskIndex task = 0;             // who waited
  std::uint32_t at = 0;           // its record that ended the wait (the receive, the collective's end)
  TimeNs begin = 0, end = 0;      // the waiting, on the trace's time base
  WaitPattern pattern = WaitPattern::LateSender;
  Kind call = Kind::RECV;         // the call it waited in (recv, barrier, reduce, gettid ...)
  // The task that made it wait, and its record that ended the wait: the
  // send, the last arrival, the spawn, the join.  A spawn's wait: the
  // spawner and its spawn (the awaited task itself, at its first record,
  // when the waiter spawned it).
  TaskIndex cause = 0;
  EventRef causeAt;
  TaskIndex awaited = 0;          // the task whose record it waited for (a spawn's: the spawned task)
  StrId group = -1;               // barrier, collective, join: the group
  Tid other = kNoTid;             // wrong order: the sender of a message already there
  TimeNs wait() const { return end - begin; }
};

// One root cause: a task and the pattern of the waits its own work cost.
struct WaitCause {
  TaskIndex task = 0;
  WaitPattern pattern = WaitPattern::LateSender;
  TimeNs cost = 0;                // waiting traced back to this task's own work
  std::uint32_t instances = 0;    // wait states that took a part of it
  StrId group = -1;               // barrier, collective, join: the first wait's group
  // Who waited, and how long (for the words: "the master in recv").
  std::vector<std::pair<TaskIndex, TimeNs>> waiters;  // in task order
  double share = 0;               // cost / the total waiting (0..1)
};

struct TaskWaiting {
  TimeNs waited = 0;       // its own wait states
  TimeNs caused = 0;       // wait states it was the immediate cause of
  TimeNs rootCost = 0;     // waiting traced back to its own work
  TimeNs passedOn = 0;     // of `caused`, the part due to its own waiting (a symptom)
  TimeNs critical = 0;     // its time on the critical path
  TimeNs slack = 0;        // off the critical path: its waiting and its idle end
  // From the clock-driven samples (samples.h, addCpuWaits): the time it
  // was ready to run but waited for a CPU over its life, and that as a
  // share of its life; hostOverload < 0: never sampled.
  TimeNs cpuWait = 0;
  double hostOverload = -1;
  bool rootCause() const { return rootCost > 0; }
  // Its host was overloaded: it waited for a CPU a tenth of its life or more.
  bool hostOverloaded() const { return hostOverload >= 0.10; }
  bool symptom() const { return passedOn > 0; }
};

struct CriticalStep {
  TaskIndex task = 0;
  TimeNs from = 0, to = 0;  // an interval of the task's own work on the path
};

struct WhyReport {
  std::vector<WaitState> waits;       // by task, then time
  std::vector<WaitCause> causes;      // by cost, largest first
  std::vector<TaskWaiting> perTask;   // indexed by TaskIndex
  TimeNs totalWait = 0;
  // The critical path, from the run's start to its end.
  std::vector<CriticalStep> criticalPath;
  TimeNs criticalLength = 0;          // the run's end less its start
  TimeNs start = 0, end = 0;
};

// The wait states alone (detection, no attribution).
std::vector<WaitState> findWaitStates(const Trace& trace, const MessageTable& messages);

// Wait states, root causes and the critical path.
WhyReport analyseWaits(const Trace& trace, const MessageTable& messages);

// Each task's waiting for a CPU from the samples into w.perTask (cpuWait,
// hostOverload); analyse() does it after analyseWaits.
void addCpuWaits(WhyReport& w, const Trace& trace, const SampleReport& samples);

}  // namespace xab
