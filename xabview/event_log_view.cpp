#include "event_log_view.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>

namespace xab::view {

EventLogView::EventLogView(QWidget* parent) : QAbstractItemView(parent), header_(new QHeaderView(Qt::Horizontal, this)) {
  setSelectionBehavior(SelectRows);
  setSelectionMode(SingleSelection);
  setVerticalScrollMode(ScrollPerItem);
  setHorizontalScrollMode(ScrollPerPixel);
  header_->setStretchLastSection(true);
  header_->setSectionsClickable(false);
  rowHeight_ = std::max(20, fontMetrics().height() + 4);
  connect(header_, &QHeaderView::sectionResized, this, [this] {
    updateGeometries();
    viewport()->update();
  });
  connect(header_, &QHeaderView::geometriesChanged, this, [this] { updateGeometries(); });
}

// The header is a child: QWidget's destructor would delete it while this
// object is already only a QWidget, and its last signals must not reach us.
EventLogView::~EventLogView() { disconnect(header_, nullptr, this, nullptr); }

void EventLogView::setModel(QAbstractItemModel* model) {
  QAbstractItemView::setModel(model);
  header_->setModel(model);
  if (model) {
    connect(model, &QAbstractItemModel::rowsRemoved, this, &EventLogView::updateGeometries);
    connect(model, &QAbstractItemModel::layoutChanged, this, &EventLogView::updateGeometries);
  }
  updateGeometries();
}

void EventLogView::setColumnWidth(int column, int width) { header_->resizeSection(column, width); }

int EventLogView::rowCount() const { return model() ? model()->rowCount(rootIndex()) : 0; }

int EventLogView::firstVisibleRow() const { return verticalScrollBar()->value(); }

int EventLogView::visibleRows() const { return std::max(1, viewport()->height() / rowHeight_); }

QRect EventLogView::rowRect(int row) const {
  return {0, (row - firstVisibleRow()) * rowHeight_, std::max(viewport()->width(), header_->length()), rowHeight_};
}

QRect EventLogView::visualRect(const QModelIndex& index) const {
  if (!index.isValid() || index.parent() != rootIndex()) return {};
  return {header_->sectionViewportPosition(index.column()), (index.row() - firstVisibleRow()) * rowHeight_,
          header_->sectionSize(index.column()), rowHeight_};
}

QModelIndex EventLogView::indexAt(const QPoint& p) const {
  if (!model() || p.y() < 0) return {};
  int row = firstVisibleRow() + p.y() / rowHeight_;
  int column = header_->logicalIndexAt(p.x());
  if (row >= rowCount() || column < 0) return {};
  return model()->index(row, column, rootIndex());
}

void EventLogView::scrollTo(const QModelIndex& index, ScrollHint hint) {
  if (!index.isValid()) return;
  int row = index.row(), first = firstVisibleRow(), n = visibleRows();
  switch (hint) {
    case EnsureVisible:
      if (row < first) first = row;
      else if (row >= first + n) first = row - n + 1;
      break;
    case PositionAtTop: first = row; break;
    case PositionAtBottom: first = row - n + 1; break;
    case PositionAtCenter: first = row - n / 2; break;
  }
  verticalScrollBar()->setValue(first);
  int x = header_->sectionPosition(index.column()), w = header_->sectionSize(index.column());
  int left = horizontalScrollBar()->value(), width = viewport()->width();
  if (x < left) horizontalScrollBar()->setValue(x);
  else if (x + w > left + width) horizontalScrollBar()->setValue(std::min(x, x + w - width));
}

QModelIndex EventLogView::moveCursor(CursorAction action, Qt::KeyboardModifiers) {
  QModelIndex cur = currentIndex();
  int rows = rowCount();
  if (!model() || rows == 0) return {};
  int row = cur.isValid() ? cur.row() : 0, column = cur.isValid() ? cur.column() : 0;
  switch (action) {
    case MoveUp: --row; break;
    case MoveDown: ++row; break;
    case MovePageUp: row -= visibleRows(); break;
    case MovePageDown: row += visibleRows(); break;
    case MoveHome: row = 0; break;
    case MoveEnd: row = rows - 1; break;
    case MoveLeft:
    case MovePrevious: column = std::max(0, column - 1); break;
    case MoveRight:
    case MoveNext: column = std::min(model()->columnCount(rootIndex()) - 1, column + 1); break;
  }
  return model()->index(std::clamp(row, 0, rows - 1), column, rootIndex());
}

int EventLogView::horizontalOffset() const { return horizontalScrollBar()->value(); }

int EventLogView::verticalOffset() const { return firstVisibleRow() * rowHeight_; }

void EventLogView::setSelection(const QRect& rect, QItemSelectionModel::SelectionFlags command) {
  if (!model() || !selectionModel()) return;
  QRect r = rect.normalized();
  int rows = rowCount(), columns = model()->columnCount(rootIndex());
  if (rows == 0 || columns == 0) return;
  int top = std::clamp(firstVisibleRow() + r.top() / rowHeight_, 0, rows - 1);
  int bottom = std::clamp(firstVisibleRow() + r.bottom() / rowHeight_, 0, rows - 1);
  QItemSelection sel(model()->index(top, 0, rootIndex()), model()->index(bottom, columns - 1, rootIndex()));
  selectionModel()->select(sel, command);
}

QRegion EventLogView::visualRegionForSelection(const QItemSelection& selection) const {
  QRegion region;
  int first = firstVisibleRow(), last = first + visibleRows();
  for (const QItemSelectionRange& range : selection) {
    int top = std::max(range.top(), first), bottom = std::min(range.bottom(), last);
    if (top <= bottom) region += rowRect(top).united(rowRect(bottom));
  }
  return region;
}

void EventLogView::paintEvent(QPaintEvent* event) {
  if (!model()) return;
  QPainter p(viewport());
  QStyleOptionViewItem opt;
  initViewItemOption(&opt);
  const int rows = rowCount(), columns = model()->columnCount(rootIndex());
  const int first = firstVisibleRow() + event->rect().top() / rowHeight_;
  const int last = std::min(rows - 1, firstVisibleRow() + event->rect().bottom() / rowHeight_);
  const QModelIndex current = currentIndex();
  const QColor grid = palette().color(QPalette::Mid);
  for (int row = std::max(first, 0); row <= last; ++row) {
    for (int c = 0; c < columns; ++c) {
      QModelIndex index = model()->index(row, c, rootIndex());
      opt.rect = visualRect(index);
      if (opt.rect.right() < event->rect().left() || opt.rect.left() > event->rect().right()) continue;
      opt.state = QStyle::State_Enabled;
      if (selectionModel() && selectionModel()->isSelected(index)) opt.state |= QStyle::State_Selected;
      if (hasFocus() && index == current) opt.state |= QStyle::State_HasFocus;
      itemDelegateForIndex(index)->paint(&p, opt, index);
    }
    p.setPen(grid);
    QRect r = rowRect(row);
    p.drawLine(r.left(), r.bottom(), r.right(), r.bottom());
  }
}

void EventLogView::updateGeometries() {
  int headerHeight = header_->sizeHint().height();
  setViewportMargins(0, headerHeight, 0, 0);
  QRect vg = viewport()->geometry();
  header_->setGeometry(vg.left(), vg.top() - headerHeight, vg.width(), headerHeight);
  int n = visibleRows();
  verticalScrollBar()->setSingleStep(1);
  verticalScrollBar()->setPageStep(n);
  verticalScrollBar()->setRange(0, std::max(0, rowCount() - n));
  horizontalScrollBar()->setSingleStep(20);
  horizontalScrollBar()->setPageStep(vg.width());
  horizontalScrollBar()->setRange(0, std::max(0, header_->length() - vg.width()));
  header_->setOffset(horizontalScrollBar()->value());
  QAbstractItemView::updateGeometries();
}

void EventLogView::scrollContentsBy(int dx, int) {
  if (dx != 0) header_->setOffset(horizontalScrollBar()->value());
  viewport()->update();
}

void EventLogView::rowsInserted(const QModelIndex& parent, int start, int end) {
  updateGeometries();
  QAbstractItemView::rowsInserted(parent, start, end);
}

void EventLogView::reset() {
  QAbstractItemView::reset();
  updateGeometries();
  viewport()->update();
}

void EventLogView::dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>&) {
  // Only what is on screen (the base class would visit every changed cell:
  // a replay jump changes a million rows).  There are no editors to update.
  int first = firstVisibleRow(), last = first + visibleRows();
  if (topLeft.isValid() && bottomRight.isValid() && bottomRight.row() >= first && topLeft.row() <= last)
    viewport()->update();
}

void EventLogView::selectRow(int row) {
  if (!model() || !selectionModel() || row < 0 || row >= rowCount()) return;
  selectionModel()->setCurrentIndex(model()->index(row, 0, rootIndex()),
                                    QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

}  // namespace xab::view
