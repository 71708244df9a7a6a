#include "marks.h"

#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace xab::view {

namespace {

// The marks whose times fall in [from, to]: [lo, hi) of ViewSnapshot::marks.
std::pair<std::size_t, std::size_t> marksBetween(const std::vector<MarkAt>& marks, TimeNs from, TimeNs to) {
  auto lo = std::lower_bound(marks.begin(), marks.end(), from, [](const MarkAt& m, TimeNs t) { return m.time < t; });
  auto hi = std::upper_bound(lo, marks.end(), to, [](TimeNs t, const MarkAt& m) { return t < m.time; });
  return {static_cast<std::size_t>(lo - marks.begin()), static_cast<std::size_t>(hi - marks.begin())};
}

}  // namespace

std::size_t paintMarks(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot* s = st.snapshot();
  if (!s || !s->analysis) return 0;
  const auto& marks = s->marks();
  auto [lo, hi] = marksBetween(marks, layout.begin, layout.end);
  const auto [firstRow, lastRow] = layout.visibleRows();
  const double ns = layout.nsPerPixel();
  std::unordered_set<std::uint64_t> drawn;  // (row, pixel column)
  std::vector<std::pair<TaskIndex, int>> shown;  // (row, column) of each mark to draw, in time order
  int column = INT32_MIN, inColumn = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    const MarkAt& m = marks[i];
    const double x = layout.xOf(m.time);
    const int c = static_cast<int>(std::floor(x));
    if (c != column) column = c, inColumn = 0;
    if (++inColumn > kMaxMarksPerColumn) {  // enough of this column: on to the next
      const TimeNs next = layout.begin + static_cast<TimeNs>(std::ceil((c + 1 - layout.plot().left()) * ns));
      auto it = std::lower_bound(marks.begin() + static_cast<long>(i), marks.begin() + static_cast<long>(hi), next,
                                 [](const MarkAt& a, TimeNs t) { return a.time < t; });
      const auto j = static_cast<std::size_t>(it - marks.begin());
      if (j > i + 1) i = j - 1;
      continue;
    }
    const TaskIndex row = layout.rowOf(m.task);
    if (row < firstRow || row >= lastRow || m.index >= st.shownOf(m.task)) continue;
    if (!drawn.insert((std::uint64_t{row} << 32) | static_cast<std::uint32_t>(c)).second) continue;
    shown.emplace_back(row, c);
  }
  // Per row, in column order: a mark with no other within kMarkGap pixels
  // gets its tick and flag; a run of closer ones a strip along the row's
  // top from its first to its last.
  std::stable_sort(shown.begin(), shown.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<QLineF> ticks;
  std::vector<QPolygonF> flags;
  std::vector<QRectF> strips;
  for (std::size_t i = 0; i < shown.size();) {
    std::size_t j = i + 1;
    while (j < shown.size() && shown[j].first == shown[i].first && shown[j].second - shown[j - 1].second < kMarkGap) ++j;
    const double top = layout.rowTopOfRow(shown[i].first), h = layout.rowHeight;
    if (j == i + 1) {
      const double px = shown[i].second + 0.5, flag = std::clamp(h / 2, 2.0, 5.0);
      ticks.emplace_back(px, top + 1, px, top + h - 1);
      flags.push_back(QPolygonF({QPointF(px - flag, top), QPointF(px + flag, top), QPointF(px, top + flag)}));
    } else {
      strips.emplace_back(shown[i].second, top, shown[j - 1].second + 1 - shown[i].second, std::clamp(h / 8, 1.0, 3.0));
    }
    i = j;
  }
  p.save();
  p.setPen(QPen(kMarkColor, 0));
  p.drawLines(ticks.data(), static_cast<int>(ticks.size()));
  for (const auto& r : strips) p.fillRect(r, kMarkColor);
  p.setBrush(kMarkColor);
  for (const auto& f : flags) p.drawPolygon(f);
  p.restore();
  return shown.size();
}

std::optional<std::size_t> markAt(const DiagramLayout& layout, const ViewState& st, QPointF at) {
  const ViewSnapshot* s = st.snapshot();
  const auto task = layout.taskAt(at.y());
  if (!s || !s->analysis || !task) return std::nullopt;
  const auto& marks = s->marks();
  auto [lo, hi] = marksBetween(marks, layout.timeAt(at.x() - 4), layout.timeAt(at.x() + 4));
  std::optional<std::size_t> best;
  double bestDistance = 4.0;
  for (std::size_t i = lo; i < hi; ++i) {
    if (marks[i].task != *task || marks[i].index >= st.shownOf(*task)) continue;
    const double d = std::abs(layout.xOf(marks[i].time) - at.x());
    if (d <= bestDistance) bestDistance = d, best = i;
  }
  return best;
}

}  // namespace xab::view
