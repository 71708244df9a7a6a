// task_table_model.h -- one row per task: the heart of the paper's Figure 1.
#pragma once

#include "activity.h"
#include "view_state.h"

#include <QAbstractTableModel>

#include "growing_table_model.h"

namespace xab::view {

class TaskTableModel : public GrowingTableModel {
  Q_OBJECT
 public:
  enum Column { TaskCol, TidCol, HostCol, RecordsCol, DoingCol, ColumnCount };
  enum Role { TaskIndexRole = Qt::UserRole + 1, ActivityRole };

  explicit TaskTableModel(ViewState* state, QObject* parent = nullptr);

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

  TaskActivity activity(int row) const;

 public slots:
  void refresh();  // the position or "now" moved: every row's words may change

 private:
  ViewState* state_;
};

}  // namespace xab::view
