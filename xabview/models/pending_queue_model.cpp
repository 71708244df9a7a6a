// Messages sent and not yet received at the replay position.
#include "panel_models.h"
#include "panel_words.h"

#include "activity.h"

#include <algorithm>

namespace xab::view {

// ---- pending queues ----

std::vector<PendingEntry> pendingAt(const ViewSnapshot& s, std::size_t position) {
  std::vector<PendingEntry> out;
  const MessageLines& lines = s.lines();
  ShownRecords shown(s, position);
  std::size_t known = SIZE_MAX;
  std::uint32_t rank = 0;
  for (std::size_t i = 0; i < lines.size() && !shown.all(); ++i)  // at the end nothing is pending
    if (shown.shown(lines.sendRef(i)) && !shown.shown(lines.recvRef(i, known, rank)))
      out.push_back({lines.receiver(i), lines.message(i)});
  for (const Undelivered& u : s.undelivered())
    if (u.sendPos < position) out.push_back({u.receiver, u.message});
  std::sort(out.begin(), out.end(), [](const PendingEntry& a, const PendingEntry& b) {
    return a.receiver != b.receiver ? a.receiver < b.receiver : a.message < b.message;
  });
  return out;
}

PendingQueueModel::PendingQueueModel(ViewState* state, QObject* parent)
    : QAbstractTableModel(parent), state_(state) {
  connect(state_, &ViewState::snapshotChanged, this, &PendingQueueModel::recompute);
  connect(state_, &ViewState::positionChanged, this, &PendingQueueModel::recompute);
}

void PendingQueueModel::setActive(bool active) {
  active_ = active;
  if (active_ && stale_) recompute();
}

// pendingAt sweeps every message too: only for a panel someone sees.
void PendingQueueModel::recompute() {
  if (!active_) {
    stale_ = true;
    return;
  }
  stale_ = false;
  beginResetModel();
  const ViewSnapshot* s = state_->snapshot();
  rows_ = s ? pendingAt(*s, state_->position()) : std::vector<PendingEntry>{};
  ++computations_;
  endResetModel();
}

int PendingQueueModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }
int PendingQueueModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PendingQueueModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ViewSnapshot* s = state_->snapshot();
  if (!s) return {};
  const PendingEntry& p = rows_[static_cast<std::size_t>(index.row())];
  const Message& m = s->messages().messages[p.message];
  if (role == PositionRole) return static_cast<qulonglong>(s->positionOf(m.send));
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case ReceiverCol: return label(*s, p.receiver);
    case SenderCol: return label(*s, m.sender);
    case TagCol: return QString::fromStdString(formatTag(m.tag));
    case BytesCol: return m.bytes;
    case SentCol: return seconds(*s, m.time);
    case WaitingCol: return formatDuration(std::max<TimeNs>(0, state_->nowTime() - m.time));
  }
  return {};
}

QVariant PendingQueueModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Queued for", "From", "Tag", "Bytes", "Sent at (s)", "Waiting"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

}  // namespace xab::view
