// Barrier instances, each task's wait, and the last task to arrive.
#include <xab/model/barriers.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace xab {
namespace {

using InstanceKey = std::tuple<StrId, std::int32_t, std::uint32_t>;  // group, count, use

struct Collector {
  Kind kind = Kind::BARRIER;
  std::map<InstanceKey, std::size_t> index;
  std::vector<BarrierInstance> instances;

  BarrierInstance& instance(StrId group, std::int32_t count, std::uint32_t use) {
    auto [it, added] = index.try_emplace({group, count, use}, instances.size());
    if (added) {
      BarrierInstance b;
      b.group = group;
      b.count = count;
      b.use = use;
      instances.push_back(b);
    }
    return instances[it->second];
  }

  void task(const Trace& trace, TaskIndex t) {
    std::map<std::pair<StrId, std::int32_t>, std::uint32_t> uses;
    BarrierInstance* open = nullptr;
    std::uint32_t next = 0;
    // Chunk by chunk: this pass reads every record (once per collective kind).
    trace.events(t).forEach([&](const Event& e) {
      const std::uint32_t i = next++;
      if (e.kind != kind) return;
      if (e.isBegin() || !open) {  // an end without its begin (lost): arrival unknown, use the end
        StrId g = e.get(Key::Group, -1);
        std::int32_t c = e.get(Key::Count, -1);
        // A cut trace numbers a task's uses on from those before its cut.
        auto [use, added] = uses.try_emplace({g, c}, 0);
        if (added) use->second = trace.usesBefore(t, kind, g, c);
        open = &instance(g, c, use->second++);
        open->root = e.get(Key::Root, -1);
        open->visits.push_back({t, e.isBegin() ? i : kNoRecord, kNoRecord, e.time, kOpenEnd});
        if (e.isBegin()) return;
      }
      open->visits.back().depart = e.time;
      open->visits.back().departAt = i;
      open = nullptr;
    });
  }
};

// PVM releases a barrier once `count` tasks arrived; later arrivals wait
// for its next use.  Numbering each task's calls pairs the n-th calls of
// all tasks, which holds while every member calls it as often; when a use
// gets more than `count` tasks that way (tasks that came in later rounds
// calling it fewer times), that (group, count)'s arrivals are cut again,
// in order of arrival, into uses of `count` tasks.
void recut(std::vector<BarrierInstance>& instances) {
  std::map<std::pair<StrId, std::int32_t>, bool> overfull;
  for (const BarrierInstance& b : instances)
    if (b.count > 0 && b.visits.size() > static_cast<std::size_t>(b.count)) overfull[{b.group, b.count}] = true;
  if (overfull.empty()) return;
  std::vector<BarrierInstance> kept;
  std::map<std::pair<StrId, std::int32_t>, BarrierInstance> pooled;  // all visits of an overfull key
  for (BarrierInstance& b : instances) {
    if (!overfull.count({b.group, b.count})) {
      kept.push_back(std::move(b));
      continue;
    }
    BarrierInstance& pool = pooled[{b.group, b.count}];
    if (pool.visits.empty()) pool = BarrierInstance{b.group, b.count, b.root, 0, {}, -1, 0, 0};
    pool.visits.insert(pool.visits.end(), b.visits.begin(), b.visits.end());
  }
  for (auto& [key, pool] : pooled) {
    std::stable_sort(pool.visits.begin(), pool.visits.end(),
                     [](const BarrierVisit& x, const BarrierVisit& y) { return x.arrive < y.arrive; });
    auto n = static_cast<std::size_t>(pool.count);
    for (std::size_t i = 0; i < pool.visits.size(); i += n) {
      BarrierInstance b{pool.group, pool.count, pool.root, static_cast<std::uint32_t>(i / n), {}, -1, 0, 0};
      auto end = pool.visits.begin() + static_cast<std::ptrdiff_t>(std::min(i + n, pool.visits.size()));
      b.visits.assign(pool.visits.begin() + static_cast<std::ptrdiff_t>(i), end);
      kept.push_back(std::move(b));
    }
  }
  instances = std::move(kept);
}

void summarise(BarrierInstance& b) {
  if (b.visits.empty()) return;
  auto [first, last] = std::minmax_element(
      b.visits.begin(), b.visits.end(),
      [](const BarrierVisit& x, const BarrierVisit& y) { return x.arrive < y.arrive; });
  b.lastArrival = static_cast<int>(last - b.visits.begin());
  b.lateBy = last->arrive - first->arrive;
  for (const BarrierVisit& v : b.visits) b.totalWait = addTime(b.totalWait, v.wait());
}

}  // namespace

TimeNs BarrierVisit::wait() const { return depart == kOpenEnd ? 0 : std::max<TimeNs>(depart - arrive, 0); }

bool BarrierInstance::complete() const {
  return std::all_of(visits.begin(), visits.end(),
                     [](const BarrierVisit& v) { return v.depart != kOpenEnd; });
}

std::vector<BarrierInstance> collectiveInstances(const Trace& trace, Kind kind) {
  Collector c;
  c.kind = kind;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) c.task(trace, t);
  recut(c.instances);
  return std::move(c.instances);
}

BarrierAnalysis analyzeBarriers(const Trace& trace) {
  Collector c;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) c.task(trace, t);
  recut(c.instances);
  BarrierAnalysis out;
  out.instances = std::move(c.instances);
  for (BarrierInstance& b : out.instances) {
    summarise(b);
    if (trace.cut().cut && b.count > 0 && b.visits.size() < static_cast<std::size_t>(b.count) && b.complete()) {
      b.beforeCut = true;  // released: the members not here arrived before the cut
      b.lastArrival = -1;
      b.lateBy = 0;
    }
  }
  auto firstArrival = [](const BarrierInstance& b) {
    TimeNs m = INT64_MAX;
    for (const BarrierVisit& v : b.visits) m = std::min(m, v.arrive);
    return m;
  };
  std::stable_sort(out.instances.begin(), out.instances.end(),
                   [&](const BarrierInstance& x, const BarrierInstance& y) {
                     return firstArrival(x) < firstArrival(y);
                   });
  out.perTask.resize(trace.taskCount());
  for (const BarrierInstance& b : out.instances) {
    for (std::size_t i = 0; i < b.visits.size(); ++i) {
      BarrierTaskTotals& tt = out.perTask[b.visits[i].task];
      tt.wait = addTime(tt.wait, b.visits[i].wait());
      ++tt.visits;
      if (static_cast<int>(i) == b.lastArrival && b.visits.size() > 1) ++tt.lastToArrive;
    }
    out.totalWait = addTime(out.totalWait, b.totalWait);
  }
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    // A cut trace: the share of the task's time in it.
    const TimeNs from = trace.cut().cut ? std::max(trace.task(t).firstTime, trace.firstTime()) : trace.task(t).firstTime;
    TimeNs run = trace.task(t).lastTime - from;
    if (run > 0) out.perTask[t].share = static_cast<double>(out.perTask[t].wait) / static_cast<double>(run);
  }
  return out;
}

}  // namespace xab
