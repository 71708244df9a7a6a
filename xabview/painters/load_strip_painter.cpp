// load_strip_painter.cpp -- each host's load strip under its rows
// (diagram_painter.h, paintLoadStrips; load_strips.h), and where the
// strips sit among the rows (DiagramLayout's strip members).
#include "diagram_painter.h"

#include <algorithm>
#include <cmath>

namespace xab::view {

std::size_t DiagramLayout::stripsAbove(TaskIndex row) const {
  auto it = std::partition_point(strips.begin(), strips.end(), [row](const LoadStrip& s) { return s.lastRow < row; });
  return static_cast<std::size_t>(it - strips.begin());
}

double DiagramLayout::stripTop(std::size_t strip) const {
  return rowTopOfRow(strips[strip].lastRow) + rowHeight;
}

std::optional<std::size_t> DiagramLayout::stripAt(double y) const {
  for (std::size_t i = 0; i < strips.size(); ++i) {
    const double top = stripTop(i);
    if (y < top) break;
    if (y < top + stripHeight) return i;
  }
  return std::nullopt;
}

TaskIndex DiagramLayout::rowAt(double y) const {
  if (stripAt(y)) return kNoRow;
  // Under k strips, a row is k strips lower than rowHeight alone puts it.
  const double off = y - plot().top() - 2;
  std::size_t k = 0;
  while (k < strips.size() && y >= stripTop(k) + stripHeight) ++k;
  const double r = (off - stripHeight * static_cast<double>(k)) / rowHeight;
  if (r < 0 || r >= static_cast<double>(rows)) return kNoRow;
  return static_cast<TaskIndex>(r);
}

std::size_t paintLoadStrips(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot* s = st.snapshot();
  if (!s || layout.strips.empty()) return 0;
  const QRectF plot = layout.plot();
  const TimeNs now = std::min(st.cursorTime(), layout.end);
  std::size_t rects = 0;
  p.save();
  p.setPen(Qt::NoPen);
  for (std::size_t i = 0; i < layout.strips.size(); ++i) {
    const LoadStrip& strip = layout.strips[i];
    const double top = layout.stripTop(i);
    if (top > layout.area.bottom() || top + layout.stripHeight < plot.top()) continue;
    // Per pixel column, the load at its middle (HostLoad::at); runs of one
    // colour are one rectangle.
    const int from = std::max(0, static_cast<int>(std::floor(layout.xOf(strip.load->points.front().at) - plot.left())));
    const int to = std::min(static_cast<int>(plot.width()), static_cast<int>(std::ceil(layout.xOf(now) - plot.left())));
    QRgb run = 0;
    int runStart = from;
    auto flush = [&](int end) {
      if (run != 0 && end > runStart) {
        p.fillRect(QRectF(plot.left() + runStart, top, end - runStart, layout.stripHeight), QColor::fromRgb(run));
        ++rects;
      }
    };
    for (int c = from; c < to; ++c) {
      const LoadPoint* at = strip.load->at(layout.timeAt(plot.left() + c + 0.5));
      const QRgb color = at ? loadColor(loadPerCpu(*at)).rgb() : 0;
      if (color == run) continue;
      flush(c);
      run = color;
      runStart = c;
    }
    flush(to);
  }
  p.restore();
  return rects;
}

}  // namespace xab::view
