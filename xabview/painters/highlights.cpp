#include "highlights.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace xab::view {

std::size_t paintHighlights(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  const auto& all = st.highlights();
  if (all.empty() || layout.rows == 0) return 0;
  const QRectF plot = layout.plot();
  const auto rows = layout.visibleRows();
  const TaskIndex firstRow = rows.first, lastRow = rows.second;
  auto rowShown = [&](TaskIndex task) {
    const TaskIndex row = layout.rowOf(task);
    return row != kNoRow && row >= firstRow && row < lastRow;
  };
  p.save();
  p.setClipRect(plot);
  std::size_t drawn = 0;
  // Per (kind, task): the right edge drawn so far, in whole pixels.
  std::unordered_map<std::uint64_t, double> drawnTo;
  std::vector<QPointF> path;  // the critical path's points, in time order
  for (const Highlight& h : all) {
    if (h.end < layout.begin || h.begin > layout.end || !rowShown(h.task)) continue;
    const double x0 = std::max(plot.left() - 2, layout.xOf(h.begin));
    const double x1 = std::min(plot.right() + 2, std::max(layout.xOf(h.end), x0 + 1));
    const double top = layout.rowTop(h.task);
    if (h.kind == Highlight::Critical) {
      const double mid = top + layout.rowHeight / 2;
      path.emplace_back(x0, mid);
      path.emplace_back(x1, mid);
      continue;
    }
    const std::uint64_t key = (static_cast<std::uint64_t>(h.kind) << 32) | h.task;
    auto [it, added] = drawnTo.try_emplace(key, -1e9);
    if (!added && std::floor(x1) <= it->second) continue;
    it->second = std::floor(x1);
    const QColor& c = h.kind == Highlight::Wait ? kHighlightWait : kHighlightCause;
    QColor fill = c;
    fill.setAlpha(60);
    const QRectF r(x0, top + 1, x1 - x0, std::max(1.0, layout.rowHeight - 2));
    p.fillRect(r, fill);
    p.setPen(QPen(c, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
    ++drawn;
  }
  if (!path.empty()) {
    // Along each step's row, and from one step's end to the next's start
    // (the message or release that hands the path to another task).
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(kHighlightCritical, 3, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.drawPolyline(path.data(), static_cast<int>(path.size()));
    drawn += path.size() / 2;
  }
  p.restore();
  return drawn;
}

}  // namespace xab::view
