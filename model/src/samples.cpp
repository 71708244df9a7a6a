// The clock-driven samples (xab/model/samples.h).
#include <xab/model/samples.h>

#include <algorithm>
#include <iterator>

namespace xab {
namespace {

constexpr TimeNs kMs = 1'000'000;

// A count at time x: a straight line between the samples around it.
TimeNs countAt(const std::vector<TimeNs>& at, const std::vector<TimeNs>& v, TimeNs start, TimeNs x) {
  auto hi = static_cast<std::size_t>(std::lower_bound(at.begin(), at.end(), x) - at.begin());
  if (hi == at.size()) return v.back();
  if (at[hi] == x) return v[hi];
  TimeNs t0 = hi == 0 ? start : at[hi - 1];
  TimeNs v0 = hi == 0 ? 0 : v[hi - 1];
  if (x <= t0) return v0;
  TimeNs span = at[hi] - t0;
  if (span <= 0) return v[hi];
  return v0 + static_cast<TimeNs>(static_cast<double>(v[hi] - v0) * static_cast<double>(x - t0) /
                                  static_cast<double>(span));
}

}  // namespace

SampleReport samples(const Trace& trace) {
  SampleReport r;
  r.tasks.resize(trace.taskCount());
  const auto& mon = trace.monitorEvents();
  for (const Event& e : mon) {
    if (e.kind == Kind::SAMPLE) {
      auto t = trace.findTask(e.get(Key::Tid));
      if (!t) continue;  // a task of the host with no record (a console)
      TaskSamples& s = r.tasks[*t];
      TimeNs cpu = TimeNs{e.get(Key::CpuMs)} * kMs, run = TimeNs{e.get(Key::RunnableMs)} * kMs;
      // A count never goes back (a reused pid's would): from there on, a new task.
      if (!s.at.empty() && (e.time < s.at.back() || cpu < s.cpu.back() || run < s.runnable.back())) continue;
      std::string_view st = trace.str(e.get(Key::State, -1));
      s.at.push_back(e.time);
      s.cpu.push_back(cpu);
      s.runnable.push_back(run);
      s.state.push_back(st.empty() ? '?' : st[0]);
      r.anyTask = true;
    } else if (e.kind == Kind::HOST_LOAD) {
      std::string_view name = trace.str(e.get(Key::Host, -1));
      auto it = std::find_if(r.hosts.begin(), r.hosts.end(), [&](const HostLoad& h) { return h.host == name; });
      if (it == r.hosts.end()) it = r.hosts.insert(r.hosts.end(), HostLoad{std::string(name), {}});
      LoadPoint p;
      p.at = e.time;
      p.load = e.get(Key::LoadMilli) / 1000.0;
      p.cpus = e.get(Key::Cpus);
      p.busyPermille = e.get(Key::BusyPermille, -1);
      if (!it->points.empty() && p.at < it->points.back().at) continue;
      it->points.push_back(p);
    }
  }
  return r;
}

CpuTime SampleReport::between(const Trace& trace, TaskIndex t, TimeNs from, TimeNs to) const {
  if (t >= tasks.size() || tasks[t].empty() || to <= from) return {};
  const TaskSamples& s = tasks[t];
  TimeNs start = trace.task(t).firstTime;
  return {countAt(s.at, s.cpu, start, to) - countAt(s.at, s.cpu, start, from),
          countAt(s.at, s.runnable, start, to) - countAt(s.at, s.runnable, start, from)};
}

CpuTime SampleReport::whole(const Trace& trace, TaskIndex t) const {
  if (t >= tasks.size() || tasks[t].empty()) return {};
  const TaskInfo& i = trace.task(t);
  return between(trace, t, std::min(i.firstTime, tasks[t].at.front()), std::max(i.lastTime, tasks[t].at.back()));
}

const LoadPoint* HostLoad::at(TimeNs t) const {
  auto after = std::upper_bound(points.begin(), points.end(), t, [](TimeNs v, const LoadPoint& p) { return v < p.at; });
  return after == points.begin() ? nullptr : &*std::prev(after);
}

const HostLoad* SampleReport::host(std::string_view name) const {
  for (const HostLoad& h : hosts)
    if (h.host == name) return &h;
  return nullptr;
}

}  // namespace xab
