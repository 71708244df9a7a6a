// failure_marks.cpp -- failed and timed-out calls on the diagram
// (failure_marks.h).
#include "failure_marks.h"

#include <QPainter>
#include <QPolygonF>

#include <algorithm>

namespace xab::view {

void drawOutcomeGlyph(QPainter& p, QPointF c, double r, CallOutcome outcome) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  if (outcome == CallOutcome::Failed) {
    p.setPen(QPen(kFailedCall, r >= 3 ? 2.0 : 1.0));
    p.drawLine(QPointF(c.x() - r, c.y() - r), QPointF(c.x() + r, c.y() + r));
    p.drawLine(QPointF(c.x() - r, c.y() + r), QPointF(c.x() + r, c.y() - r));
  } else if (outcome == CallOutcome::TimedOut) {
    p.setPen(QPen(Qt::black, 0.5));
    p.setBrush(kTimedOutCall);
    p.drawPolygon(QPolygonF({QPointF(c.x() - r, c.y() - r), QPointF(c.x() + r, c.y() - r), QPointF(c.x(), c.y() + r)}));
  }
  p.restore();
}

std::size_t paintOutcomeMarks(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot* s = st.snapshot();
  if (!s || !s->analysis) return 0;
  const FailureReport& f = s->failures();
  if (f.marked.empty()) return 0;
  const Trace& trace = *s->trace;
  const TimeNs until = std::min(layout.end, st.cursorTime());
  const double r = std::clamp(layout.rowHeight / 2 - 2, 1.0, 4.5);
  std::size_t drawn = 0;
  const auto [firstRow, lastRow] = layout.visibleRows();
  for (TaskIndex row = firstRow; row < lastRow; ++row) {
    const TaskIndex t = layout.taskOfRow(row);
    if (t >= f.marked.size() || f.marked[t].empty() || layout.groupOfRow(row)) continue;
    const auto& events = trace.events(t);
    const auto& marks = f.marked[t];
    // A task's records are in its own time order: the first in view by binary search.
    auto it = std::lower_bound(marks.begin(), marks.end(), layout.begin,
                               [&](std::uint32_t i, TimeNs time) { return events[i].time < time; });
    const double y = layout.rowTop(t) + layout.rowHeight / 2;
    double lastX = -1e9;
    for (; it != marks.end() && events[*it].time <= until; ++it) {
      const double x = layout.xOf(events[*it].time);
      if (x - lastX < kFoldPixels) continue;
      drawOutcomeGlyph(p, QPointF(x, y), r, outcomeOf(events[*it]));
      lastX = x;
      ++drawn;
    }
  }
  return drawn;
}

}  // namespace xab::view
