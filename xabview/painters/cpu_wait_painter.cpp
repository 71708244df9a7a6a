// cpu_wait_painter.cpp -- the time a task waited for a CPU, hatched over
// its row (diagram_painter.h, paintCpuWaits): between two of its samples
// (model/samples.h) where it was runnable without a CPU a tenth of the
// interval or more, up to the replay position.
#include "diagram_painter.h"

#include <QBrush>

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
  for (TaskIndex row = firstRow; row < lastRow; ++row) {
    TaskIndex t = layout.taskOfRow(row);
    if (t >= samples.tasks.size() || layout.groupOfRow(row)) continue;  // a folded row: its members differ
    const TaskSamples& ts = samples.tasks[t];
    for (std::size_t k = 1; k < ts.at.size() && ts.at[k] <= st.cursorTime(); ++k) {
      TimeNs span = ts.at[k] - ts.at[k - 1];
      if (span <= 0 || (ts.runnable[k] - ts.runnable[k - 1]) * 10 < span) continue;
      if (ts.at[k] < layout.begin || ts.at[k - 1] > layout.end) continue;
      p.drawRect(QRectF(layout.xOf(ts.at[k - 1]), layout.rowTop(t) + 1, layout.xOf(ts.at[k]) - layout.xOf(ts.at[k - 1]),
                        layout.rowHeight - 2));
    }
  }
  p.restore();
}

}  // namespace xab::view
