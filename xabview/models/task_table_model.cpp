#include "task_table_model.h"

#include <QBrush>
#include <QFont>

#include <algorithm>
#include <cmath>

namespace xab::view {

std::optional<CpuShare> cpuShareAt(const ViewState& st, TaskIndex t) {
  const ViewSnapshot* s = st.snapshot();
  if (!s || !s->analysis || t >= s->trace->taskCount()) return std::nullopt;
  const SampleReport& samples = s->analysis->model.samples;
  if (t >= samples.tasks.size() || samples.tasks[t].empty()) return std::nullopt;
  const TaskInfo& info = s->trace->task(t);
  const TimeNs end = std::min(st.cursorTime(), info.lastTime);
  if (end <= info.firstTime) return std::nullopt;
  const CpuTime used = samples.between(*s->trace, t, info.firstTime, end);
  return CpuShare{end - info.firstTime, used.cpu, used.runnable};
}

namespace {

// "62 %, 31 % waiting": the CPU column; empty without samples.
QString cpuText(const std::optional<CpuShare>& c) {
  if (!c) return {};
  QString out = QStringLiteral("%1 %").arg(std::lround(100 * c->cpuShare()));
  if (c->waiting > 0) out += QStringLiteral(", %1 % waiting").arg(std::lround(100 * c->waitingShare()));
  return out;
}

QString cpuTip(const std::optional<CpuShare>& c) {
  if (!c) return QStringLiteral("No clock-driven samples of this task (abmon --sample-ms)");
  return QStringLiteral("CPU time %1 of %2 alive up to the replay position (%3 %); ready to run without a CPU %4 (%5 %)")
      .arg(formatDuration(c->cpu), formatDuration(c->alive))
      .arg(100 * c->cpuShare(), 0, 'f', 1)
      .arg(formatDuration(c->waiting))
      .arg(100 * c->waitingShare(), 0, 'f', 1);
}

}  // namespace

TaskTableModel::TaskTableModel(ViewState* state, QObject* parent)
    : GrowingTableModel(parent), state_(state) {
  connect(state_, &ViewState::snapshotChanged, this, &TaskTableModel::refresh);
  connect(state_, &ViewState::positionChanged, this, &TaskTableModel::refresh);
}

int TaskTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

void TaskTableModel::refresh() {
  const ViewSnapshot* s = state_->snapshot();
  syncRows(s ? static_cast<int>(s->trace->taskCount()) : 0);
}

TaskActivity TaskTableModel::activity(int row) const {
  auto t = static_cast<TaskIndex>(row);
  return describeTask(*state_, t);
}

QVariant TaskTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ViewSnapshot* s = state_->snapshot();
  if (!s || index.row() >= static_cast<int>(s->trace->taskCount())) return {};
  auto t = static_cast<TaskIndex>(index.row());
  const Trace& tr = *s->trace;
  const TaskInfo& info = tr.task(t);
  if (role == TaskIndexRole) return static_cast<uint>(t);
  if (index.column() == CpuCol && (role == Qt::DisplayRole || role == Qt::ToolTipRole))
    return role == Qt::DisplayRole ? cpuText(cpuShareAt(*state_, t)) : cpuTip(cpuShareAt(*state_, t));
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
      case TaskCol:
        // The tip says what a narrow table's hidden columns would.
        return role == Qt::DisplayRole ? QString::fromStdString(tr.label(t))
                                       : QStringLiteral("%1: %2 on %3, %4 records")
                                             .arg(QString::fromStdString(tr.label(t)),
                                                  QString::fromStdString(formatTid(info.tid)),
                                                  QString::fromStdString(std::string(tr.str(info.host))))
                                             .arg(state_->shownOf(t));
      case TidCol: return QString::fromStdString(formatTid(info.tid));
      case HostCol: return QString::fromStdString(std::string(tr.str(info.host)));
      case DoingCol: return activity(index.row()).text;
      case RecordsCol: return static_cast<qulonglong>(state_->shownOf(t));
    }
    return {};
  }
  if (role == ActivityRole) return static_cast<int>(activity(index.row()).kind);
  if (role == Qt::BackgroundRole || role == Qt::FontRole || role == Qt::ForegroundRole) {
    Activity a = activity(index.row()).kind;
    bool waiting = a == Activity::Blocked || a == Activity::Barrier;
    if (role == Qt::BackgroundRole) {
      if (a == Activity::Blocked) return QBrush(QColor(0xff, 0xcd, 0xd2));
      if (a == Activity::Barrier) return QBrush(QColor(0xff, 0xe0, 0xb2));
      return {};
    }
    if (role == Qt::ForegroundRole) return a == Activity::Exited ? QBrush(Qt::gray) : QVariant();
    if (waiting) {
      QFont f;
      f.setBold(true);
      return f;
    }
  }
  if (role == Qt::TextAlignmentRole && (index.column() == RecordsCol || index.column() == CpuCol))
    return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant TaskTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o == Qt::Horizontal && role == Qt::ToolTipRole && section == CpuCol)
    return QStringLiteral("The task's CPU time as a share of its life up to the replay position, and the share it was "
                          "ready to run without a CPU (abmon's clock-driven samples; empty without them)");
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Task", "Tid", "Host", "Records", "CPU", "Doing now"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

}  // namespace xab::view
