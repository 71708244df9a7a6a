// contention.cpp -- what tasks sharing a core cost each other (contention.h).
#include "contention.h"

#include <xab/model/causal_walk.h>

#include <algorithm>
#include <bit>
#include <map>
#include <utility>

namespace xab::detail {

namespace {

constexpr int kCostCpus = 2;     // the `cost` record's cpus= slot (events.h)
constexpr int kFlushDuration = 0;
constexpr int kClockRtt = 4;

TimeNs median(std::vector<TimeNs> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// A task's waits inside its calls, and per event the time from which the
// task could run again before it (its previous event's, or later when it
// waited between them).
struct Waits {
  std::vector<std::pair<TimeNs, TimeNs>> spans;  // not runnable from, to
  std::vector<TimeNs> runnableFrom;              // per event
};

Waits waitsOf(const Trace& trace, TaskIndex t, const ContentionInput& in) {
  const auto& ev = trace.events(t);
  Waits w;
  w.runnableFrom.resize(ev.size());
  for (std::uint32_t i = 0; i < ev.size(); ++i) w.runnableFrom[i] = i > 0 ? ev[i - 1].time : ev[i].time;
  for (std::uint32_t i = 1; i < ev.size(); ++i) {
    if (ev[i].isBegin()) continue;
    auto begin = beginOf(ev, i);
    if (!begin) continue;
    const Event& b = ev[*begin];
    const auto& send = (*in.sendOf)[t][i];
    TimeNs until = send ? std::min(ev[i].time, trace.event(*send).time + in.transfer)  // its message came
                        : ev[i].time - b.time > in.waited ? ev[i].time : b.time;     // it waited, or not
    if (until <= b.time) continue;
    w.spans.emplace_back(b.time, until);
    for (std::uint32_t j = *begin + 1; j <= i; ++j) w.runnableFrom[j] = std::max(w.runnableFrom[j], std::min(until, ev[j].time));
  }
  return w;
}

// One moment of a group's sweep: a task becomes runnable (+1) or not (-1),
// or spends `cost` of CPU on xab.
struct Moment {
  TimeNs time;
  TaskIndex task;
  int runnable;  // +1, -1, or 0 for one of its records
  TimeNs cost;
  std::uint32_t index = 0;  // of the record
};

// Cumulative charges along time: the sum of the shares of every cost up to
// a time.
struct Cumulative : Contention::Along {
  void add(TimeNs t, double v) {
    times.push_back(t);
    sums.push_back((sums.empty() ? 0.0 : sums.back()) + v);
  }
};

// The share of a cost spent while r tasks (its spender among them) could
// run on `cpus` CPUs that delays each of the others: as a fluid share,
// (r - cpus) / (cpus (r - 1)), nothing while there is a CPU each.
double shareOf(int r, int cpus) {
  return r <= cpus ? 0.0 : static_cast<double>(r - cpus) / (static_cast<double>(cpus) * (r - 1));
}

class Group {
 public:
  Group(const Trace& trace, std::vector<TaskIndex> tasks, int cpus) : trace_(trace), tasks_(std::move(tasks)), cpus_(cpus) {}

  // Fills out.charge for the group's tasks.
  void measure(const ContentionInput& in, Contention& out) {
    std::vector<Moment> moments;
    std::map<TaskIndex, Waits> waits;
    for (TaskIndex t : tasks_) waits[t] = collect(t, in, out, moments);
    std::stable_sort(moments.begin(), moments.end(), [](const Moment& a, const Moment& b) { return a.time < b.time; });
    Cumulative all, transitAll;
    std::map<TaskIndex, Cumulative> own;
    std::map<TaskIndex, bool> runnable;
    int count = 0;
    for (const Moment& m : moments) {
      if (m.runnable != 0) {
        bool now = m.runnable > 0;
        if (runnable[m.task] != now) count += now ? 1 : -1;
        runnable[m.task] = now;
        continue;
      }
      // The task spending it runs then, runnable or not as its calls go
      // (a poke answered inside a call that waits).
      int r = count + (runnable[m.task] ? 0 : 1);
      if (r - 1 >= cpus_) out.shared[m.task][m.index] = 1;  // others could have had every CPU
      if (m.cost == 0) continue;
      // A message on its way to a task of the group: pvmd, forwarding it,
      // is one more runnable task.
      transitAll.add(m.time, static_cast<double>(m.cost) * shareOf(r + 1, cpus_));
      if (r <= cpus_) continue;
      double share = static_cast<double>(m.cost) * shareOf(r, cpus_);
      all.add(m.time, share);
      own[m.task].add(m.time, share);
    }
    int group = static_cast<int>(out.groupTransit.size());
    out.groupTransit.push_back(std::move(transitAll));
    for (TaskIndex t : tasks_) out.groupOf[t] = group;
    for (TaskIndex t : tasks_) {
      const auto& ev = trace_.events(t);
      auto& charge = out.charge[t];
      charge.assign(ev.size(), 0);
      const Cumulative& mine = own[t];
      for (std::uint32_t i = 1; i < ev.size(); ++i) {
        TimeNs from = waits[t].runnableFrom[i], to = ev[i].time;
        if (from >= to) continue;
        double c = all.upTo(to) - all.upTo(from) - (mine.upTo(to) - mine.upTo(from));
        charge[i] = std::max<TimeNs>(0, static_cast<TimeNs>(c));
      }
      out.mates[t] = static_cast<std::uint32_t>(tasks_.size() - 1);
    }
  }

 private:
  // Task t's moments (runnable or not, its costs on the CPU) and its waits.
  Waits collect(TaskIndex t, const ContentionInput& in, Contention& out, std::vector<Moment>& moments) {
    const auto& ev = trace_.events(t);
    Waits waits = waitsOf(trace_, t, in);
    std::vector<TimeNs> flushes, clocks;
    ev.forEach([&](const Event& e) {
      if (e.kind == Kind::FLUSH && e.has(kFlushDuration)) flushes.push_back(std::max<TimeNs>(0, e.a[kFlushDuration]));
      if (e.kind == Kind::CLOCK && e.has(kClockRtt)) clocks.push_back(std::max<TimeNs>(0, e.a[kClockRtt]));
    });
    out.flushCap[t] = median(std::move(flushes));
    out.clockCap[t] = median(std::move(clocks));
    if (ev.empty()) return waits;
    moments.push_back({ev[0].time, t, +1, 0, 0});
    for (const auto& [from, to] : waits.spans) {
      moments.push_back({from, t, -1, 0, 0});
      moments.push_back({to, t, +1, 0, 0});
    }
    out.shared[t].assign(ev.size(), 0);
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      TimeNs cost = cpuCost(ev[i], (*in.charge)[t][i], out.flushCap[t]);
      if (cost > 0 || ev[i].kind == Kind::CLOCK) moments.push_back({ev[i].time, t, 0, cost, i});
    }
    moments.push_back({ev[ev.size() - 1].time, t, -1, 0, 0});
    return waits;
  }

  // The CPU one of its records made a task spend on xab: a send to abmon
  // (at most its median: longer, it was pre-empted), or the record itself
  // (`charge`: what the compensation charges it).  A clock exchange keeps
  // its task waiting for abmon, not the CPU busy.
  static TimeNs cpuCost(const Event& e, TimeNs charge, TimeNs flushCap) {
    if (e.kind == Kind::FLUSH) return std::min(std::max<TimeNs>(0, e.a[kFlushDuration]), flushCap);
    return isCallRecord(e.kind) ? charge : 0;
  }

  const Trace& trace_;
  std::vector<TaskIndex> tasks_;
  int cpus_;
};

}  // namespace

double Contention::Along::upTo(TimeNs t) const {  // everything at or before t
  auto it = std::upper_bound(times.begin(), times.end(), t);
  return it == times.begin() ? 0.0 : sums[static_cast<std::size_t>(it - times.begin()) - 1];
}

TimeNs Contention::inTransitTo(TaskIndex t, TimeNs from, TimeNs to) const {
  if (t >= groupOf.size() || groupOf[t] < 0 || from >= to) return 0;
  const Along& all = groupTransit[static_cast<std::size_t>(groupOf[t])];
  return std::max<TimeNs>(0, static_cast<TimeNs>(all.upTo(to) - all.upTo(from)));
}

Contention measureContention(const Trace& trace, const ContentionInput& in) {
  Contention out;
  std::size_t n = trace.taskCount();
  out.groupOf.assign(n, -1);
  out.charge.resize(n);
  out.shared.resize(n);
  out.flushCap.assign(n, 0);
  out.clockCap.assign(n, 0);
  out.mates.assign(n, 0);
  std::map<std::pair<StrId, std::uint32_t>, std::vector<TaskIndex>> byCpus;  // (host, mask) -> tasks
  for (TaskIndex t = 0; t < n; ++t) {
    std::uint32_t mask = 0;
    trace.events(t).forEach([&](const Event& e) {
      if (e.kind == Kind::COST && mask == 0 && e.has(kCostCpus)) mask = static_cast<std::uint32_t>(e.a[kCostCpus]);
    });
    if (mask != 0) byCpus[{trace.task(t).host, mask}].push_back(t);
  }
  for (auto& [key, tasks] : byCpus) {
    int cpus = std::popcount(key.second);
    if (static_cast<int>(tasks.size()) <= cpus) continue;  // a CPU each: nobody waits for a core-mate
    Group(trace, std::move(tasks), cpus).measure(in, out);
  }
  return out;
}

}  // namespace xab::detail
