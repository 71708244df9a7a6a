// contention.h -- what tasks sharing a core cost each other (intrusion
// compensation, compensate.cpp; docs/compensation.md "Shared cores").
//
// libab's costs are CPU the task spends on xab.  A task alone on its CPU
// loses exactly that; tasks that share a CPU also lose the CPU their
// core-mates spend on xab while they could have run: a core runs one
// task at a time and is never idle while one is runnable, so each
// core-mate's cost, spent while the task was runnable, ends the task's
// next call that much later (as a fluid share: with R runnable tasks on P
// CPUs, (R - P) / (P (R - 1)) of it).  Which tasks share CPUs comes from
// the `cost` record's `cpus=` mask (same host, same mask, fewer CPUs than
// tasks); a task is runnable from its first record to its last, except
// inside a call that waited: a receive until its message came (its send
// plus the least transfer), another call with a begin record when it
// lasted longer than the least receive plus the slack.
#pragma once

#include <xab/model/trace.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace xab::detail {

struct Contention {
  // Per task: the core-mates' cost charged between its event i-1 and i
  // (empty: a task that shares its CPUs with none of the trace's tasks).
  std::vector<std::vector<TimeNs>> charge;
  // Per task: a cap on its own flush durations and clock round trips, the
  // median of its own: made while a core-mate could run (shared), a longer
  // one was pre-empted by the core-mate's work, which is not xab's.
  std::vector<TimeNs> flushCap, clockCap;
  std::vector<std::vector<std::uint8_t>> shared;  // per task, per event: 1 when a core-mate was runnable
  std::vector<std::uint32_t> mates;  // per task: how many tasks share its CPUs (0: none)
  // Per group of tasks sharing CPUs: their costs along time as they delay
  // a message on its way to one of them (pvmd forwarding it counts as one
  // more runnable task); per task, its group (-1: none).
  struct Along {
    std::vector<TimeNs> times;
    std::vector<double> sums;  // cumulative
    double upTo(TimeNs t) const;
  };
  std::vector<Along> groupTransit;
  std::vector<int> groupOf;

  // What the tasks sharing t's CPUs spent on xab in (from, to] that
  // delayed a message on its way to t: the part of a waited receive's
  // transfer that is xab's doing.  Its sender's sends to abmon are in it,
  // and t's own, made before it began to wait: pvmd waited for the CPU
  // behind them as behind anyone's.
  TimeNs inTransitTo(TaskIndex t, TimeNs from, TimeNs to) const;

  TimeNs at(TaskIndex t, std::uint32_t i) const { return charge[t].empty() ? 0 : charge[t][i]; }
  // The cap on task t's own send or exchange at event i (0: none).
  TimeNs capAt(TaskIndex t, std::uint32_t i, Kind kind) const {
    if (shared[t].empty() || !shared[t][i]) return 0;
    return kind == Kind::FLUSH ? flushCap[t] : kind == Kind::CLOCK ? clockCap[t] : 0;
  }
};

// A record of one of the program's calls, which costs its task what its
// wrapper took (the others tell their cost in their own slots -- flush,
// clock, cost -- continue the record before, or are abmon's).
inline bool isCallRecord(Kind k) {
  switch (k) {
    case Kind::FLUSH:
    case Kind::CLOCK:
    case Kind::COST:
    case Kind::TIDS:
    case Kind::INFO:
    case Kind::OUTPUT:
    case Kind::TASK_EXIT:
    case Kind::ABMON_LOST:
    case Kind::ABMON_BAD: return false;
    default: return true;
  }
}

// What measureContention needs of the compensation's own measures.
struct ContentionInput {
  const std::vector<std::vector<TimeNs>>* charge = nullptr;  // per task, per record: what it costs (compensate.cpp)
  const std::vector<std::vector<std::optional<EventRef>>>* sendOf = nullptr;  // per receive end: its send
  TimeNs transfer = 0;  // the least transfer: a receive's message is there this long after its send
  TimeNs waited = 0;    // a call with a begin record longer than this waited (the task not runnable)
};

Contention measureContention(const Trace& trace, const ContentionInput& in);

}  // namespace xab::detail
