#include "diagram_view.h"

#include "activity.h"
#include "failure_marks.h"
#include "record_find.h"
#include "row_actions.h"
#include "utilization_words.h"

#include <QElapsedTimer>
#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
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
  connect(state_, &ViewState::rowsChanged, this, repaint);
  rowActions_ = xab::view::rowActions(state_, this);
  connect(state_, &ViewState::snapshotChanged, this, &DiagramView::fitMinimumHeight);
  connect(state_, &ViewState::rowsChanged, this, &DiagramView::fitMinimumHeight);
}

void DiagramView::setLabelledRows(int rows, bool allOrNone) {
  labelledRows_ = rows;
  allOrNone_ = allOrNone;
  fitMinimumHeight();
}

// Room for a readable name on every row (folded rows count once), up to
// labelledRows_ rows (more get a name every few rows): the window's other
// parts give way first.
void DiagramView::fitMinimumHeight() {
  std::size_t rows = state_->snapshot() ? std::min<std::size_t>(state_->rowPlan().rows(), labelledRows_) : 0;
  if (allOrNone_ && state_->snapshot() && state_->rowPlan().rows() > static_cast<std::size_t>(labelledRows_)) rows = 0;
  DiagramLayout layout;
  int want = std::max(120, layout.axisHeight + 4 + static_cast<int>(std::ceil(static_cast<double>(rows) * kMinLabelRow)));
  if (want != minimumHeight()) setMinimumHeight(want);
}

void DiagramView::paintEvent(QPaintEvent*) {
  QElapsedTimer clock;
  clock.start();
  QPainter p(this);
  const DiagramLayout layout = DiagramLayout::make(rect(), *state_, layers_.loadStrips);
  paintDiagram(p, layout, *state_, layers_);
  if (measure_) {  // the range measured, shaded over the rows
    const QRectF plot = layout.plot();
    const double a = std::clamp(layout.xOf(std::min(measure_->first, measure_->second)), plot.left(), plot.right());
    const double b = std::clamp(layout.xOf(std::max(measure_->first, measure_->second)), plot.left(), plot.right());
    p.fillRect(QRectF(a, plot.top(), std::max(1.0, b - a), plot.height()), QColor(0x15, 0x65, 0xc0, 50));
  }
  if (rowDrag_ && rowDrop_ && *rowDrop_ != *rowDrag_) {  // where a dragged row goes: a line at that edge
    const double y = layout.rowTopOfRow(*rowDrop_ + (*rowDrop_ > *rowDrag_ ? 1 : 0));
    p.fillRect(QRectF(layout.area.left(), y - 1, layout.area.width(), 3), QColor(0x15, 0x65, 0xc0));
  }
  lastPaintMs_ = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  emit painted(lastPaintMs_);
}

void DiagramView::setLayers(const DiagramOptions& layers) {
  layers_ = layers;
  update();
}

bool DiagramView::save(const QString& file, QString* error) const {
  auto paintInto = [&](QPaintDevice& dev, const QRect& r) {
    QPainter p(&dev);
    paintDiagram(p, DiagramLayout::make(r, *state_, layers_.loadStrips), *state_, layers_);
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

void DiagramView::zoomIn() { state_->zoom(0.5, state_->zoomCenter()); }
void DiagramView::zoomOut() { state_->zoom(2.0, state_->zoomCenter()); }
void DiagramView::panLeft() { state_->pan(-0.25); }
void DiagramView::panRight() { state_->pan(0.25); }

void DiagramView::wheelEvent(QWheelEvent* e) {
  auto layout = DiagramLayout::make(rect(), *state_);
  double steps = e->angleDelta().y() / 120.0;
  if (e->modifiers() & Qt::ShiftModifier) {
    state_->pan(-0.1 * steps);
  } else {
    state_->zoom(std::pow(0.8, steps), layout.timeAt(e->position().x()));
  }
  e->accept();
}

std::optional<TaskIndex> DiagramView::rowAt(double y) const {
  const TaskIndex row = DiagramLayout::make(rect(), *state_, layers_.loadStrips).rowAt(y);
  if (row == kNoRow) return std::nullopt;
  return row;
}

void DiagramView::mouseDoubleClickEvent(QMouseEvent* e) {
  const auto layout = DiagramLayout::make(rect(), *state_);
  if (e->button() == Qt::LeftButton && e->position().x() < layout.plot().left())
    if (auto row = rowAt(e->position().y()); row && unfoldRow(state_, *row)) return;
  // A time only a memory budget's summary holds: its records read again.
  if (e->button() == Qt::LeftButton && layout.plot().contains(e->position()) && state_->askHistory(layout.timeAt(e->position().x())))
    return;
  QWidget::mouseDoubleClickEvent(e);
}

void DiagramView::contextMenuEvent(QContextMenuEvent* e) {
  QMenu menu(this);
  if (auto row = rowAt(e->pos().y())) addRowMenu(&menu, state_, *row);
  menu.addSection("Rows");
  menu.addActions(rowActions_);
  menu.exec(e->globalPos());
}

void DiagramView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  if (const auto l = DiagramLayout::make(rect(), *state_); state_->snapshot() && e->position().y() < l.plot().top() &&
      e->position().x() >= l.plot().left()) {  // the time axis: the replay shows what happened up to there
    state_->setPosition(positionAtTime(*state_->snapshot(), l.timeAt(e->position().x()) + 1) - 1);
    return;
  }
  measure_.reset();
  if (const auto l = DiagramLayout::make(rect(), *state_); e->position().x() < l.plot().left()) {
    rowDrag_ = rowAt(e->position().y());  // a name: drag it to move its row
    rowDrop_.reset();
    return;
  }
  if (e->modifiers() & Qt::ShiftModifier) {  // measure, not pan
    const TimeNs t = DiagramLayout::make(rect(), *state_).timeAt(e->position().x());
    measure_ = {t, t};
    measuring_ = true;
    return;
  }
  dragFrom_ = e->pos();
  dragging_ = true;
  dragged_ = false;
}

void DiagramView::mouseMoveEvent(QMouseEvent* e) {
  if (rowDrag_) {  // the row goes where the pointer is, within the rows
    const auto l = DiagramLayout::make(rect(), *state_);
    const double y = std::clamp(e->position().y(), l.plot().top() + 2, l.plot().top() + 2 + l.rowHeight * static_cast<double>(l.rows) - 1);
    rowDrop_ = rowAt(y);
    update();
    return;
  }
  if (measuring_ && measure_) {
    measure_->second = DiagramLayout::make(rect(), *state_).timeAt(e->position().x());
    update();
    return;
  }
  if (!dragging_) return;
  int dx = e->pos().x() - dragFrom_.x();
  if (std::abs(dx) < 3 && !dragged_) return;
  dragged_ = true;
  auto layout = DiagramLayout::make(rect(), *state_);
  state_->pan(-dx / layout.plot().width());
  dragFrom_ = e->pos();
}

void DiagramView::mouseReleaseEvent(QMouseEvent* e) {
  if (rowDrag_) {
    const auto from = *rowDrag_;
    const auto to = rowDrop_;
    rowDrag_.reset();
    rowDrop_.reset();
    if (to) moveRow(state_, from, *to);
    update();
    return;
  }
  if (measuring_ && measure_) {
    measuring_ = false;
    measure_->second = DiagramLayout::make(rect(), *state_).timeAt(e->position().x());
    update();
    emit rangeMeasured(std::min(measure_->first, measure_->second), std::max(measure_->first, measure_->second));
    return;
  }
  dragging_ = false;
  if (dragged_ || e->button() != Qt::LeftButton) return;
  auto hit = hitTest(DiagramLayout::make(rect(), *state_, layers_.loadStrips), *state_, e->position());
  const ViewSnapshot* s = state_->snapshot();
  if (!s) return;
  // Marked where clicked: a bar at the pointer's time, a message at its send.
  if (hit.mark) {
    const MarkAt& m = s->marks()[*hit.mark];
    state_->selectAt(s->positionOf({m.task, m.index}), m.time);
  } else if (hit.message) {
    const Message& m = s->messages().messages[*hit.message];
    state_->selectAt(s->positionOf(m.send), m.time, *hit.message);
  } else if (hit.position) {
    state_->selectAt(*hit.position, hit.time);
  }
}

QString DiagramView::describe(const DiagramHit& hit) const {
  const ViewSnapshot* s = state_->snapshot();
  if (!s) return {};
  QStringList lines;
  if (hit.message) {
    const Message& m = s->messages().messages[*hit.message];
    QString to;
    for (const auto& r : m.receives) to += " " + QString::fromStdString(s->trace->label(r.recv.task));
    lines << QStringLiteral("message %1 -> %2").arg(QString::fromStdString(s->trace->label(m.sender)), to.trimmed())
          << QStringLiteral("tag %1, %2 bytes, serial %3").arg(QString::fromStdString(formatTag(m.tag))).arg(m.bytes).arg(m.serial);
    if (!m.receives.empty())
      lines << "in transit " + formatDuration(std::max<TimeNs>(0, s->trace->event(m.receives.front().recv).time - m.time));
  }
  if (hit.mark) {  // a mark's tip is the mark's alone
    const MarkAt& m = s->marks()[*hit.mark];
    const Event& e = s->trace->events(m.task)[m.index];
    lines << QStringLiteral("mark \"%1\" by %2")
                 .arg(QString::fromUtf8(s->trace->str(e.get(Key::Text, -1))), QString::fromStdString(s->trace->label(m.task)));
    lines << "t = " + QString::fromStdString(formatSeconds(m.time, s->firstTime())) + " s";
    return lines.join('\n');
  }
  if (hit.task && hit.span && !hit.message) {  // a message's tip is the message's alone
    lines << QString::fromStdString(s->trace->label(*hit.task)) + ": " +
                 QString::fromStdString(std::string(stateName(hit.span->state)));
    const Event& e = s->eventAt(*hit.position);
    lines << QStringLiteral("from %1 s to %2 s (%3)")
                 .arg(QString::fromStdString(formatSeconds(hit.span->begin, s->firstTime())),
                      QString::fromStdString(formatSeconds(hit.spanEnd, s->firstTime())),
                      formatDuration(hit.spanEnd - hit.span->begin));
    lines << QStringLiteral("opened by %1%2 %3")
                 .arg(QString::fromStdString(std::string(kindName(e.kind))), e.isBegin() ? ".begin" : "",
                      eventArgs(*s->trace, e));
  }
  lines << "t = " + QString::fromStdString(formatSeconds(hit.time, s->firstTime())) + " s";
  return lines.join('\n');
}

// Over the names: the task, what it does now, and why its name is on a colour.
QString DiagramView::describeName(TaskIndex task) const {
  const ViewSnapshot* s = state_->snapshot();
  if (!s || task >= s->trace->taskCount()) return {};
  TaskActivity a = describeTask(*state_, task);
  QString text = QString::fromStdString(s->trace->label(task)) + ": " + a.text;
  if (a.kind == Activity::Blocked) text += "\n(name on pink: blocked at the replay position)";
  if (a.kind == Activity::Barrier) text += "\n(name on orange: in a barrier at the replay position)";
  return text;
}

bool DiagramView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    auto layout = DiagramLayout::make(rect(), *state_, layers_.loadStrips);
    QString text;
    if (auto strip = layout.stripAt(he->pos().y()); strip && state_->snapshot()) {  // a host's load: under the pointer, or now
      const TimeNs t = he->pos().x() < layout.plot().left() ? state_->cursorTime() : layout.timeAt(he->pos().x());
      text = loadStripText(layout.strips[*strip], t, state_->snapshot()->firstTime());
    } else if (he->pos().x() < layout.plot().left()) {
      if (auto task = layout.taskAt(he->pos().y())) text = describeName(*task);
    } else if (layout.plot().contains(he->pos())) {
      text = describe(hitTest(layout, *state_, he->pos()));
    }
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(he->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

UtilizationView::UtilizationView(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  setObjectName("utilization");
  setMinimumHeight(34);  // its two lines of words: at 800x500 the rest goes to the event log
  auto repaint = [this] { update(); };
  connect(state_, &ViewState::snapshotChanged, this, repaint);
  connect(state_, &ViewState::positionChanged, this, repaint);
  connect(state_, &ViewState::rangeChanged, this, repaint);
  setToolTip("How many tasks are computing (green), communicating: packing, sending, unpacking (blue), "
             "blocked: receiving or another blocking call, collective, spawning (red), in a barrier (orange)");
}

void UtilizationView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintUtilization(p, rect(), DiagramLayout{}.labelWidth, *state_);
  if (const ViewSnapshot* s = state_->snapshot(); s && s->trace->taskCount() > 0) {  // the scale: 0 to every task
    const int x = DiagramLayout{}.labelWidth - 3;
    p.setPen(QColor(0x60, 0x60, 0x60));
    p.drawLine(x, 2, x, height() - 3);
    QFont f = p.font();
    f.setPixelSize(9);
    p.setFont(f);
    const QRect r(x - 40, 0, 37, height());
    p.drawText(r, Qt::AlignRight | Qt::AlignTop, QString::number(s->trace->taskCount()));
    p.drawText(r, Qt::AlignRight | Qt::AlignBottom, "0");
  }
}

QString UtilizationView::readoutAt(double x) const {
  const DiagramLayout l = DiagramLayout::make(QRect(0, 0, width(), 10), *state_);
  if (!state_->snapshot() || x < l.plot().left()) return {};
  return utilizationText(*state_, l.timeAt(x));
}

bool UtilizationView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const QString text = readoutAt(help->pos().x());
    QToolTip::showText(help->globalPos(), text.isEmpty() ? toolTip() : text + "\n\n" + toolTip(), this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace xab::view

namespace xab::view {

LegendView::LegendView(QWidget* parent) : QWidget(parent), entries_(diagramLegend()) {
  setObjectName("legend");
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

// The box in the legend for the entries without room ("more...").
const QString kLegendMore = QStringLiteral("more\u2026");

LegendView::Placement LegendView::place(int width) const {
  QFontMetrics fm(font());
  const int h = fm.height() + 1, swatch = 14;
  const int moreWidth = fm.horizontalAdvance(kLegendMore) + 8;
  Placement out;
  int x = 4, row = 0;
  std::size_t placed = 0;
  for (const auto& e : entries_) {
    int w = swatch + 4 + fm.horizontalAdvance(e.name) + 8;
    if (x > 4 && x + w > width) {
      x = 4;
      ++row;
    }
    if (row >= maxRows_) break;
    out.rects.emplace_back(x, 1 + row * h, w, h);
    x += w;
    ++placed;
  }
  if (placed < entries_.size()) {
    // The last row makes room for "more...".
    while (placed > 0 && out.rects[placed - 1].top() == 1 + (maxRows_ - 1) * h &&
           out.rects[placed - 1].right() + 1 + moreWidth > width && out.rects[placed - 1].left() > 4)
      --placed;
    const int moreX = placed > 0 ? out.rects[placed - 1].right() + 1 : 4;
    out.more = QRect(moreX, 1 + (maxRows_ - 1) * h, moreWidth, h);
  }
  out.rects.resize(entries_.size());
  for (std::size_t i = placed; i < out.rects.size(); ++i) out.rects[i] = QRect();
  return out;
}

void LegendView::setMaxRows(int rows) {
  rows = std::max(rows, 1);
  if (rows == maxRows_) return;
  maxRows_ = rows;
  setFixedHeight(heightForWidth(width()));
  update();
}

int LegendView::heightForWidth(int width) const {
  const Placement pl = place(width);
  int bottom = pl.more.isNull() ? 0 : pl.more.bottom();
  for (const QRect& r : pl.rects)
    if (!r.isNull()) bottom = std::max(bottom, r.bottom());
  return pl.rects.empty() ? 0 : bottom + 2;
}

void LegendView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  const Placement pl = place(width());
  if (!pl.more.isNull()) {
    p.setPen(QColor(0x30, 0x30, 0xa0));
    p.drawText(pl.more, Qt::AlignVCenter | Qt::AlignLeft, kLegendMore);
  }
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const LegendEntry& e = entries_[i];
    const QRect r = pl.rects[i];
    if (r.isNull()) continue;
    const QRect sw(r.left(), r.top() + 2, 14, r.height() - 4);
    switch (e.shape) {
      case LegendEntry::Bar: p.fillRect(sw, e.color); break;
      case LegendEntry::Name:
        p.fillRect(sw, e.color);
        p.setPen(Qt::black);
        p.drawText(sw, Qt::AlignCenter, "a");
        break;
      case LegendEntry::Band:
        p.fillRect(sw, QColor(0xff, 0xa0, 0x00, 50));
        p.setPen(e.color);
        p.drawLine(sw.topLeft(), sw.bottomLeft());
        p.drawLine(sw.topRight(), sw.bottomRight());
        break;
      case LegendEntry::Line:
        p.setPen(QPen(e.color, 0));
        p.drawLine(sw.bottomLeft(), sw.topRight());
        break;
      case LegendEntry::Cursor:
        p.setPen(QPen(e.color, 2));
        p.drawLine(QPoint(sw.center().x(), sw.top()), QPoint(sw.center().x(), sw.bottom()));
        break;
      case LegendEntry::Failed:
      case LegendEntry::TimedOut:
        drawOutcomeGlyph(p, QRectF(sw).center(), 4.5, e.shape == LegendEntry::Failed ? CallOutcome::Failed : CallOutcome::TimedOut);
        break;
      case LegendEntry::Mark:
        p.setPen(QPen(e.color, 0));
        p.setBrush(e.color);
        p.drawLine(QPoint(sw.center().x(), sw.top()), QPoint(sw.center().x(), sw.bottom()));
        p.drawPolygon(QPolygon({QPoint(sw.center().x() - 4, sw.top()), QPoint(sw.center().x() + 4, sw.top()),
                                QPoint(sw.center().x(), sw.top() + 4)}));
        p.setBrush(Qt::NoBrush);
        break;
      case LegendEntry::Strip:  // the load strip's scale: idle, one per CPU, two or more
        for (int i = 0; i < 3; ++i)
          p.fillRect(QRect(sw.left() + i * sw.width() / 3, sw.top() + sw.height() / 3, sw.width() / 3 + 1, sw.height() / 3 + 1),
                     loadColor(i));
        break;
      case LegendEntry::Hatch:
        p.fillRect(sw, QBrush(e.color, Qt::BDiagPattern));
        break;
      case LegendEntry::Dot:
        p.setPen(QPen(Qt::black, 1));
        p.setBrush(e.color);
        p.drawEllipse(sw.center(), 4, 4);
        p.setBrush(Qt::NoBrush);
        break;
    }
    p.setPen(Qt::black);
    p.drawText(QRect(sw.right() + 4, r.top(), r.width() - sw.width() - 4, r.height()), Qt::AlignVCenter | Qt::AlignLeft,
               e.name);
  }
}

bool LegendView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    const Placement pl = place(width());
    for (std::size_t i = 0; i < pl.rects.size(); ++i)
      if (pl.rects[i].contains(he->pos())) {
        QToolTip::showText(he->globalPos(), entries_[i].name + ": " + entries_[i].meaning, this);
        return true;
      }
    if (pl.more.contains(he->pos())) {  // the entries there was no room for
      QStringList rest;
      for (std::size_t i = 0; i < pl.rects.size(); ++i)
        if (pl.rects[i].isNull()) rest << "<b>" + entries_[i].name.toHtmlEscaped() + "</b>: " + entries_[i].meaning.toHtmlEscaped();
      QToolTip::showText(he->globalPos(), rest.join("<br>"), this);
      return true;
    }
    QToolTip::hideText();
    return true;
  }
  // Entries wrap: a new width may need another line, or one less.
  if (e->type() == QEvent::Resize || e->type() == QEvent::FontChange) setFixedHeight(heightForWidth(width()));
  return QWidget::event(e);
}

}  // namespace xab::view
