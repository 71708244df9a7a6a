#include "range_stats.h"

#include "span_search.h"

#include <algorithm>

namespace xab::view {

RangeStats rangeStats(const ViewState& st, TimeNs from, TimeNs to) {
  RangeStats r;
  if (to < from) std::swap(from, to);
  r.from = from;
  r.to = to;
  const ViewSnapshot* s = st.snapshot();
  if (!s || !s->analysis) return r;
  const TaskIndex n = s->trace->taskCount();
  r.tasks.resize(n);
  const TimeNs now = st.nowTime();
  for (TaskIndex t = 0; t < n; ++t) {
    const SpanList& spans = s->spans[t];
    const std::uint32_t shown = st.shownOf(t);
    SpanList::Reader read(spans);
    for (std::size_t i = spans.empty() ? 0 : spanAtOrBefore(spans, from); i < spans.size(); ++i) {
      const Span sp = read[i];
      if (sp.first >= shown || sp.begin >= to) break;
      if (sp.state == TaskState::NotStarted || sp.state == TaskState::Exited) continue;
      const TimeNs b = std::max(sp.begin, from), e = std::min(shownEnd(read, i, shown, now), to);
      if (e > b) r.tasks[t].time[static_cast<std::size_t>(sp.state)] += e - b;
    }
    for (int k = 0; k < kStateCount; ++k) r.total[static_cast<std::size_t>(k)] += r.tasks[t].time[static_cast<std::size_t>(k)];
  }
  const std::size_t position = st.position();
  const auto& lines = s->lines();
  auto [lo, hi] = visibleLines(*s, from, to);
  for (std::size_t i = lo; i < hi; ++i) {
    const MessageLine& l = lines[i];
    if (l.sendPos < position && l.send >= from && l.send < to) {
      ++r.tasks[l.sender].sent;
      r.tasks[l.sender].sentBytes += static_cast<std::uint64_t>(std::max(0, l.bytes));
    }
    if (l.recvPos < position && l.recv >= from && l.recv < to) {
      ++r.tasks[l.receiver].received;
      r.tasks[l.receiver].receivedBytes += static_cast<std::uint64_t>(std::max(0, l.bytes));
    }
  }
  for (const Undelivered& u : s->undelivered()) {
    const Message& m = s->messages().messages[u.message];
    if (u.sendPos < position && m.time >= from && m.time < to) {
      ++r.tasks[m.sender].sent;
      r.tasks[m.sender].sentBytes += static_cast<std::uint64_t>(std::max(0, u.bytes));
    }
  }
  for (const TaskRangeStats& t : r.tasks) {
    r.sent += t.sent;
    r.sentBytes += t.sentBytes;
    r.received += t.received;
    r.receivedBytes += t.receivedBytes;
  }
  return r;
}

}  // namespace xab::view
