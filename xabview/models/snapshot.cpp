#include "snapshot.h"

#include <algorithm>
#include <chrono>

namespace xab::view {

const Event& ViewSnapshot::event(const OrderEntry& e) const {
  if (e.task == kMonitorTask) return trace->monitorEvents()[e.index];
  return trace->events(e.task)[e.index];
}

std::uint32_t ViewSnapshot::prefixAt(TaskIndex task, std::size_t position) const {
  // A task's records arrive in its call order, so their seq numbers rise.
  const auto& ev = trace->events(task);
  std::size_t lo = 0, hi = ev.size();
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (ev[mid].seq < position) lo = mid + 1;
    else hi = mid;
  }
  return static_cast<std::uint32_t>(lo);
}

TimeNs ViewSnapshot::timeAt(std::size_t position) const {
  if (position == 0 || prefixMaxTime.empty()) return firstTime();
  return prefixMaxTime[std::min(position, prefixMaxTime.size()) - 1];
}

std::size_t ViewSnapshot::positionOf(EventRef ref) const {
  return trace->event(ref).seq;
}

std::vector<Span> buildSpans(const Trace& trace, TaskIndex task) {
  auto intervals = stateIntervals(trace, task);
  std::vector<Span> out;
  out.reserve(intervals.size());
  for (const auto& iv : intervals) out.push_back({iv.begin, iv.end, iv.first, iv.state});
  return out;
}

namespace {

// Records are numbered in arrival order without gaps (Event::seq), so the
// order is filled by placing each record at its number: no sort.
void buildOrder(const Trace& trace, ViewSnapshot& s) {
  std::size_t total = trace.eventCount() + trace.monitorEvents().size();
  s.order.assign(total, OrderEntry{kMonitorTask, 0});
  auto place = [&](TaskIndex t, std::uint32_t i, const Event& e) {
    if (e.seq < total) s.order[e.seq] = {t, i};
  };
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    std::uint32_t i = 0;
    trace.events(t).forEach([&](const Event& e) { place(t, i++, e); });
  }
  for (std::uint32_t i = 0; i < trace.monitorEvents().size(); ++i)
    place(kMonitorTask, i, trace.monitorEvents()[i]);
  s.prefixMaxTime.resize(total);
  TimeNs latest = trace.firstTime();
  for (std::size_t p = 0; p < total; ++p) {
    const OrderEntry& e = s.order[p];
    if (e.task != kMonitorTask) latest = std::max(latest, s.event(e).time);
    s.prefixMaxTime[p] = latest;
  }
}

}  // namespace

std::shared_ptr<ViewSnapshot> buildSnapshot(std::shared_ptr<const Trace> trace) {
  auto started = std::chrono::steady_clock::now();
  auto s = std::make_shared<ViewSnapshot>();
  s->trace = std::move(trace);
  const Trace& tr = *s->trace;
  buildOrder(tr, *s);
  s->tasksBegin = tr.taskCount() ? INT64_MAX : tr.firstTime();
  for (TaskIndex t = 0; t < tr.taskCount(); ++t) s->tasksBegin = std::min(s->tasksBegin, tr.task(t).firstTime);
  s->spans.resize(tr.taskCount());
  for (TaskIndex t = 0; t < tr.taskCount(); ++t) s->spans[t] = buildSpans(tr, t);
  s->messages = matchMessages(tr);
  s->barriers = analyzeBarriers(tr);
  s->hang = diagnoseHang(tr, s->messages, s->barriers);
  s->mismatches = findPackMismatches(tr, s->messages);
  s->buildMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                   .count();
  return s;
}

}  // namespace xab::view
