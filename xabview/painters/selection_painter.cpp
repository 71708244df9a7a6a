// selection_painter.cpp -- the selection on the diagram (diagram_painter.h,
// paintSelection): a yellow dot on the selected record's row, where it was
// clicked or at the record's time; a clicked message's lines highlighted,
// with a dot at each receive shown at the replay position.
#include "diagram_painter.h"

namespace xab::view {

void paintSelection(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot& s = *st.snapshot();
  const auto sel = st.selected();
  if (!sel) return;
  const OrderEntry oe = s.order[*sel];
  if (oe.task == kMonitorTask) return;
  auto mid = [&](TaskIndex task) { return layout.rowTop(task) + layout.rowHeight / 2; };
  auto dot = [&](QPointF at, double radius) {
    p.setPen(QPen(Qt::black, 2));
    p.setBrush(Qt::yellow);
    p.drawEllipse(at, radius, radius);
    p.setBrush(Qt::NoBrush);
  };
  p.save();
  std::vector<QPointF> receives;
  if (const auto m = st.selectedMessage(); m && s.analysis && *m < s.messages().messages.size()) {
    const Message& msg = s.messages().messages[*m];
    const QPointF from(layout.xOf(msg.time), mid(msg.sender));
    for (const MessageReceive& r : msg.receives) {
      if (s.positionOf(r.recv) >= st.position()) continue;  // not received yet at the replay position
      if (!layout.drawn(msg.sender) || !layout.drawn(r.recv.task)) continue;  // hidden (View > Rows)
      const QPointF to(layout.xOf(s.trace->event(r.recv).time), mid(r.recv.task));
      p.setPen(QPen(Qt::black, 5, Qt::SolidLine, Qt::RoundCap));
      p.drawLine(from, to);
      p.setPen(QPen(kSelectedMessage, 3, Qt::SolidLine, Qt::RoundCap));
      p.drawLine(from, to);
      receives.push_back(to);
    }
  }
  for (const QPointF& r : receives) dot(r, 4);
  if (layout.drawn(oe.task)) dot(QPointF(layout.xOf(st.selectedTime().value_or(s.event(oe).time)), mid(oe.task)), 5);
  p.restore();
}

}  // namespace xab::view
