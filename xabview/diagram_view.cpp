#include "diagram_view.h"

#include "activity.h"

#include <QElapsedTimer>
#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <QSvgGenerator>

namespace xab::view {

DiagramView::DiagramView(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  setObjectName("diagram");
  setMouseTracking(true);
  setMinimumHeight(120);
  setFocusPolicy(Qt::StrongFocus);
  auto repaint = [this] { update(); };
  connect(state_, &ViewState::snapshotChanged, this, repaint);
  connect(state_, &ViewState::positionChanged, this, repaint);
  connect(state_, &ViewState::rangeChanged, this, repaint);
  connect(state_, &ViewState::selectionChanged, this, repaint);
}

void DiagramView::paintEvent(QPaintEvent*) {
  QElapsedTimer clock;
  clock.start();
  QPainter p(this);
  stats_ = paintDiagram(p, DiagramLayout::make(rect(), *state_), *state_);
  lastPaintMs_ = static_cast<double>(clock.nsecsElapsed()) / 1e6;
}

bool DiagramView::save(const QString& file, QString* error) const {
  auto paintInto = [&](QPaintDevice& dev, const QRect& r) {
    QPainter p(&dev);
    paintDiagram(p, DiagramLayout::make(r, *state_), *state_);
  };
  QRect r(QPoint(0, 0), size().expandedTo(QSize(800, 300)));
  if (file.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(file);
    svg.setSize(r.size());
    svg.setViewBox(r);
    svg.setTitle("xabview space-time diagram");
    paintInto(svg, r);
    return true;
  }
  QImage img(r.size(), QImage::Format_RGB32);
  paintInto(img, r);
  if (img.save(file)) return true;
  if (error) *error = "cannot write " + file;
  return false;
}

void DiagramView::zoomIn() { state_->zoom(0.5, (state_->viewBegin() + state_->viewEnd()) / 2); }
void DiagramView::zoomOut() { state_->zoom(2.0, (state_->viewBegin() + state_->viewEnd()) / 2); }
void DiagramView::panLeft() { state_->pan(-0.25); }
void DiagramView::panRight() { state_->pan(0.25); }

void DiagramView::wheelEvent(QWheelEvent* e) {
  auto L = DiagramLayout::make(rect(), *state_);
  double steps = e->angleDelta().y() / 120.0;
  if (e->modifiers() & Qt::ShiftModifier) {
    state_->pan(-0.1 * steps);
  } else {
    state_->zoom(std::pow(0.8, steps), L.timeAt(e->position().x()));
  }
  e->accept();
}

void DiagramView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  dragFrom_ = e->pos();
  dragging_ = true;
  dragged_ = false;
}

void DiagramView::mouseMoveEvent(QMouseEvent* e) {
  if (!dragging_) return;
  int dx = e->pos().x() - dragFrom_.x();
  if (std::abs(dx) < 3 && !dragged_) return;
  dragged_ = true;
  auto L = DiagramLayout::make(rect(), *state_);
  state_->pan(-dx / L.plot().width());
  dragFrom_ = e->pos();
}

void DiagramView::mouseReleaseEvent(QMouseEvent* e) {
  dragging_ = false;
  if (dragged_ || e->button() != Qt::LeftButton) return;
  auto hit = hitTest(DiagramLayout::make(rect(), *state_), *state_, e->position());
  const ViewSnapshot* s = state_->snapshot();
  if (hit.message && s) state_->select(s->positionOf(s->messages.messages[*hit.message].send));
  else if (hit.position) state_->select(hit.position);
}

QString DiagramView::describe(const DiagramHit& hit) const {
  const ViewSnapshot* s = state_->snapshot();
  if (!s) return {};
  QStringList lines;
  if (hit.message) {
    const Message& m = s->messages.messages[*hit.message];
    QString to;
    for (const auto& r : m.receives) to += " " + QString::fromStdString(s->trace->label(r.receiver));
    lines << QStringLiteral("message %1 -> %2").arg(QString::fromStdString(s->trace->label(m.sender)), to.trimmed())
          << QStringLiteral("tag %1, %2 bytes, serial %3").arg(QString::fromStdString(formatTag(m.tag))).arg(m.bytes).arg(m.serial);
    if (!m.receives.empty())
      lines << "in transit " + formatDuration(std::max<TimeNs>(0, m.receives.front().time - m.time));
  }
  if (hit.task && hit.span) {
    lines << QString::fromStdString(s->trace->label(*hit.task)) + ": " +
                 QString::fromStdString(std::string(stateName(hit.span->state)));
    const Event& e = s->eventAt(*hit.position);
    lines << QStringLiteral("from %1 s: %2%3 %4")
                 .arg(QString::fromStdString(formatSeconds(hit.span->begin, s->firstTime())),
                      QString::fromStdString(std::string(kindName(e.kind))), e.isBegin() ? ".begin" : "",
                      eventArgs(*s->trace, e));
  }
  lines << "t = " + QString::fromStdString(formatSeconds(hit.time, s->firstTime())) + " s";
  return lines.join('\n');
}

bool DiagramView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    auto hit = hitTest(DiagramLayout::make(rect(), *state_), *state_, he->pos());
    QString text = describe(hit);
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(he->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

UtilizationView::UtilizationView(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  setObjectName("utilization");
  setMinimumHeight(50);
  auto repaint = [this] { update(); };
  connect(state_, &ViewState::snapshotChanged, this, repaint);
  connect(state_, &ViewState::positionChanged, this, repaint);
  connect(state_, &ViewState::rangeChanged, this, repaint);
  setToolTip("Tasks computing (green), communicating (blue), blocked (red), in a barrier (orange)");
}

void UtilizationView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintUtilization(p, rect(), DiagramLayout{}.labelWidth, *state_);
}

}  // namespace xab::view
