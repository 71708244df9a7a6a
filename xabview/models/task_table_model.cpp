#include "task_table_model.h"

#include <QBrush>
#include <QFont>

namespace xab::view {

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
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
      case TaskCol: return QString::fromStdString(tr.label(t));
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
  if (role == Qt::TextAlignmentRole && index.column() == RecordsCol)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant TaskTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Task", "Tid", "Host", "Records", "Doing now"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

}  // namespace xab::view
