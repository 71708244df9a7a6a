// task_table_model.h -- one row per task: the heart of the paper's Figure 1.
#pragma once

#include "activity.h"
#include "view_state.h"

#include <QAbstractTableModel>

#include <optional>

#include "growing_table_model.h"

namespace xab::view {

// A task's CPU time and time waiting for a CPU (runnable, no CPU), from the
// clock-driven samples (xab/model/samples.h), over its life up to the
// replay position: from its first record to the position (or its last
// record, if earlier).  Null without samples of the task or before its
// first record.
struct CpuShare {
  TimeNs alive = 0, cpu = 0, waiting = 0;
  double cpuShare() const { return static_cast<double>(cpu) / static_cast<double>(alive); }
  double waitingShare() const { return static_cast<double>(waiting) / static_cast<double>(alive); }
};
std::optional<CpuShare> cpuShareAt(const ViewState& state, TaskIndex task);

class TaskTableModel : public GrowingTableModel {
  Q_OBJECT
 public:
  enum Column { TaskCol, TidCol, HostCol, RecordsCol, CpuCol, DoingCol, ColumnCount };
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
