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
  const MessageLines& lines = s->lines();
  auto [lo, hi] = visibleLines(*s, from, to);
  for (std::size_t i = lo; i < hi; ++i) {
    const TaskIndex sender = lines.sender(i), receiver = lines.receiver(i);
    const TimeNs send = lines.send(i), recv = lines.recv(i);
    const bool sent = send >= from && send < to && lines.sendRef(i).index < st.shownOf(sender);
    const bool received = recv >= from && recv < to && lines.recvRef(i).index < st.shownOf(receiver);
    const auto bytes = static_cast<std::uint64_t>(std::max(0, lines.bytes(i)));
    if (sent) {
      ++r.tasks[sender].sent;
      r.tasks[sender].sentBytes += bytes;
    }
    if (received) {
      ++r.tasks[receiver].received;
      r.tasks[receiver].receivedBytes += bytes;
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
