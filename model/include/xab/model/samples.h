// xab/model/samples.h -- what the clock-driven samples say (sample and
// host.load records, docs/trace-format.md "Samples"): per task, the CPU
// time it used and the time it was ready to run but waited for a CPU,
// over any interval; per host, its load over time.
#pragma once

#include <xab/model/trace.h>

#include <cstdint>
#include <string>
#include <vector>

namespace xab {

// One task's samples, in time order: its counts since it started.
struct TaskSamples {
  std::vector<TimeNs> at;
  std::vector<TimeNs> cpu;       // CPU time used
  std::vector<TimeNs> runnable;  // time runnable, waiting for a CPU
  std::vector<char> state;       // R S D T Z ...
  bool empty() const { return at.empty(); }
};

struct CpuTime {
  TimeNs cpu = 0;
  TimeNs runnable = 0;
};

struct LoadPoint {
  TimeNs at = 0;
  double load = 0;        // 1-minute load average
  int cpus = 0;
  int busyPermille = -1;  // CPUs' busy share since the previous point; -1 unknown
};

struct HostLoad {
  std::string host;
  std::vector<LoadPoint> points;  // in time order
  // The last point at or before t (the load there), or null before the first.
  const LoadPoint* at(TimeNs t) const;
};

struct SampleReport {
  std::vector<TaskSamples> tasks;  // by TaskIndex; empty for a task never sampled
  std::vector<HostLoad> hosts;     // in the order they are first sampled
  bool any() const { return !hosts.empty() || anyTask; }
  bool anyTask = false;
  // What task t used in [from, to]: its counts there, each read between
  // the samples around the time (a straight line between two samples;
  // before its first sample, from 0 at the task's first record; after its
  // last, the last).  Zero for a task never sampled.
  CpuTime between(const Trace& trace, TaskIndex t, TimeNs from, TimeNs to) const;
  // Over the task's whole life in the trace (first to last record).
  CpuTime whole(const Trace& trace, TaskIndex t) const;
  // A host's points, or null.
  const HostLoad* host(std::string_view name) const;
};

SampleReport samples(const Trace& trace);

}  // namespace xab
