// row_actions.cpp -- View > Rows and a row's context menu (row_actions.h).
#include "row_actions.h"

#include <QAction>
#include <QActionGroup>
#include <QInputDialog>
#include <QMenu>

namespace xab::view {
namespace {

const RowGroup* groupOf(const ViewState& st, TaskIndex row) {
  const RowPlan& plan = st.rowPlan();
  const std::uint32_t g = plan.groupOfRow(row);
  return g == kNoGroup ? nullptr : &plan.groups[g];
}

// The key of the group `task` belongs to under the current fold, had it not been unfolded.
std::string groupKeyOf(const ViewState& st, TaskIndex task) {
  const Trace& trace = *st.snapshot()->trace;
  const std::string host(trace.str(trace.task(task).host));
  switch (effectiveFold(st.rowChoice(), trace.taskCount())) {
    case RowFold::ByName: return "name:" + std::string(trace.str(trace.task(task).name)) + "@" + host;
    case RowFold::ByHost: return "host:" + host;
    default: return {};
  }
}

}  // namespace

QList<QAction*> rowActions(ViewState* state, QWidget* parent) {
  auto* group = new QActionGroup(parent);
  auto fold = [=](const char* name, const QString& text, RowFold f, const QString& tip) {
    auto* a = new QAction(text, parent);
    a->setObjectName(name);
    a->setToolTip(tip);
    a->setCheckable(true);
    group->addAction(a);
    QObject::connect(a, &QAction::triggered, parent, [state, f] {
      RowChoice c = state->rowChoice();
      c.fold = f;
      c.unfolded.clear();
      state->setRowChoice(c);
    });
    return a;
  };
  QList<QAction*> out{
      fold("foldByName", "Fold tasks by name", RowFold::ByName,
           "One row for the tasks of a program on a host (double-click a folded row to open it)"),
      fold("foldByHost", "Fold tasks by host", RowFold::ByHost, "One row for every task of a host"),
      fold("foldNone", "A row per task", RowFold::None, "Every task on a row of its own"),
  };
  // The checked fold follows the state (Auto shows what it resolved to).
  auto sync = [state, out] {
    const ViewSnapshot* s = state->snapshot();
    const RowFold f = effectiveFold(state->rowChoice(), s ? s->trace->taskCount() : 0);
    out[0]->setChecked(f == RowFold::ByName);
    out[1]->setChecked(f == RowFold::ByHost);
    out[2]->setChecked(f == RowFold::None);
  };
  QObject::connect(state, &ViewState::rowsChanged, parent, sync);
  QObject::connect(state, &ViewState::snapshotChanged, parent, sync);
  sync();
  auto* filter = new QAction("Filter rows...", parent);
  filter->setObjectName("filterRows");
  filter->setToolTip("Only the tasks whose name, host or tid contains a text");
  QObject::connect(filter, &QAction::triggered, parent, [state, parent] {
    bool ok = false;
    const QString text = QInputDialog::getText(parent, "Filter rows", "Tasks whose name, host or tid contains:",
                                               QLineEdit::Normal, QString::fromStdString(state->rowChoice().filter), &ok);
    if (!ok) return;
    RowChoice c = state->rowChoice();
    c.filter = text.trimmed().toStdString();
    state->setRowChoice(c);
  });
  auto* all = new QAction("Show every task", parent);
  all->setObjectName("showEveryTask");
  all->setToolTip("Hidden tasks back, the filter cleared (the fold stays)");
  QObject::connect(all, &QAction::triggered, parent, [state] {
    RowChoice c = state->rowChoice();
    c.hidden.clear();
    c.filter.clear();
    state->setRowChoice(c);
  });
  out << filter << all;
  return out;
}

bool moveRow(ViewState* state, TaskIndex from, TaskIndex to) {
  const ViewSnapshot* s = state->snapshot();
  const RowPlan& plan = state->rowPlan();
  if (!s || from >= plan.rows() || to >= plan.rows() || from == to) return false;
  state->setRowChoice(movedRow(*s->trace, plan, state->rowChoice(), from, to));
  return true;
}

bool unfoldRow(ViewState* state, TaskIndex row) {
  const RowGroup* g = groupOf(*state, row);
  if (!g) return false;
  RowChoice c = state->rowChoice();
  c.unfolded.insert(g->key);
  state->setRowChoice(c);
  return true;
}

void addRowMenu(QMenu* menu, ViewState* state, TaskIndex row) {
  const ViewSnapshot* s = state->snapshot();
  const RowPlan& plan = state->rowPlan();
  if (!s || row >= plan.rows()) return;
  const Trace& trace = *s->trace;
  QAction* up = menu->addAction("Move up");
  up->setObjectName("moveRowUp");
  up->setEnabled(row > 0);
  QObject::connect(up, &QAction::triggered, menu, [state, row] { moveRow(state, row, row - 1); });
  QAction* down = menu->addAction("Move down");
  down->setObjectName("moveRowDown");
  down->setEnabled(row + 1 < plan.rows());
  QObject::connect(down, &QAction::triggered, menu, [state, row] { moveRow(state, row, row + 1); });
  if (const RowGroup* g = groupOf(*state, row)) {
    const QString label = QString::fromStdString(g->label);
    QObject::connect(menu->addAction("Unfold " + label), &QAction::triggered, menu, [state, row] { unfoldRow(state, row); });
    std::vector<Tid> tids;
    for (TaskIndex t : g->members) tids.push_back(trace.task(t).tid);
    QObject::connect(menu->addAction("Hide " + label), &QAction::triggered, menu, [state, tids] {
      RowChoice c = state->rowChoice();
      c.hidden.insert(tids.begin(), tids.end());
      state->setRowChoice(c);
    });
    return;
  }
  const TaskIndex task = plan.rowTask[row];
  const Tid tid = trace.task(task).tid;
  QObject::connect(menu->addAction("Hide " + QString::fromStdString(trace.label(task))), &QAction::triggered, menu,
                   [state, tid] {
                     RowChoice c = state->rowChoice();
                     c.hidden.insert(tid);
                     state->setRowChoice(c);
                   });
  const std::string key = groupKeyOf(*state, task);
  if (!key.empty() && state->rowChoice().unfolded.count(key)) {
    QObject::connect(menu->addAction("Fold its group again"), &QAction::triggered, menu, [state, key] {
      RowChoice c = state->rowChoice();
      c.unfolded.erase(key);
      state->setRowChoice(c);
    });
  }
}

}  // namespace xab::view
