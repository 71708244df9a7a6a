#include "snapshot.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <future>

namespace xab::view {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The first element of seq-ordered records whose seq is >= position.
template <class Seq>
std::uint32_t seqLowerBound(const Seq& records, std::size_t position) {
  std::size_t lo = 0, hi = records.size();
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (records[mid].seq < position) lo = mid + 1;
    else hi = mid;
  }
  return static_cast<std::uint32_t>(lo);
}

void buildLines(const Trace& trace, ViewSnapshot& s) {
  s.lines.clear();
  s.undelivered.clear();
  s.maxTransit = 0;
  std::size_t n = 0;
  for (const Message& msg : s.messages.messages) n += msg.receives.size();
  s.lines.reserve(n);  // one allocation: growth by doubling would raise the peak
  for (std::uint32_t m = 0; m < s.messages.messages.size(); ++m) {
    const Message& msg = s.messages.messages[m];
    std::uint32_t sendPos = trace.event(msg.send).seq;
    for (const auto& r : msg.receives) {
      const Event& e = trace.event(r.recv);
      std::int32_t bytes = e.get(Key::Bytes) > 0 ? e.get(Key::Bytes) : msg.bytes;  // as MessageTable::pairs counts
      s.lines.push_back({msg.time, r.time, sendPos, e.seq, msg.sender, r.receiver, m, bytes});
      s.maxTransit = std::max(s.maxTransit, r.time - msg.time);
    }
    for (Tid d : msg.unreceived)
      if (auto r = trace.findTask(d)) s.undelivered.push_back({sendPos, *r, m, msg.bytes});
  }
  std::sort(s.lines.begin(), s.lines.end(),
            [](const MessageLine& a, const MessageLine& b) { return a.send < b.send; });
}

void buildTimeBounds(const Trace& tr, ViewSnapshot& s) {
  s.tasksBegin = tr.taskCount() ? INT64_MAX : tr.firstTime();
  s.tasksEnd = tr.taskCount() ? INT64_MIN : tr.lastTime();
  for (TaskIndex t = 0; t < tr.taskCount(); ++t) {
    s.tasksBegin = std::min(s.tasksBegin, tr.task(t).firstTime);
    s.tasksEnd = std::max(s.tasksEnd, tr.task(t).lastTime);
  }
  for (const Event& e : tr.monitorEvents())
    if (e.kind == Kind::ABMON_STOP) s.monitorEnd = e.time;
}

}  // namespace

// Records are numbered in arrival order without gaps (Event::seq), so the
// order is filled by placing each record's task at its number: no sort.
void ArrivalOrder::build(const Trace& trace) {
  trace_ = &trace;
  size_ = trace.eventCount() + trace.monitorEvents().size();
  bool narrow = trace.taskCount() < kNarrowMonitor;
  narrow_.clear();
  wide_.clear();
  if (narrow) narrow_.assign(size_, kNarrowMonitor);
  else wide_.assign(size_, kMonitorTask);
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    trace.events(t).forEach([&](const Event& e) {
      if (e.seq >= size_) return;
      if (narrow) narrow_[e.seq] = static_cast<std::uint16_t>(t);
      else wide_[e.seq] = t;
    });
}

TaskIndex ArrivalOrder::taskAt(std::size_t p) const {
  if (!narrow_.empty()) return narrow_[p] == kNarrowMonitor ? kMonitorTask : narrow_[p];
  return wide_[p];
}

std::uint32_t ArrivalOrder::indexOf(TaskIndex task, std::size_t position) const {
  if (task == kMonitorTask) return seqLowerBound(trace_->monitorEvents(), position);
  return seqLowerBound(trace_->events(task), position);
}

OrderEntry ArrivalOrder::operator[](std::size_t p) const {
  TaskIndex t = taskAt(p);
  std::uint32_t i = indexOf(t, p);
  // A position no record filled (not expected) reads as abmon's first, as before.
  if (t == kMonitorTask && (i >= trace_->monitorEvents().size() || trace_->monitorEvents()[i].seq != p)) i = 0;
  return {t, i};
}

const Event& ViewSnapshot::event(const OrderEntry& e) const {
  if (e.task == kMonitorTask) return trace->monitorEvents()[e.index];
  return trace->events(e.task)[e.index];
}

std::uint32_t ViewSnapshot::prefixAt(TaskIndex task, std::size_t position) const {
  // A task's records arrive in its call order, so their seq numbers rise.
  return seqLowerBound(trace->events(task), position);
}

TimeNs ViewSnapshot::timeAt(std::size_t position) const {
  if (!trace) return 0;
  TimeNs latest = tasksBegin;
  for (TaskIndex t = 0; t < trace->taskCount(); ++t) {
    std::uint32_t n = position >= size() ? static_cast<std::uint32_t>(trace->events(t).size()) : prefixAt(t, position);
    if (n > 0) latest = std::max(latest, trace->events(t)[n - 1].time);
  }
  return latest;
}

std::size_t ViewSnapshot::positionOf(EventRef ref) const { return trace->event(ref).seq; }

std::uint8_t StateMipmap::at(std::size_t level, TimeNs t) const {
  if (width0 == 0 || level >= levels.size() || t < origin) return kNoState;
  auto bin = static_cast<std::size_t>((t - origin) / binWidth(level));
  return bin < levels[level].size() ? levels[level][bin] : kNoState;
}

std::size_t StateMipmap::memoryBytes() const {
  std::size_t n = 0;
  for (const auto& l : levels) n += l.capacity();
  return n;
}

StateMipmap buildMipmap(const std::vector<Span>& spans, TimeNs origin, TimeNs end) {
  StateMipmap m;
  if (spans.size() < kMipMinSpans || end <= origin) return m;
  constexpr std::size_t kStates = static_cast<std::size_t>(TaskState::Exited) + 1;
  const auto range = static_cast<std::uint64_t>(end - origin);
  m.origin = origin;
  m.width0 = static_cast<TimeNs>(std::max<std::uint64_t>(1, (range + kMipBins - 1) / kMipBins));
  std::size_t bins = static_cast<std::size_t>(range / static_cast<std::uint64_t>(m.width0)) + 1;
  // Time each state covers in each bin, level 0.
  std::vector<std::array<TimeNs, kStates>> cover(bins, std::array<TimeNs, kStates>{});
  for (std::size_t i = 0; i + 1 < spans.size(); ++i) {
    const Span& sp = spans[i];
    if (sp.state == TaskState::Exited) break;
    TimeNs b = std::max(sp.begin, origin), e = std::min(spans[i + 1].begin, end);
    auto s = static_cast<std::size_t>(sp.state);
    while (b < e) {
      auto bin = static_cast<std::size_t>((b - origin) / m.width0);
      if (bin >= bins) break;
      TimeNs binEnd = origin + static_cast<TimeNs>(bin + 1) * m.width0;
      TimeNs upTo = std::min(e, binEnd);
      cover[bin][s] += upTo - b;
      b = upTo;
    }
  }
  // Each level: the dominant state per bin; then pairs of bins add up.
  while (true) {
    std::vector<std::uint8_t> level(bins);
    for (std::size_t j = 0; j < bins; ++j) {
      auto best = std::max_element(cover[j].begin(), cover[j].end());
      level[j] = *best > 0 ? static_cast<std::uint8_t>(best - cover[j].begin()) : kNoState;
    }
    m.levels.push_back(std::move(level));
    if (bins == 1) break;
    std::size_t up = (bins + 1) / 2;
    for (std::size_t j = 0; j < up; ++j) {
      std::array<TimeNs, kStates> sum = cover[2 * j];
      if (2 * j + 1 < bins)
        for (std::size_t s = 0; s < kStates; ++s) sum[s] += cover[2 * j + 1][s];
      cover[j] = sum;
    }
    bins = up;
  }
  return m;
}

std::vector<Span> buildSpans(const Trace& trace, TaskIndex task) {
  auto intervals = stateIntervals(trace, task);
  std::vector<Span> out;
  out.reserve(intervals.size());
  for (const auto& iv : intervals) out.push_back({iv.begin, iv.first, iv.state});
  return out;
}

std::shared_ptr<ViewSnapshot> buildSnapshot(std::shared_ptr<const Trace> trace) {
  auto started = Clock::now();
  auto s = std::make_shared<ViewSnapshot>();
  s->trace = std::move(trace);
  const Trace& tr = *s->trace;
  // Two cores' worth: the message analyses on one thread, the per-task
  // arrays and the barrier/hang analyses on this one.
  auto messages = std::async(std::launch::async, [&] {
    auto t = Clock::now();
    s->messages = matchMessages(tr);
    s->timing.messages = msSince(t);
    t = Clock::now();
    s->mismatches = findPackMismatches(tr, s->messages);
    s->timing.mismatches = msSince(t);
  });
  auto t = Clock::now();
  buildTimeBounds(tr, *s);
  s->order.build(tr);
  s->timing.order = msSince(t);
  t = Clock::now();
  s->spans.resize(tr.taskCount());
  for (TaskIndex i = 0; i < tr.taskCount(); ++i) s->spans[i] = buildSpans(tr, i);
  s->timing.spans = msSince(t);
  t = Clock::now();
  s->mipmaps.resize(tr.taskCount());
  for (TaskIndex i = 0; i < tr.taskCount(); ++i) s->mipmaps[i] = buildMipmap(s->spans[i], s->tasksBegin, s->tasksEnd);
  s->timing.mipmaps = msSince(t);
  t = Clock::now();
  s->barriers = analyzeBarriers(tr);
  s->timing.barriers = msSince(t);
  messages.get();
  t = Clock::now();
  s->hang = diagnoseHang(tr, s->messages, s->barriers);
  buildLines(tr, *s);
  s->timing.hang = msSince(t);
  s->buildMs = msSince(started);
  return s;
}

}  // namespace xab::view
