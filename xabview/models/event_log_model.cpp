#include "event_log_model.h"

#include "activity.h"

#include <QBrush>
#include <QFont>

#include <algorithm>

namespace xab::view {

QString eventName(const Trace& trace, const Event& e) {
  std::string_view name = e.kind == Kind::OTHER ? trace.str(e.a[0]) : kindName(e.kind);
  QString q = QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
  return e.isBegin() ? q + ".begin" : q;
}

EventLogModel::EventLogModel(ViewState* state, QObject* parent)
    : QAbstractTableModel(parent), state_(state) {
  connect(state_, &ViewState::snapshotChanged, this, &EventLogModel::onSnapshot);
  connect(state_, &ViewState::filterChanged, this, &EventLogModel::onFilter);
  connect(state_, &ViewState::positionChanged, this, &EventLogModel::onPosition);
  onFilter();
}

int EventLogModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return static_cast<int>(filtered_ ? rows_.size() : known_);
}

int EventLogModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

std::size_t EventLogModel::positionOfRow(int row) const {
  return filtered_ ? rows_.positionOf(static_cast<std::size_t>(row)) : static_cast<std::size_t>(row);
}

int EventLogModel::rowOfPosition(std::size_t position) const {
  if (!filtered_) return position < known_ ? static_cast<int>(position) : -1;
  return rows_.contains(position) ? static_cast<int>(rows_.rowsBefore(position)) : -1;
}

int EventLogModel::rowAtOrBefore(std::size_t position) const {
  if (!filtered_) return known_ == 0 ? -1 : static_cast<int>(std::min(position, known_ - 1));
  return static_cast<int>(rows_.rowsBefore(position + 1)) - 1;
}

std::vector<bool> EventLogModel::matches(std::size_t from, std::size_t to) {
  std::vector<bool> keep(to > from ? to - from : 0, false);
  const ViewSnapshot* s = state_->snapshot();
  if (!s || from >= to) return keep;  // no trace yet (libab's records are left out from the start)
  read_ += to - from;
  const EventFilter& filter = state_->filter();
  s->forEachRecord(from, to, [&](std::size_t p, const OrderEntry& e, const RecordRef& r) {
    keep[p - from] = filter.matches(e, r);
  });
  return keep;
}

void EventLogModel::onSnapshot() {
  const std::size_t size = state_->size();
  const ViewSnapshot* s = state_->snapshot();
  // Another window of the run: a budget's later one moves the rows it
  // keeps; another input, the past read again or back from it, a window
  // beyond what was read: the rows are made again.
  if ((s ? s->windowStart() : 0) != window_ || (s && s->fromHistory) != fromHistory_) {
    const auto shift = s ? s->shiftFrom(window_, known_, fromHistory_) : std::nullopt;
    if (shift && size + shift->shift >= known_) shiftRows(*shift);
    else onFilter();
    return;
  }
  if (size < known_) {  // another input
    onFilter();
    return;
  }
  if (size == known_) return;
  if (!filtered_) {
    beginInsertRows({}, static_cast<int>(known_), static_cast<int>(size) - 1);
    known_ = size;
    endInsertRows();
    return;
  }
  const std::vector<bool> keep = matches(known_, size);
  known_ = size;
  const auto added = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true));
  if (added == 0) {
    rows_.append(keep);
    return;
  }
  const std::size_t old = rows_.size();
  beginInsertRows({}, static_cast<int>(old), static_cast<int>(old + added) - 1);
  rows_.append(keep);
  endInsertRows();
}

void EventLogModel::onFilter() {
  beginResetModel();
  rows_.clear();
  filtered_ = !state_->filter().all();
  known_ = state_->size();
  window_ = state_->snapshot() ? state_->snapshot()->windowStart() : 0;
  fromHistory_ = state_->snapshot() && state_->snapshot()->fromHistory;
  if (filtered_) rows_.append(matches(0, known_));
  endResetModel();
}

void EventLogModel::shiftRows(const ViewSnapshot::Shift& shift) {
  // A reset, as onFilter(): the rows' numbers all change.  The records
  // carried across the cut are matched in front, then the new ones.
  beginResetModel();
  const auto carried = static_cast<std::size_t>(shift.carried);
  if (filtered_) rows_.shift(static_cast<std::size_t>(shift.firstKept()), static_cast<std::size_t>(shift.shift), matches(0, carried));
  known_ -= static_cast<std::size_t>(shift.shift);
  window_ = state_->snapshot()->windowStart();
  const std::size_t size = state_->size();
  if (filtered_) rows_.append(matches(known_, size));
  known_ = size;
  endResetModel();
}

void EventLogModel::onPosition() {
  // Rows change colour when they move between "shown" and "still to come".
  std::size_t now = state_->position();
  std::size_t lo = std::min(now, lastPosition_), hi = std::max(now, lastPosition_);
  lastPosition_ = now;
  if (rowCount() == 0) return;
  int first = 0, last = rowCount() - 1;
  if (hi - lo < 10000) {  // a step: only the rows between old and new position
    auto rowAtOrAfter = [&](std::size_t p) {
      if (!filtered_) return static_cast<int>(std::min(p, known_));
      return static_cast<int>(rows_.rowsBefore(p));
    };
    first = std::max(0, rowAtOrAfter(lo > 0 ? lo - 1 : 0));
    last = std::min(last, rowAtOrAfter(hi + 1));
  }
  if (first <= last) emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
}

QVariant EventLogModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ViewSnapshot* s = state_->snapshot();
  if (!s) return {};
  std::size_t p = positionOfRow(index.row());
  if (p >= s->size()) return {};
  const OrderEntry oe = s->order[p];
  const Event& e = s->event(oe);
  const Trace& tr = *s->trace;
  if (role == PositionRole) return static_cast<qulonglong>(p);
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case SeqCol: return static_cast<qulonglong>(p + 1);
      case TimeCol: return QString::fromStdString(formatSeconds(e.time, s->firstTime()));
      case TaskCol:
        return oe.task == kMonitorTask ? QStringLiteral("abmon") : QString::fromStdString(tr.label(oe.task));
      case EventCol: return eventName(tr, e);
      case FieldsCol: return eventArgs(tr, e);
    }
    return {};
  }
  if (role == Qt::ForegroundRole && p >= state_->position()) return QBrush(QColor(0xb0, 0xb0, 0xb0));
  // Failed and timed-out calls in the colours of their marks in the diagram.
  const CallOutcome outcome = oe.task == kMonitorTask ? CallOutcome::Ok : outcomeOf(e);
  if (role == Qt::ForegroundRole && outcome == CallOutcome::Failed) return QBrush(kFailedCall);
  if (role == Qt::ForegroundRole && outcome == CallOutcome::TimedOut) return QBrush(kTimedOutCall.darker(130));  // readable as text
  if (role == Qt::ToolTipRole) {
    const QString said = outcome == CallOutcome::Failed ? QStringLiteral("failed: %1").arg(QString::fromStdString(errorWords(e.rc)))
                         : outcome == CallOutcome::TimedOut ? QStringLiteral("timed out: no message came within the timeout (rc=0)")
                                                            : QString();
    // A narrow column cuts the fields short: whole in the tool tip.
    if (index.column() == FieldsCol) return said.isEmpty() ? eventArgs(tr, e) : eventArgs(tr, e) + "\n" + said;
    if (!said.isEmpty()) return said;
  }
  if (role == Qt::BackgroundRole && state_->position() > 0 && p == state_->position() - 1)
    return QBrush(QColor(0xff, 0xf5, 0x9d));
  if (role == Qt::FontRole && e.isBegin() && isBlocking(e.kind)) {
    QFont f;
    f.setItalic(true);
    return f;
  }
  return {};
}

QVariant EventLogModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"#", "Time (s)", "Task", "Event", "Fields"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

}  // namespace xab::view
