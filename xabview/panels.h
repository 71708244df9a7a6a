// panels.h -- the tabs under the diagram: event log, hang and mismatch,
// barrier waits, messages, input errors.  Each is a thin widget over an
// item model of xab_viewmodels and the shared ViewState.
#pragma once

#include "event_log_model.h"
#include "panel_models.h"

#include <QAbstractItemView>
#include <QWidget>

class QComboBox;
class QHeaderView;
class QLineEdit;
class QPlainTextEdit;
class QTableView;
class QTextBrowser;

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

class EventLogPanel : public QWidget {
  Q_OBJECT
 public:
  explicit EventLogPanel(ViewState* state, QWidget* parent = nullptr);
  EventLogModel* model() const { return model_; }
 public slots:
  void focusFilter();
 private slots:
  void applyFilter();
  void refillTasks();
  void showSelection();
 private:
  ViewState* state_;
  EventLogModel* model_;
  EventLogView* table_;
  QComboBox* task_;
  QComboBox* call_;
  QLineEdit* tag_;
  bool selecting_ = false;
};

class HangPanel : public QWidget {
  Q_OBJECT
 public:
  HangPanel(ViewState* state, double hangAfterSeconds, QWidget* parent = nullptr);
  bool alarmed() const { return alarmed_; }
  QString text() const;  // what the panel shows, as plain text
 signals:
  void alarm();  // progress stopped and tasks are blocked
 public slots:
  void refresh();
 private:
  ViewState* state_;
  QTextBrowser* text_;
  double hangAfter_;
  bool alarmed_ = false;
};

class BarrierChart : public QWidget {
  Q_OBJECT
 public:
  explicit BarrierChart(ViewState* state, QWidget* parent = nullptr);
  void showInstance(int instance);
  QSize sizeHint() const override { return {400, 200}; }
 protected:
  void paintEvent(QPaintEvent*) override;
 private:
  ViewState* state_;
  int instance_ = -1;  // -1: totals per task
};

class BarrierPanel : public QWidget {
  Q_OBJECT
 public:
  explicit BarrierPanel(ViewState* state, QWidget* parent = nullptr);
 private:
  BarrierWaitModel* instances_;
  BarrierTotalsModel* totals_;
  BarrierChart* chart_;
};

class MessagesPanel : public QWidget {
  Q_OBJECT
 public:
  explicit MessagesPanel(ViewState* state, QWidget* parent = nullptr);
 private:
  MessageMatrixModel* matrix_;
  PendingQueueModel* pending_;
};

class InputPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InputPanel(ViewState* state, QWidget* parent = nullptr);
 public slots:
  void refresh();
  void setFailure(const QString& message);
 private:
  ViewState* state_;
  QPlainTextEdit* text_;
  QString failure_;
};

}  // namespace xab::view
