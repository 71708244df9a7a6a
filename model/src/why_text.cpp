// Why a run is slow, in words (xab/model/why_text.h).
#include <xab/model/why_text.h>

#include <xab/model/hang_text.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace xab {

std::string shortDuration(TimeNs d) {
  char buf[32];
  double s = static_cast<double>(d) / 1e9;
  if (s >= 1) std::snprintf(buf, sizeof buf, "%.3f s", s);
  else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f us", s * 1e6);
  return buf;
}

namespace {

std::string percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100 * share);
  return buf;
}

std::string times(std::uint32_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Where the waiters waited, by pattern.
std::string where(const Trace& t, const WaitCause& c) {
  std::string group = c.group >= 0 ? "'" + std::string(t.str(c.group)) + "'" : std::string("?");
  switch (c.pattern) {
    case WaitPattern::LateSender: return "waiting for its messages (late sender)";
    case WaitPattern::WrongOrder: return "waiting for its messages with others' already there (wrong order)";
    case WaitPattern::Barrier: return "at barrier " + group;
    case WaitPattern::Collective: return "in a collective of group " + group;
    case WaitPattern::Spawn: return "waiting for a task that had not started yet (spawn)";
    case WaitPattern::Join: return "waiting for it to join group " + group + " (join)";
  }
  return {};
}

// "computes 3.0x as long as the other (w) tasks" when it does (by 10 % at least).
std::string computesLonger(const Analysis& a, TaskIndex k) {
  const Trace& t = *a.trace;
  if (a.breakdown.perTask.size() != t.taskCount() || t.task(k).name < 0) return {};
  TimeNs others = 0;
  int n = 0;
  for (TaskIndex o = 0; o < t.taskCount(); ++o)
    if (o != k && t.task(o).name == t.task(k).name) others += a.breakdown.perTask[o].compute, ++n;
  if (n == 0 || others <= 0) return {};
  double ratio = static_cast<double>(a.breakdown.perTask[k].compute) * n / static_cast<double>(others);
  if (ratio < 1.1) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ratio);
  return "computes " + std::string(buf) + "x as long as the other (" + std::string(t.taskName(k)) + ") tasks";
}

// "last to arrive at 30 of 30 barriers"
std::string lastAtBarriers(const Analysis& a, TaskIndex k) {
  if (a.barriers.perTask.size() <= k) return {};
  const BarrierTaskTotals& b = a.barriers.perTask[k];
  if (b.lastToArrive == 0) return {};
  return "was the last to arrive at " + std::to_string(b.lastToArrive) + " of its " + times(b.visits, "barrier", "barriers");
}

// "host node1 overloaded (load 3.1 on 1 CPU): (w, 1) waited 1.500 s for a
// CPU (75.0 % of its time)" when the samples say it waited that much; the
// load is the mean of its host's points over the task's life.
std::string overloadedHost(const Analysis& a, const WhyReport& w, TaskIndex k) {
  const Trace& t = *a.trace;
  const TaskWaiting& p = w.perTask[k];
  if (!p.hostOverloaded()) return {};
  const TaskInfo& i = t.task(k);
  std::string host = i.host >= 0 ? std::string(t.str(i.host)) : std::string("?");
  std::string s = "host " + host + " overloaded";
  if (const HostLoad* h = a.samples.host(host); h && !h->points.empty()) {
    double sum = 0;
    int n = 0, cpus = h->points.back().cpus;
    for (const LoadPoint& x : h->points)
      if (x.at >= i.firstTime && x.at <= i.lastTime) sum += x.load, ++n, cpus = x.cpus;
    if (n == 0) sum = h->points.back().load, n = 1;
    char buf[64];
    std::snprintf(buf, sizeof buf, " (load %.1f on %d %s)", sum / n, cpus, cpus == 1 ? "CPU" : "CPUs");
    s += buf;
  }
  return s + ": " + t.label(k) + " waited " + shortDuration(p.cpuWait) + " for a CPU (" + percent(p.hostOverload) +
         " of its time)";
}

}  // namespace

WhyText whyText(const Analysis& a) { return whyText(a, a.why); }

WhyText whyText(const Analysis& a, const WhyReport& w) {
  const Trace& t = *a.trace;
  WhyText out;
  if (w.waits.empty()) {
    out.headline = "no task waited for another";
  } else {
    std::size_t roots = 0;
    for (const TaskWaiting& p : w.perTask) roots += p.rootCause();
    out.headline = shortDuration(w.totalWait) + " of waiting in " + times(static_cast<std::uint32_t>(w.waits.size()), "wait state", "wait states") +
                   ", traced back to " + times(static_cast<std::uint32_t>(roots), "task's own work", "tasks' own work");
  }
  // Causes, grouped by task in the order of their largest cost.
  std::vector<TaskIndex> order;
  std::map<TaskIndex, std::vector<const WaitCause*>> byTask;
  for (const WaitCause& c : w.causes) {
    if (byTask.find(c.task) == byTask.end()) order.push_back(c.task);
    byTask[c.task].push_back(&c);
  }
  for (TaskIndex k : order) {
    const TaskWaiting& p = w.perTask[k];
    double share = w.totalWait > 0 ? static_cast<double>(p.rootCost) / static_cast<double>(w.totalWait) : 0;
    std::string s = t.label(k);
    std::string what = computesLonger(a, k);
    std::string last = lastAtBarriers(a, k);
    if (!what.empty() || !last.empty()) s += " " + what + (what.empty() || last.empty() ? "" : " and ") + last + ":";
    if (std::string busy = overloadedHost(a, w, k); !busy.empty()) s += " " + busy + ";";
    s += " its own work cost others " + shortDuration(p.rootCost) + " of waiting (" + percent(share) + "): ";
    std::string parts;
    for (const WaitCause* c : byTask[k]) {
      std::vector<TaskIndex> waiters;
      for (const auto& [x, d] : c->waiters) waiters.push_back(x);
      if (!parts.empty()) parts += "; ";
      parts += labelSet(t, waiters) + " " + where(t, *c) + ", " + shortDuration(c->cost) + " in " +
               times(c->instances, "wait", "waits");
    }
    out.causes.push_back(s + parts);
  }
  for (TaskIndex k = 0; k < t.taskCount() && k < w.perTask.size(); ++k) {
    const TaskWaiting& p = w.perTask[k];
    if (!p.symptom()) continue;
    out.symptoms.push_back(t.label(k) + " kept others waiting " + shortDuration(p.caused) + ", " +
                           shortDuration(p.passedOn) + " of it only because it was kept waiting itself (a symptom: "
                           "that part is charged to the causes of its own waits)");
  }
  if (w.criticalLength > 0 && !w.criticalPath.empty()) {
    std::vector<TaskIndex> on;
    for (TaskIndex k = 0; k < w.perTask.size(); ++k)
      if (w.perTask[k].critical > 0) on.push_back(k);
    std::stable_sort(on.begin(), on.end(), [&](TaskIndex x, TaskIndex y) { return w.perTask[x].critical > w.perTask[y].critical; });
    out.criticalPath = "critical path " + shortDuration(w.criticalLength) + ":";
    for (std::size_t i = 0; i < on.size(); ++i)
      out.criticalPath += std::string(i ? "," : "") + " " + t.label(on[i]) + " " + shortDuration(w.perTask[on[i]].critical) +
                          " (" + percent(static_cast<double>(w.perTask[on[i]].critical) / static_cast<double>(w.criticalLength)) + ")";
    std::string slack;
    for (TaskIndex k = 0; k < w.perTask.size(); ++k)
      if (w.perTask[k].critical == 0 && w.perTask[k].slack > 0)
        slack += std::string(slack.empty() ? "" : ", ") + t.label(k) + " " + shortDuration(w.perTask[k].slack);
    if (!slack.empty()) out.slack = "off the path, each could take this much longer without lengthening the run: " + slack;
  }
  return out;
}

}  // namespace xab
