// event_log_view.h -- the event log's table: a million rows, nothing per row.
#pragma once

#include <QAbstractItemView>

class QHeaderView;

namespace xab::view {

// A table for a million rows.  Every row has the same height, so where a
// row is drawn is arithmetic and the view keeps nothing per row (a
// QTableView's vertical header keeps a section per row -- 8 MB for a
// million records, hidden or not).  Columns have a horizontal QHeaderView.
// The vertical scroll bar counts rows.  Selection is by whole rows.
class EventLogView : public QAbstractItemView {
  Q_OBJECT
 public:
  explicit EventLogView(QWidget* parent = nullptr);
  ~EventLogView() override;
  void setModel(QAbstractItemModel* model) override;
  QHeaderView* horizontalHeader() const { return header_; }
  void setColumnWidth(int column, int width);
  void selectRow(int row);
  int rowHeight() const { return rowHeight_; }
  int firstVisibleRow() const;
  int visibleRows() const;  // whole rows that fit

  QRect visualRect(const QModelIndex& index) const override;
  void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;
  QModelIndex indexAt(const QPoint& point) const override;

 protected:
  QModelIndex moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) override;
  int horizontalOffset() const override;
  int verticalOffset() const override;
  bool isIndexHidden(const QModelIndex&) const override { return false; }
  void setSelection(const QRect& rect, QItemSelectionModel::SelectionFlags command) override;
  QRegion visualRegionForSelection(const QItemSelection& selection) const override;
  void paintEvent(QPaintEvent* event) override;
  void updateGeometries() override;
  void scrollContentsBy(int dx, int dy) override;
  void rowsInserted(const QModelIndex& parent, int start, int end) override;
  void reset() override;
  void dataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>& roles) override;

 private:
  int rowCount() const;
  QRect rowRect(int row) const;  // viewport coordinates
  QHeaderView* header_;
  int rowHeight_ = 20;
};

}  // namespace xab::view
