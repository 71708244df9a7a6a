#pragma once
// The task table under the diagram: a row per task, its columns fitted to
// the width it gets, Doing now first among them.

#include "task_table_model.h"

#include <QTableView>

namespace xab::view {

class TaskTable : public QTableView {
 public:
  explicit TaskTable(TaskTableModel* model, QWidget* parent = nullptr);

  // The CPU column only for a trace with clock-driven samples.
  void setSampled(bool sampled);

  // Doing now keeps at least this width: its start and how long, elided
  // between ("blocked in recv(…) for 2.1 s").
  static constexpr int kDoingMinWidth = 120;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // Hides the columns a narrow table has no room for, least useful first
  // (Records, Host, Tid), so that Doing now keeps kDoingMinWidth; shows
  // them again when the table widens.
  void fitColumns();

  bool sampled_ = false;
};

}  // namespace xab::view
