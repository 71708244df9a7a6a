// The barrier panel's models: one row per barrier use, one per task.
#include "panel_models.h"
#include "panel_words.h"

#include "activity.h"

#include <QBrush>

#include <algorithm>

namespace xab::view {

// ---- barrier instances ----

BarrierWaitModel::BarrierWaitModel(ViewState* state, QObject* parent)
    : GrowingTableModel(parent), state_(state) {
  connect(state_, &ViewState::snapshotChanged, this, &BarrierWaitModel::reset);
}

void BarrierWaitModel::reset() {
  const ViewSnapshot* s = state_->snapshot();
  syncRows(s ? static_cast<int>(s->barriers().instances.size()) : 0);
}

int BarrierWaitModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant BarrierWaitModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ViewSnapshot* s = state_->snapshot();
  if (!s || index.row() >= static_cast<int>(s->barriers().instances.size())) return {};
  const BarrierInstance& b = s->barriers().instances[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) {
    TimeNs maxWait = 0;
    for (const auto& v : b.visits) maxWait = std::max(maxWait, v.wait());
    switch (index.column()) {
      case GroupCol: return QString::fromStdString(std::string(s->trace->str(b.group)));
      case UseCol: return b.use;
      case TasksCol: return QStringLiteral("%1 of %2").arg(b.visits.size()).arg(b.count > 0 ? b.count : int(b.visits.size()));
      case LastCol: return b.lastArrival >= 0 ? label(*s, b.visits[static_cast<std::size_t>(b.lastArrival)].task) : QString("-");
      case LateCol: return formatDuration(b.lateBy);
      case TotalCol: return formatDuration(b.totalWait);
      case MaxCol: return formatDuration(maxWait);
    }
  }
  if (role == Qt::ToolTipRole) {
    QStringList lines;
    for (const auto& v : b.visits)
      lines << QStringLiteral("%1: waited %2%3").arg(label(*s, v.task), formatDuration(v.wait()),
                                                     v.depart == kOpenEnd ? " (still waiting)" : "");
    return lines.join('\n');
  }
  if (role == Qt::BackgroundRole && !b.complete()) return QBrush(QColor(0xff, 0xcd, 0xd2));
  return {};
}

QVariant BarrierWaitModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Group", "Use", "Arrived", "Last to arrive", "Late by", "Total wait", "Longest wait"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

// ---- barrier totals per task ----

BarrierTotalsModel::BarrierTotalsModel(ViewState* state, QObject* parent)
    : GrowingTableModel(parent), state_(state) {
  connect(state_, &ViewState::snapshotChanged, this, &BarrierTotalsModel::reset);
}

void BarrierTotalsModel::reset() {
  const ViewSnapshot* s = state_->snapshot();
  syncRows(s ? static_cast<int>(s->barriers().perTask.size()) : 0);
}

int BarrierTotalsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant BarrierTotalsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ViewSnapshot* s = state_->snapshot();
  if (!s || index.row() >= static_cast<int>(s->barriers().perTask.size()) || role != Qt::DisplayRole) return {};
  auto t = static_cast<TaskIndex>(index.row());
  const BarrierTaskTotals& b = s->barriers().perTask[t];
  switch (index.column()) {
    case TaskCol: return label(*s, t);
    case WaitCol: return formatDuration(b.wait);
    case VisitsCol: return b.visits;
    case LastCol: return b.lastToArrive;
    case ShareCol: return QString::number(b.share * 100, 'f', 1) + " %";
  }
  return {};
}

QVariant BarrierTotalsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Task", "Barrier wait", "Barriers", "Last to arrive", "Share of run"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

// ---- the chart's content ----

BarrierChartData barrierChartData(const ViewSnapshot& s, int instance) {
  BarrierChartData out;
  const BarrierAnalysis& b = s.barriers();
  auto bar = [&](TaskIndex t, TimeNs wait, bool last) {
    out.bars.push_back({QString::fromStdString(s.trace->label(t)), wait, formatDuration(wait), last});
    out.most = std::max(out.most, wait);
  };
  if (instance >= 0 && instance < static_cast<int>(b.instances.size())) {
    const auto& use = b.instances[static_cast<std::size_t>(instance)];
    out.title = QStringLiteral("Barrier `%1` use %2: each task's wait (last to arrive in orange)")
                    .arg(QString::fromStdString(std::string(s.trace->str(use.group)))).arg(use.use);
    for (std::size_t i = 0; i < use.visits.size(); ++i)
      bar(use.visits[i].task, use.visits[i].wait(), static_cast<int>(i) == use.lastArrival);
  } else if (b.instances.empty()) {
    out.title = "No barrier in this trace (yet): nothing waited in pvm_barrier.";
  } else {
    out.title = "Total barrier wait per task (select a barrier above for one instance)";
    for (TaskIndex t = 0; t < b.perTask.size(); ++t) bar(t, b.perTask[t].wait, false);
  }
  return out;
}

}  // namespace xab::view
