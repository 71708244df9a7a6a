// wait_causes.cpp -- the root causes of the wait states and the critical
// path (xab/model/wait_states.h).
#include <xab/model/wait_states.h>

#include <xab/model/causal_walk.h>

#include <algorithm>

namespace xab {
namespace {

// A chain of waits longer than this is cut: the rest is charged to the
// task reached (only a trace whose clocks disagree badly gets so far).
constexpr int kMaxDepth = 64;

struct Blame {
  const Trace& trace;
  const std::vector<WaitState>& waits;
  std::vector<std::uint32_t> first;  // per task + 1: its waits are [first[t], first[t+1])
  std::vector<std::optional<EventRef>> spawned = detail::spawnedAt(trace);
  std::vector<WaitCause> byTaskPattern;       // task * kWaitPatternCount + pattern
  std::vector<std::uint32_t> lastOrigin;      // per entry: the last wait that charged it (+1)
  std::vector<TaskWaiting>& perTask;

  Blame(const Trace& t, const std::vector<WaitState>& w, std::vector<TaskWaiting>& p)
      : trace(t), waits(w), first(t.taskCount() + 1, 0), perTask(p) {
    for (const WaitState& x : waits) ++first[x.task + 1];
    for (std::size_t k = 1; k < first.size(); ++k) first[k] += first[k - 1];
    byTaskPattern.resize(trace.taskCount() * kWaitPatternCount);
    lastOrigin.assign(byTaskPattern.size(), 0);
    for (TaskIndex t = 0; t < trace.taskCount(); ++t)
      for (int p = 0; p < kWaitPatternCount; ++p) {
        WaitCause& c = byTaskPattern[t * kWaitPatternCount + static_cast<std::size_t>(p)];
        c.task = t;
        c.pattern = static_cast<WaitPattern>(p);
      }
  }

  void charge(TaskIndex root, WaitPattern p, TimeNs amount, std::uint32_t origin) {
    if (amount <= 0) return;
    std::size_t k = root * kWaitPatternCount + static_cast<std::size_t>(p);
    WaitCause& c = byTaskPattern[k];
    const WaitState& w = waits[origin];
    c.cost += amount;
    if (lastOrigin[k] != origin + 1) {
      lastOrigin[k] = origin + 1;
      ++c.instances;
      if (c.group < 0) c.group = w.group;
    }
    auto at = std::lower_bound(c.waiters.begin(), c.waiters.end(), w.task,
                               [](const auto& x, TaskIndex t) { return x.first < t; });
    if (at == c.waiters.end() || at->first != w.task) at = c.waiters.insert(at, {w.task, 0});
    at->second += amount;
    perTask[root].rootCost += amount;
  }

  // Charges [a, b) of task c's time, for the wait `origin` of pattern p:
  // its own work to itself, its waits on to their causes, the time before
  // it existed to its spawner.
  void blame(TaskIndex c, TimeNs a, TimeNs b, WaitPattern p, std::uint32_t origin, int depth) {
    if (b <= a) return;
    if (depth >= kMaxDepth) return charge(c, p, b - a, origin);
    // Before c existed: its spawner's time until the spawn began, then
    // c's start (the spawn itself) is c's.
    TimeNs born = trace.task(c).firstTime;
    if (born > a && spawned[c]) {
      const EventRef s = *spawned[c];
      auto sb = detail::beginOf(trace.events(s.task), s.index);
      TimeNs spawnBegin = trace.events(s.task)[sb ? *sb : s.index].time;
      TimeNs until = std::min(spawnBegin, b);
      if (s.task != c) blame(s.task, a, until, WaitPattern::Spawn, origin, depth + 1);
      a = std::max(a, until);
      until = std::min(born, b);
      charge(c, WaitPattern::Spawn, until - a, origin);
      a = std::max(a, until);
      if (b <= a) return;
    }
    // Its waits that end after a, in time order.
    auto begin = waits.begin() + first[c], end = waits.begin() + first[c + 1];
    auto it = std::upper_bound(begin, end, a, [](TimeNs t, const WaitState& w) { return t < w.end; });
    TimeNs at = a;
    for (; it != end && it->begin < b; ++it) {
      TimeNs from = std::max(at, it->begin), to = std::min(b, it->end);
      if (to <= from) continue;
      charge(c, p, from - at, origin);
      if (depth == 0) perTask[c].passedOn += to - from;
      blame(it->awaited, from, to, p, origin, depth + 1);
      at = to;
    }
    charge(c, p, b - at, origin);
  }
};

// The critical path: back from the run's end along the last task's own
// work; at the end of a wait, on to its cause at the record that ended it.
void criticalPath(const Trace& trace, const std::vector<WaitState>& waits, const std::vector<std::uint32_t>& first,
                  const std::vector<std::optional<EventRef>>& spawned, WhyReport& r) {
  if (trace.taskCount() == 0) return;
  TaskIndex cur = 0;
  for (TaskIndex t = 1; t < trace.taskCount(); ++t)
    if (trace.task(t).lastTime > trace.task(cur).lastTime) cur = t;
  TimeNs at = trace.task(cur).lastTime;
  std::vector<CriticalStep> back;
  for (std::size_t guard = 0; guard <= waits.size() + 2 * trace.taskCount(); ++guard) {
    auto begin = waits.begin() + first[cur], end = waits.begin() + first[cur + 1];
    // The latest wait of cur that ends no later than `at`.
    auto it = std::upper_bound(begin, end, at, [](TimeNs t, const WaitState& w) { return t < w.end; });
    TimeNs born = trace.task(cur).firstTime;
    if (it == begin) {
      // Back to its spawner at the spawn's end (or to the run's start).
      TimeNs from = std::max(born, r.start);
      std::optional<EventRef> sp = born > r.start ? spawned[cur] : std::nullopt;
      if (sp) from = std::max(r.start, std::min(born, trace.event(*sp).time));
      back.push_back({cur, from, at});
      if (!sp) break;
      cur = sp->task;
      at = from;
      continue;
    }
    const WaitState& w = *(it - 1);
    TimeNs released = w.cause != w.awaited ? w.end : std::min(w.end, std::max(w.begin, trace.event(w.causeAt).time));
    if (released < at) back.push_back({cur, released, at});
    if (released >= at && w.awaited == cur) break;  // no progress: a corrupt trace
    cur = w.awaited;
    at = std::min(at, released);
  }
  std::reverse(back.begin(), back.end());
  for (CriticalStep& s : back)
    if (s.to > s.from) {
      r.criticalPath.push_back(s);
      r.perTask[s.task].critical += s.to - s.from;
    }
}

}  // namespace

WhyReport analyseWaits(const Trace& trace, const MessageTable& messages) {
  WhyReport r;
  r.waits = findWaitStates(trace, messages);
  r.perTask.resize(trace.taskCount());
  if (trace.taskCount() == 0) return r;
  r.start = INT64_MAX;
  r.end = INT64_MIN;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    if (trace.events(t).size() == 0) continue;
    r.start = std::min(r.start, trace.task(t).firstTime);
    r.end = std::max(r.end, trace.task(t).lastTime);
  }
  if (r.start > r.end) r.start = r.end = 0;
  r.criticalLength = r.end - r.start;

  Blame b(trace, r.waits, r.perTask);
  for (std::uint32_t i = 0; i < r.waits.size(); ++i) {
    const WaitState& w = r.waits[i];
    r.totalWait += w.wait();
    r.perTask[w.task].waited += w.wait();
    r.perTask[w.cause].caused += w.wait();
    // The cause's time over the wait: what it did then is what kept w waiting.
    b.blame(w.awaited, w.begin, w.end, w.pattern, i, 0);
  }
  for (WaitCause& c : b.byTaskPattern)
    if (c.cost > 0) {
      c.share = r.totalWait > 0 ? static_cast<double>(c.cost) / static_cast<double>(r.totalWait) : 0;
      r.causes.push_back(std::move(c));
    }
  std::stable_sort(r.causes.begin(), r.causes.end(), [](const WaitCause& a, const WaitCause& b) { return a.cost > b.cost; });

  criticalPath(trace, r.waits, b.first, b.spawned, r);
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    if (r.perTask[t].critical == 0 && trace.events(t).size() > 0)
      r.perTask[t].slack = r.perTask[t].waited + (r.end - trace.task(t).lastTime);
  return r;
}

}  // namespace xab
