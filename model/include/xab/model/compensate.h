// xab/model/compensate.h -- intrusion compensation
// (Chassin de Kergommeaux, Maillet, Vincent, "Monitoring parallel programs for performance tuning in cluster environments",
// §5; docs/compensation.md): each task's times as they would have been
// without xab, from libab's `cost` and `flush` records.
//
// Per task, a compensated clock: the raw time minus the cost xab added
// since the task's last base date (one record's cost after each record,
// the real duration of each send to abmon, each clock exchange's round
// trip; on a core shared with other tasks, also what they spent on xab
// while it could have run, docs/compensation.md "Shared cores").  At every receive that is matched to its send the base date is
// reset as in their §5.3: the receive ends at the later of the compensated
// start of the receive plus the least receive duration in the trace (the
// message was there already) and the compensated send plus the least
// transfer time in the trace (the message came late).  Barriers and the
// other blocking collectives follow the same rule with all their members:
// a barrier ends no earlier than the latest compensated arrival of its
// members plus its own release (its raw end less the raw latest arrival);
// a reduce's or gather's root waits for every member, a scatter's members
// for the root.  An mcast's or bcast's receives each re-base on the one
// send.  Reception order is never changed (§5.4): a task's compensated
// times keep its record order.
#pragma once

#include <xab/model/trace.h>

#include <memory>
#include <string>
#include <vector>

namespace xab {

struct TaskIntrusion {
  TimeNs recordCost = 0;      // ns per record, from the task's `cost` record (0: none)
  std::uint64_t records = 0;  // records of calls charged
  std::uint64_t measured = 0; // calls libab timed in place (flush own_calls): each call is charged their mean, not recordCost
  TimeNs recordTime = 0;      // what the records were charged (the measured mean a call, or recordCost a record)
  std::uint64_t sends = 0;    // `flush` records
  TimeNs sendTime = 0;        // their summed durations (on a shared core, each at most the median)
  TimeNs clockTime = 0;       // summed round trips of the clock exchanges
  std::uint32_t mates = 0;    // tasks sharing its CPUs (cost records' cpus=), more than the CPUs; 0: none
  TimeNs contention = 0;      // their costs while it could have run (docs/compensation.md, "Shared cores")
  TimeNs charged = 0;         // all of it: recordTime + sendTime + clockTime + contention
  TimeNs rawRun = 0;          // first to last record, as recorded
  TimeNs compensatedRun = 0;  // ... after compensation
  // Receives that waited for their message as recorded but find it there
  // once compensated: xab changed when the task blocked (an indirect
  // cost: the blocking and waking, the scheduling it brings, are not
  // measured and not taken out; docs/compensation.md, "Limits").
  std::uint64_t xabWaits = 0;
  // Time added by xab as a share of the task's recorded run.
  double share() const { return rawRun > 0 ? static_cast<double>(rawRun - compensatedRun) / rawRun : 0.0; }
};

struct CompensationReport {
  bool costRecords = false;      // the trace has cost or flush records at all
  std::vector<TaskIntrusion> tasks;  // per task index
  TimeNs transfer = 0;           // least (receive end - send) in the trace, the model's transfer time
  TimeNs receiveDuration = 0;    // least (receive end - receive begin) of a blocking receive
  std::uint64_t receivesRebased = 0;  // receives whose base date came from their send
  std::uint64_t collectivesRebased = 0;  // barrier, reduce, gather, scatter ends re-based on their members
  std::uint64_t spawnsRebased = 0;       // spawned tasks whose dates start from their parent's spawn
  std::uint64_t forced = 0;      // receives compensated without their send (a cycle in a corrupt trace)
  std::string note;              // one line: what was done, or why not
};

// The trace with compensated times (a new trace), and what was done.  A
// trace without cost records is handed back as it is (report.note says so).
// Give it the trace on global time (toGlobalTime) when there is one.
std::shared_ptr<const Trace> compensate(std::shared_ptr<const Trace> trace, CompensationReport& report);

}  // namespace xab
