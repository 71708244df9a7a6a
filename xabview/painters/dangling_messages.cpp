#include "dangling_messages.h"

#include <QPainter>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace xab::view {

std::vector<DanglingMessage> danglingAt(const ViewSnapshot& s, std::size_t position, TimeNs now) {
  std::vector<DanglingMessage> out;
  if (!s.analysis) return out;
  const auto& messages = s.messages().messages;
  for (const Undelivered& u : s.undelivered()) {
    if (u.sendPos >= position) continue;
    const Message& m = messages[u.message];
    out.push_back({m.time, m.sender, u.receiver, u.message, true});
  }
  // At the last record every receive is shown: no line is in flight.
  if (position >= s.size()) return out;
  const MessageLines& lines = s.lines();
  // A receive not shown yet is no earlier than its task's last record shown
  // (a task's records come in its own order), and its send at most the
  // longest transit before that: only sends from there on can be in flight.
  TimeNs earliest = now;
  const Trace& trace = *s.trace;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    const auto& events = trace.events(t);
    const std::uint32_t shown = position >= s.size() ? static_cast<std::uint32_t>(events.size()) : s.prefixAt(t, position);
    if (shown < events.size()) earliest = std::min(earliest, events[shown > 0 ? shown - 1 : 0].time);
  }
  const TimeNs from = earliest - std::min(s.maxTransit(), earliest - INT64_MIN / 2);
  const std::size_t lo = lines.lowerBound(from, 0, lines.size());
  const std::size_t hi = now == INT64_MAX ? lines.size() : lines.lowerBound(now + 1, lo, lines.size());
  ShownRecords shown(s, position);
  std::size_t known = SIZE_MAX;
  std::uint32_t rank = 0;
  for (std::size_t i = lo; i < hi && !shown.all(); ++i)  // at the end nothing is in flight
    if (shown.shown(lines.sendRef(i)) && !shown.shown(lines.recvRef(i, known, rank)))
      out.push_back({lines.send(i), lines.sender(i), lines.receiver(i), lines.message(i), false});
  return out;
}

std::size_t paintDangling(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot* s = st.snapshot();
  if (!s || !s->analysis) return 0;
  const TimeNs now = st.nowTime();
  auto all = danglingAt(*s, st.position(), now);
  // Live, while the analysis lags the records, a message its records do
  // not see received may be received in those after them: arrows for
  // those wait for an analysis of every record (the input pausing).
  if (!s->analysisComplete())
    all.erase(std::remove_if(all.begin(), all.end(), [](const DanglingMessage& d) { return d.never; }), all.end());
  const QRectF plot = layout.plot();
  const double xEnd = layout.xOf(now);
  if (all.empty() || xEnd < plot.left()) return 0;
  // The oldest first; one arrow per pair of rows and send column of
  // kFoldPixels (a paused busy program has thousands in flight, each a
  // dashed antialiased line: a third of a millisecond).
  std::stable_sort(all.begin(), all.end(), [](const DanglingMessage& a, const DanglingMessage& b) { return a.send < b.send; });
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> seen;  // rows and column
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  QPen pen(kDanglingMessage, 1.5, Qt::DashLine);
  std::size_t drawn = 0;
  for (const DanglingMessage& d : all) {
    if (drawn >= kMaxDanglingArrows) break;
    const double x0 = layout.xOf(d.send);
    if (x0 > plot.right() || !layout.drawn(d.sender) || !layout.drawn(d.receiver)) continue;
    if (!seen.emplace(static_cast<std::int64_t>(layout.rowTop(d.sender)), static_cast<std::int64_t>(layout.rowTop(d.receiver)),
                      static_cast<std::int64_t>(std::max(0.0, x0 - plot.left()) / kFoldPixels))
             .second)
      continue;
    const QPointF a(x0, layout.rowTop(d.sender) + layout.rowHeight / 2);
    const QPointF b(std::max(xEnd, x0 + 6), layout.rowTop(d.receiver) + layout.rowHeight / 2);
    p.setPen(pen);
    p.drawLine(a, b);
    // An open head at the end: it points at the receiver, which has not taken it.
    const double angle = std::atan2(b.y() - a.y(), b.x() - a.x());
    p.setPen(QPen(kDanglingMessage, 1.5));
    for (double side : {-0.45, 0.45})
      p.drawLine(b, b - QPointF(7 * std::cos(angle + side), 7 * std::sin(angle + side)));
    ++drawn;
  }
  p.restore();
  return drawn;
}

}  // namespace xab::view
