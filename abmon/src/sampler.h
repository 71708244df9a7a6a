// sampler.h -- clock-driven samples of a host's tasks and of the host
// itself (docs/abmon.md "Samples", docs/trace-format.md "Samples").
//
// abmon and each relay sample their own host every --sample-ms: for each
// task, the CPU time it has used (utime + stime, /proc/PID/stat), the time
// it was ready to run but waited for a CPU (the second field of
// /proc/PID/schedstat) and its state; for the host, its load average, how
// busy its CPUs were since the last sample (/proc/stat) and how many it
// has.  The program's tasks do nothing for it: the sampler reads /proc.
// No PVM here: the Monitor hands in the tasks (tid and pid, from pvmd).
#ifndef XAB_ABMON_SAMPLER_H
#define XAB_ABMON_SAMPLER_H

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

namespace xab::abmon {

// One task as /proc shows it.
struct TaskSample {
  std::int64_t cpuNs = 0;       // utime + stime (in clock ticks, as ns)
  std::int64_t runnableNs = 0;  // time runnable, waiting for a CPU
  char state = '?';             // R S D T Z ... (proc(5))
};
// Reads /proc/PID/stat and /proc/PID/schedstat (the root is for tests);
// nothing when the process has gone.
std::optional<TaskSample> readTaskSample(pid_t pid, const std::string& proc = "/proc");
// The same from the two files' text.
std::optional<TaskSample> parseTaskSample(std::string_view stat, std::string_view schedstat);

// The host: CPUs online, the 1-minute load average, the CPU time counters
// of /proc/stat's first line (busy: everything but idle and iowait).
struct HostSample {
  int cpus = 0;
  std::int64_t loadMilli = 0;  // load average x 1000
  std::uint64_t busyTicks = 0, totalTicks = 0;
};
std::optional<HostSample> readHostSample(const std::string& proc = "/proc");

struct SampledTask {
  std::int32_t tid;
  pid_t pid;
};

class Sampler {
 public:
  // samplerTid: abmon's or the relay's (the records' tid column); host:
  // its host's name.
  Sampler(std::int32_t samplerTid, std::string host, std::string proc = "/proc")
      : samplerTid_(samplerTid), host_(std::move(host)), proc_(std::move(proc)) {}
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  // One round, stamped nowNs: a host.load record, then a sample record per
  // task still running; nothing when there is no task.  Returns the
  // records written.
  int sample(std::string& out, std::int64_t nowNs, std::span<const SampledTask> tasks);

 private:
  std::int32_t samplerTid_;
  std::string host_;
  std::string proc_;
  std::optional<HostSample> last_;  // busy_permille is since the last round
  // Each task's stat and schedstat, kept open from round to round and read
  // again from their start: no path walk, open and close per task and
  // round (most of a round's cost). A file of a process that has gone
  // reads nothing; a pid no longer sampled is closed after the round.
  struct OpenTask {
    int stat = -1, sched = -1;
    std::uint64_t round = 0;
  };
  std::unordered_map<pid_t, OpenTask> open_;
  std::uint64_t round_ = 0;
  std::optional<TaskSample> readOpen(pid_t pid);
  static void close(OpenTask& t);
};

}  // namespace xab::abmon

#endif
