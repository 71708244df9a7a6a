#include "task_table.h"

#include <QHeaderView>

#include <algorithm>

namespace xab::view {

TaskTable::TaskTable(TaskTableModel* model, QWidget* parent) : QTableView(parent) {
  setObjectName("taskTable");
  setModel(model);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  verticalHeader()->hide();
  setMinimumHeight(60);
  verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 2);
  // Doing now's end says for how long: a narrow column cuts the middle.
  setTextElideMode(Qt::ElideMiddle);
  // One line a cell: wrapped, only the row's last visible line is cut, at
  // its end ("blocked in …": how long was lost at 800x500).
  setWordWrap(false);
  // The short columns as wide as their contents (the rows in view), the
  // rest to Doing now.
  for (int c : {TaskTableModel::TaskCol, TaskTableModel::TidCol, TaskTableModel::HostCol, TaskTableModel::RecordsCol,
                TaskTableModel::CpuCol})
    horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  // Measured on the rows in view only: every Step changes every cell, and
  // Qt's default (1,000 rows laid out as text) made a Step of a trace of
  // 10,000 tasks cost tens of milliseconds.
  horizontalHeader()->setResizeContentsPrecision(0);
  // Stretched (not the stretched last section, which keeps at least the
  // default width: Doing now went past the table's edge at 800x500).
  horizontalHeader()->setSectionResizeMode(TaskTableModel::DoingCol, QHeaderView::Stretch);
  setColumnHidden(TaskTableModel::CpuCol, true);
  // Tasks that come (a live run) widen the short columns: fitted again once
  // they are laid out.
  connect(model, &QAbstractItemModel::rowsInserted, this, &TaskTable::fitColumns, Qt::QueuedConnection);
  connect(model, &QAbstractItemModel::modelReset, this, &TaskTable::fitColumns, Qt::QueuedConnection);
}

void TaskTable::setSampled(bool sampled) {
  if (sampled == sampled_) return;
  sampled_ = sampled;
  fitColumns();
}

void TaskTable::resizeEvent(QResizeEvent* event) {
  QTableView::resizeEvent(event);
  fitColumns();
}

void TaskTable::fitColumns() {
  auto needs = [this](int c) { return std::max(horizontalHeader()->sectionSizeHint(c), sizeHintForColumn(c)); };
  int room = viewport()->width() - kDoingMinWidth - needs(TaskTableModel::TaskCol);
  if (sampled_) room -= needs(TaskTableModel::CpuCol);
  setColumnHidden(TaskTableModel::CpuCol, !sampled_);
  // The rest, most useful first: each shown while it fits.
  for (int c : {TaskTableModel::TidCol, TaskTableModel::HostCol, TaskTableModel::RecordsCol}) {
    const int w = needs(c);
    setColumnHidden(c, w > room);
    if (w <= room) room -= w;
  }
}

}  // namespace xab::view
