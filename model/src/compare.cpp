// Runs compared (xab/model/compare.h).
#include <xab/model/compare.h>

#include <xab/model/hang_text.h>
#include <xab/model/why_text.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace xab {
namespace {

double secs(TimeNs d) { return static_cast<double>(d) / 1e9; }

// What one run gives the comparison, keyed by task label.
struct Figures {
  std::map<std::string, TaskIndex> tasks;
  std::map<std::tuple<std::string, std::int32_t, std::uint32_t>, TimeNs> barrierUses;  // (group, count, use) -> waiting
  std::set<std::string> groups;
  struct Pair {
    std::uint64_t count = 0, bytes = 0;
    TimeNs transit = 0;
  };
  std::map<std::tuple<std::string, std::string, std::int32_t>, Pair> pairs;  // (from, to, tag)
  std::vector<std::array<TimeNs, kWaitPatternCount>> waited;               // per task, per pattern
};

Figures figuresOf(const Analysis& a) {
  const Trace& t = *a.trace;
  Figures f;
  for (TaskIndex k = 0; k < t.taskCount(); ++k) f.tasks.emplace(t.label(k), k);
  for (const BarrierInstance& b : a.barriers.instances) {
    std::string g(t.str(b.group));
    f.groups.insert(g);
    f.barrierUses[{g, b.count, b.use}] += b.totalWait;
  }
  for (const Message& m : a.messages.messages)
    for (const MessageReceive& r : m.receives) {
      auto& p = f.pairs[{t.label(m.sender), t.label(r.recv.task), m.tag}];
      ++p.count;
      p.bytes += static_cast<std::uint64_t>(std::max(0, m.bytes));
      p.transit += std::max<TimeNs>(0, t.event(r.recv).time - m.time);
    }
  f.waited.assign(t.taskCount(), {});
  for (const WaitState& w : a.why.waits) f.waited[w.task][static_cast<int>(w.pattern)] += w.wait();
  return f;
}

template <class K, class V>
std::vector<std::string> onlyIn(const std::map<K, V>& x, const std::map<K, V>& y, auto name) {
  std::vector<std::string> out;
  for (const auto& [k, v] : x)
    if (!y.count(k)) out.push_back(name(k));
  return out;
}

std::string joined(const std::vector<std::string>& v, std::size_t most = 5) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < most; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > most) out += " and " + std::to_string(v.size() - most) + " more";
  return out;
}

void checkShape(const Figures& a, const Figures& b, RunComparison& c) {
  auto same = [](const std::string& s) { return s; };
  auto pairName = [](const std::tuple<std::string, std::string, std::int32_t>& p) {
    return std::get<0>(p) + " -> " + std::get<1>(p) + " tag " + std::to_string(std::get<2>(p));
  };
  if (auto x = onlyIn(a.tasks, b.tasks, same); !x.empty()) c.shape.push_back("tasks only in the first run: " + joined(x));
  if (auto x = onlyIn(b.tasks, a.tasks, same); !x.empty()) c.shape.push_back("tasks only in the second run: " + joined(x));
  for (const std::string& g : a.groups)
    if (!b.groups.count(g)) c.shape.push_back("barrier '" + g + "' only in the first run");
  for (const std::string& g : b.groups)
    if (!a.groups.count(g)) c.shape.push_back("barrier '" + g + "' only in the second run");
  if (auto x = onlyIn(a.pairs, b.pairs, pairName); !x.empty()) c.shape.push_back("messages only in the first run: " + joined(x));
  if (auto x = onlyIn(b.pairs, a.pairs, pairName); !x.empty()) c.shape.push_back("messages only in the second run: " + joined(x));
  c.sameShape = c.shape.empty();
}

std::string signedDuration(double s) {
  return (s < 0 ? "-" : "+") + shortDuration(static_cast<TimeNs>(std::llround(std::fabs(s) * 1e9)));
}

// The two runs' figures, ranked; each cause's compute before the waits it explains.
void differences(const Analysis& runA, const Analysis& runB, const Figures& fa, const Figures& fb, RunComparison& c) {
  const Trace& ta = *runA.trace;
  const Trace& tb = *runB.trace;
  std::vector<RunDifference> time, other;
  std::map<std::pair<TaskIndex, int>, std::size_t> waitDiff;  // (task in B, pattern) -> index in time
  std::map<TaskIndex, std::size_t> computeDiff;               // task in B -> index in time
  auto add = [](std::vector<RunDifference>& to, RunDifference d) {
    d.delta = d.b - d.a;
    if (std::fabs(d.delta) < (d.unit == "s" ? 1e-6 : 1e-9)) return false;
    to.push_back(std::move(d));
    return true;
  };
  bool breakdown = runA.breakdown.perTask.size() == ta.taskCount() && runB.breakdown.perTask.size() == tb.taskCount();
  for (const auto& [label, ka] : fa.tasks) {
    auto it = fb.tasks.find(label);
    if (it == fb.tasks.end()) continue;
    TaskIndex kb = it->second;
    RunDifference base;
    base.task = label;
    base.tidA = ta.task(ka).tid;
    base.tidB = tb.task(kb).tid;
    base.unit = "s";
    auto figure = [&](const char* what, double x, double y) {
      RunDifference d = base;
      d.what = what;
      d.a = x;
      d.b = y;
      return add(time, d);
    };
    figure("run time", secs(ta.task(ka).lastTime - ta.task(ka).firstTime), secs(tb.task(kb).lastTime - tb.task(kb).firstTime));
    if (breakdown) {
      const TimeBreakdown &x = runA.breakdown.perTask[ka], &y = runB.breakdown.perTask[kb];
      if (figure("compute", secs(x.compute), secs(y.compute))) computeDiff[kb] = time.size() - 1;
      figure("communication", secs(x.communication), secs(y.communication));
    }
    for (int p = 0; p < kWaitPatternCount; ++p) {
      std::string what = "wait: " + std::string(waitPatternName(static_cast<WaitPattern>(p)));
      RunDifference d = base;
      d.what = what;
      d.a = secs(fa.waited[ka][p]);
      d.b = secs(fb.waited[kb][p]);
      if (add(time, d)) waitDiff[{kb, p}] = time.size() - 1;
    }
  }
  for (const auto& [use, wa] : fa.barrierUses) {
    auto it = fb.barrierUses.find(use);
    if (it == fb.barrierUses.end()) continue;
    RunDifference d;
    d.what = "barrier '" + std::get<0>(use) + "' count " + std::to_string(std::get<1>(use)) + " use " + std::to_string(std::get<2>(use));
    d.unit = "s";
    d.a = secs(wa);
    d.b = secs(it->second);
    add(time, d);
  }
  for (const auto& [key, pa] : fa.pairs) {
    auto it = fb.pairs.find(key);
    if (it == fb.pairs.end()) continue;
    const auto& pb = it->second;
    RunDifference base;
    base.task = std::get<0>(key);
    base.what = "messages to " + std::get<1>(key) + " tag " + std::to_string(std::get<2>(key));
    auto bw = [](const Figures::Pair& p) { return p.transit > 0 ? static_cast<double>(p.bytes) / secs(p.transit) : 0.0; };
    auto pairFigure = [&](const char* what, const char* unit, double x, double y) {
      RunDifference d = base;
      d.what += what;
      d.unit = unit;
      d.a = x;
      d.b = y;
      return d;
    };
    add(other, pairFigure(": count", "messages", static_cast<double>(pa.count), static_cast<double>(pb.count)));
    add(other, pairFigure(": bytes", "bytes", static_cast<double>(pa.bytes), static_cast<double>(pb.bytes)));
    RunDifference d = pairFigure(": bandwidth", "B/s", bw(pa), bw(pb));
    if (d.a > 0 && d.b > 0 && std::fabs(d.b - d.a) > 0.1 * std::max(d.a, d.b)) add(other, d);
  }
  // A compute that grew explains the growth of the waits its task is the
  // root cause of in the second run.
  std::vector<std::vector<std::size_t>> explains(time.size());
  std::vector<long> by(time.size(), -1);
  for (const WaitCause& wc : runB.why.causes) {
    auto cd = computeDiff.find(wc.task);
    if (cd == computeDiff.end() || time[cd->second].delta <= 0) continue;
    for (const auto& [waiter, cost] : wc.waiters) {
      auto wd = waitDiff.find({waiter, static_cast<int>(wc.pattern)});
      if (wd == waitDiff.end() || time[wd->second].delta <= 0 || by[wd->second] >= 0) continue;
      by[wd->second] = static_cast<long>(cd->second);
      explains[cd->second].push_back(wd->second);
    }
  }
  std::vector<std::size_t> order(time.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto bigger = [&](std::size_t x, std::size_t y) { return std::fabs(time[x].delta) > std::fabs(time[y].delta); };
  std::stable_sort(order.begin(), order.end(), bigger);
  std::vector<std::size_t> placed(time.size(), SIZE_MAX);
  for (std::size_t i : order) {
    if (by[i] >= 0 || placed[i] != SIZE_MAX) continue;
    placed[i] = c.differences.size();
    c.differences.push_back(time[i]);
    std::vector<std::size_t> ex = explains[i];
    std::stable_sort(ex.begin(), ex.end(), bigger);
    for (std::size_t e : ex) {
      placed[e] = c.differences.size();
      c.differences.push_back(time[e]);
    }
  }
  for (std::size_t i = 0; i < time.size(); ++i) {
    RunDifference& d = c.differences[placed[i]];
    if (by[i] >= 0) d.explainedBy = static_cast<long>(placed[static_cast<std::size_t>(by[i])]);
    for (std::size_t e : explains[i]) d.explains.push_back(placed[e]);
  }
  std::stable_sort(other.begin(), other.end(), [](const RunDifference& x, const RunDifference& y) {
    auto rel = [](const RunDifference& d) { return std::fabs(d.delta) / std::max({std::fabs(d.a), std::fabs(d.b), 1e-12}); };
    return rel(x) > rel(y);
  });
  for (RunDifference& d : other) c.differences.push_back(std::move(d));
  // The words.
  for (RunDifference& d : c.differences) {
    std::string who = d.task.empty() ? "" : d.task + " ";
    if (d.unit == "s")
      d.words = who + d.what + " " + signedDuration(d.delta) + " (" + shortDuration(static_cast<TimeNs>(d.a * 1e9)) +
                " -> " + shortDuration(static_cast<TimeNs>(d.b * 1e9)) + ")";
    else {
      char buf[96];
      std::snprintf(buf, sizeof buf, " %+.6g %s (%.6g -> %.6g)", d.delta, d.unit.c_str(), d.a, d.b);
      d.words = who + d.what + buf;
    }
  }
  for (RunDifference& d : c.differences) {
    if (d.explains.empty()) continue;
    double sum = 0;
    std::vector<std::string> whom;
    for (std::size_t e : d.explains) sum += c.differences[e].delta;
    for (std::size_t e : d.explains) whom.push_back(c.differences[e].task);
    d.words += "; it explains " + signedDuration(sum) + " of waiting: " + joined(whom);
  }
  for (RunDifference& d : c.differences)
    if (d.explainedBy >= 0) d.words += " (because " + c.differences[static_cast<std::size_t>(d.explainedBy)].task + " computes longer)";
}

void spread(const std::vector<const Analysis*>& runs, RunComparison& c) {
  std::map<std::string, TaskSpread> byLabel;
  std::map<std::string, HostSpread> byHost;
  std::map<std::string, std::size_t> seen;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const Analysis& a = *runs[r];
    const Trace& t = *a.trace;
    for (TaskIndex k = 0; k < t.taskCount(); ++k) {
      std::string label = t.label(k);
      double run = secs(t.task(k).lastTime - t.task(k).firstTime);
      double compute = k < a.breakdown.perTask.size() ? secs(a.breakdown.perTask[k].compute) : 0;
      TaskSpread& s = byLabel[label];
      std::size_t& n = seen[label];
      if (n == 0) s = {label, run, run, 0, compute, compute, 0, {}};
      s.minRun = std::min(s.minRun, run), s.maxRun = std::max(s.maxRun, run), s.meanRun += run;
      s.minCompute = std::min(s.minCompute, compute), s.maxCompute = std::max(s.maxCompute, compute), s.meanCompute += compute;
      s.hosts.resize(r + 1);
      s.hosts[r] = std::string(t.str(t.task(k).host));
      ++n;
      HostSpread& h = byHost[s.hosts[r]];
      h.host = s.hosts[r];
      ++h.placements;
      h.meanCompute += compute;
      h.meanRun += run;
    }
  }
  for (auto& [label, s] : byLabel) {
    double n = static_cast<double>(seen[label]);
    s.meanRun /= n;
    s.meanCompute /= n;
    for (std::size_t i = 1; i < s.hosts.size(); ++i) c.placementDiffers |= s.hosts[i] != s.hosts[0];
    c.spread.push_back(std::move(s));
  }
  if (!c.placementDiffers) return;
  for (auto& [name, h] : byHost) {
    h.meanCompute /= static_cast<double>(h.placements);
    h.meanRun /= static_cast<double>(h.placements);
    c.hosts.push_back(std::move(h));
  }
}

}  // namespace

RunComparison compareRuns(const std::vector<const Analysis*>& runs) {
  RunComparison c;
  if (runs.size() < 2) return c;
  Figures fa = figuresOf(*runs[0]), fb = figuresOf(*runs[1]);
  checkShape(fa, fb, c);
  for (std::size_t r = 2; r < runs.size() && c.sameShape; ++r) {
    RunComparison more;
    checkShape(fa, figuresOf(*runs[r]), more);
    for (std::string& s : more.shape) c.shape.push_back("run " + std::to_string(r + 1) + ": " + s);
    c.sameShape = c.shape.empty();
  }
  if (!c.sameShape) return c;
  differences(*runs[0], *runs[1], fa, fb, c);
  spread(runs, c);
  return c;
}

}  // namespace xab
