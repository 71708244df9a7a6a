#include "diagram_hit.h"

#include "marks.h"
#include "span_search.h"

#include <algorithm>
#include <cmath>

namespace xab::view {

DiagramHit hitTest(const DiagramLayout& layout, const ViewState& st, QPointF at) {
  DiagramHit hit;
  const ViewSnapshot* s = st.snapshot();
  if (!s || !layout.plot().contains(at)) return hit;
  hit.time = layout.timeAt(at.x());
  hit.task = layout.taskAt(at.y());
  double best = 4.0;
  const MessageLines& lines = s->lines();
  auto [lo, hi] = visibleLines(*s, layout.timeAt(at.x() - 4), layout.timeAt(at.x() + 4));
  for (std::size_t i = lo; i < hi; ++i) {
    const TaskIndex from = lines.sender(i), to = lines.receiver(i);
    if (!layout.drawn(from) || !layout.drawn(to) || lines.sendRef(i).index >= st.shownOf(from) ||
        lines.recvRef(i).index >= st.shownOf(to))
      continue;
    QPointF a(layout.xOf(lines.send(i)), layout.rowTop(from) + layout.rowHeight / 2);
    QPointF b(layout.xOf(lines.recv(i)), layout.rowTop(to) + layout.rowHeight / 2);
    QPointF d = b - a;
    double len2 = QPointF::dotProduct(d, d);
    double u = len2 > 0 ? std::clamp(QPointF::dotProduct(at - a, d) / len2, 0.0, 1.0) : 0.0;
    QPointF q = a + u * d - at;
    double dist = std::sqrt(QPointF::dotProduct(q, q));
    if (dist < best) {
      best = dist;
      hit.message = lines.message(i);
    }
  }
  if (!hit.task) return hit;
  hit.mark = markAt(layout, st, at);
  // A folded row: no one task's span under the pointer.
  if (layout.groupOfRow(layout.rowOf(*hit.task))) return hit;
  const auto& spans = s->spans[*hit.task];
  if (spans.empty()) return hit;
  std::size_t i = spanAtOrBefore(spans, hit.time);
  const std::uint32_t shown = st.shownOf(*hit.task);
  if (spans[i].begin > hit.time || spans[i].first >= shown) return hit;
  const TimeNs end = shownEnd(spans, i, shown, shownLimit(st, *hit.task));
  if (hit.time >= end) return hit;
  hit.span = spans[i];
  hit.spanEnd = end;
  hit.position = s->positionOf({*hit.task, spans[i].first});
  return hit;
}

}  // namespace xab::view
