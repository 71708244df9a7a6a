#include "overview_view.h"

#include <QAction>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace xab::view {
namespace {
constexpr int kAxis = 16;  // the whole run's time axis
}

OverviewView::OverviewView(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  setObjectName("overview");
  setMinimumHeight(40);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  setCursor(Qt::OpenHandCursor);
  setToolTip("The whole run; the box is what the diagram shows. Drag the box to pan, press elsewhere to go there "
             "(View > Overview hides this strip)");
  toggle_ = new QAction("Overview of the whole run", this);
  toggle_->setObjectName("showOverview");
  toggle_->setCheckable(true);
  toggle_->setChecked(true);
  connect(toggle_, &QAction::toggled, this, &QWidget::setVisible);
  connect(state_, &ViewState::snapshotChanged, this, &OverviewView::follow);
  connect(state_, &ViewState::positionChanged, this, &OverviewView::follow);
  connect(state_, &ViewState::rangeChanged, this, [this] { update(); });
  connect(state_, &ViewState::selectionChanged, this, [this] { update(); });
  whole_.setRowChoice(state_->rowChoice());
  connect(state_, &ViewState::rowsChanged, this, [this] {  // the same rows as the diagram
    whole_.setRowChoice(state_->rowChoice());
    update();
  });
}

void OverviewView::follow() {
  if (state_->snapshotPtr() != whole_.snapshotPtr()) whole_.setSnapshot(state_->snapshotPtr());
  if (state_->live()) whole_.setLive(true);
  else if (whole_.live() || whole_.position() != state_->position()) whole_.setPosition(state_->position());
  whole_.fitAll();
  update();
}

DiagramLayout OverviewView::layout() const {
  DiagramLayout l = DiagramLayout::make(rect(), whole_, false);  // no load strips: a row may be a pixel
  l.axisHeight = kAxis;
  // Every row in the strip while rows get a pixel; more tasks: the first ones.
  if (l.rows) l.rowHeight = std::max(1.0, (height() - kAxis - 2) / static_cast<double>(l.rows));
  return l;
}

QRectF OverviewView::box() const {
  const DiagramLayout l = layout();
  const QRectF plot = l.plot();
  double x0 = std::clamp(l.xOf(state_->viewBegin()), plot.left(), plot.right());
  double x1 = std::clamp(l.xOf(state_->viewEnd()), plot.left(), plot.right());
  if (x1 - x0 < 3) {  // a narrow view is still a box to grab
    const double c = (x0 + x1) / 2;
    x0 = c - 1.5;
    x1 = c + 1.5;
  }
  return QRectF(x0, plot.top(), x1 - x0, plot.height() - 1);
}

void OverviewView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const DiagramLayout l = layout();
  DiagramOptions o;
  o.messages = false;  // the states alone: lines and bands of the whole run are noise here
  o.barriers = false;
  o.labels = false;
  paintDiagram(p, l, whole_, o);
  if (!whole_.snapshot() || l.rows == 0) return;
  const QRectF plot = l.plot(), b = box();
  p.fillRect(QRectF(plot.left(), plot.top(), b.left() - plot.left(), plot.height()), QColor(0, 0, 0, 60));
  p.fillRect(QRectF(b.right(), plot.top(), plot.right() - b.right(), plot.height()), QColor(0, 0, 0, 60));
  p.setPen(QPen(QColor(0x15, 0x65, 0xc0), 2));
  p.drawRect(b);
  p.setPen(Qt::black);
  p.drawText(QRectF(4, 0, l.labelWidth - 8, height()), Qt::AlignVCenter | Qt::AlignLeft, "Whole run");
}

void OverviewView::dragTo(double x) {
  const DiagramLayout l = layout();
  const TimeNs width = state_->viewEnd() - state_->viewBegin();
  const TimeNs begin = l.timeAt(x) - grab_;
  state_->setViewRange(begin, begin + width);
}

void OverviewView::mousePressEvent(QMouseEvent* e) {
  const DiagramLayout l = layout();
  if (e->button() != Qt::LeftButton || !whole_.snapshot() || e->position().x() < l.plot().left()) return;
  const QRectF b = box();
  const double x = e->position().x();
  // Grabbed inside the box: it keeps that point under the pointer; outside: centred there.
  grab_ = x >= b.left() - 2 && x <= b.right() + 2 ? l.timeAt(x) - state_->viewBegin()
                                                 : (state_->viewEnd() - state_->viewBegin()) / 2;
  dragging_ = true;
  setCursor(Qt::ClosedHandCursor);
  dragTo(x);
}

void OverviewView::mouseMoveEvent(QMouseEvent* e) {
  if (dragging_) dragTo(e->position().x());
}

void OverviewView::mouseReleaseEvent(QMouseEvent*) {
  dragging_ = false;
  setCursor(Qt::OpenHandCursor);
}

}  // namespace xab::view
