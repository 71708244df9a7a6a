// cpu_wait_painter.cpp -- the time a task waited for a CPU, hatched over
// its row (diagram_painter.h, paintCpuWaits): between two of its samples
// (model/samples.h) where it was runnable without a CPU a tenth of the
// interval or more, up to the replay position.
#include "diagram_painter.h"

#include <QBrush>

#include <algorithm>
#include <vector>

namespace xab::view {

void paintCpuWaits(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot* s = st.snapshot();
  if (!s || !s->analysis) return;
  const SampleReport& samples = s->analysis->model.samples;
  if (!samples.anyTask) return;
  p.save();
  p.setPen(Qt::NoPen);
  p.setBrush(QBrush(kCpuWaitHatch, Qt::BDiagPattern));
  const auto [firstRow, lastRow] = layout.visibleRows();
  std::vector<QRectF> rects;
  for (TaskIndex row = firstRow; row < lastRow; ++row) {
    TaskIndex t = layout.taskOfRow(row);
    if (t >= samples.tasks.size() || layout.groupOfRow(row)) continue;  // a folded row: its members differ
    const TaskSamples& ts = samples.tasks[t];
    // Only the intervals in view are read (by binary search: samples come
    // in time order), and touching ones are drawn as one rectangle.
    const TimeNs until = std::min(layout.end, st.cursorTime());
    auto from = std::lower_bound(ts.at.begin(), ts.at.end(), layout.begin);
    std::size_t k = std::max<std::size_t>(1, static_cast<std::size_t>(from - ts.at.begin()));
    const double top = layout.rowTop(t) + 1, height = layout.rowHeight - 2;
    double x0 = 0, x1 = -1;  // the run being gathered; none while x1 < x0
    for (; k < ts.at.size() && ts.at[k - 1] <= until && ts.at[k] <= st.cursorTime(); ++k) {
      TimeNs span = ts.at[k] - ts.at[k - 1];
      if (span <= 0 || (ts.runnable[k] - ts.runnable[k - 1]) * 10 < span) continue;
      const double a = layout.xOf(ts.at[k - 1]), b = layout.xOf(ts.at[k]);
      if (x1 >= x0 && a <= x1) {  // touching: the run goes on
        x1 = b;
        continue;
      }
      if (x1 >= x0) rects.emplace_back(x0, top, x1 - x0, height);
      x0 = a, x1 = b;
    }
    if (x1 >= x0) rects.emplace_back(x0, top, x1 - x0, height);
  }
  p.drawRects(rects.data(), static_cast<int>(rects.size()));
  p.restore();
}

}  // namespace xab::view
