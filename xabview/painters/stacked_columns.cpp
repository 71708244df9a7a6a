// stacked_columns.cpp -- activities per pixel column as stacked shares: the
// utilization strip (all tasks) and a folded row (its members).
#include "diagram_painter.h"
#include "utilization.h"

#include <QPainter>

#include <cmath>

namespace xab::view {

std::size_t paintStackedColumns(QPainter& p, const QRectF& box, const std::vector<std::array<int, kActivityCount>>& counts,
                                double total) {
  static constexpr Activity order[] = {Activity::Computing, Activity::Communicating, Activity::Blocked, Activity::Barrier};
  if (total <= 0) return 0;
  std::array<std::vector<QRect>, 4> bars;
  const int columns = std::min(static_cast<int>(box.width()), static_cast<int>(counts.size()));
  for (int x = 0; x < columns;) {
    // A run of columns with the same counts: one rectangle per activity.
    int to = x + 1;
    while (to < columns && counts[static_cast<std::size_t>(to)] == counts[static_cast<std::size_t>(x)]) ++to;
    const auto& n = counts[static_cast<std::size_t>(x)];
    double y = box.bottom();
    for (std::size_t k = 0; k < 4; ++k) {
      double h = box.height() * n[static_cast<std::size_t>(order[k])] / total;
      if (h <= 0) continue;
      y -= h;
      bars[k].push_back(QRect(static_cast<int>(box.left()) + x, static_cast<int>(std::lround(y)), to - x,
                              std::max(1, static_cast<int>(std::lround(h)))));
    }
    x = to;
  }
  std::size_t drawn = 0;
  p.save();
  p.setPen(Qt::NoPen);
  for (std::size_t k = 0; k < 4; ++k) {
    p.setBrush(activityColor(order[k]));
    p.drawRects(bars[k].data(), static_cast<int>(bars[k].size()));
    drawn += bars[k].size();
  }
  p.restore();
  return drawn;
}

std::size_t paintGroupRow(QPainter& p, const DiagramLayout& layout, const ViewState& st, TaskIndex row,
                          const RowGroup& group) {
  const QRectF plot = layout.plot();
  const double top = layout.rowTopOfRow(row) + 1, height = std::max(1.0, layout.rowHeight - 2);
  const auto counts = utilizationColumns(st, layout.begin, layout.nsPerPixel(), static_cast<int>(plot.width()), &group.members);
  return paintStackedColumns(p, QRectF(plot.left(), top, plot.width(), height), counts, static_cast<double>(group.members.size()));
}

}  // namespace xab::view
