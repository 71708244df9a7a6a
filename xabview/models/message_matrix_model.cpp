// Sender x receiver at the replay position: pairsAt and its model.
#include "panel_models.h"

#include "heat.h"
#include "panel_words.h"

#include <algorithm>

namespace xab::view {

// ---- message matrix ----

double PairAt::bandwidth() const {
  return transit > 0 ? static_cast<double>(receivedBytes) * 1e9 / static_cast<double>(transit) : 0.0;
}

// Both the matrix and the queue read the snapshot's message lines (one
// per receive, its tasks and times at hand; whether its records are shown,
// short of the end, from the message table) and the short list of named
// destinations that never received: one sequential pass.  At the end every
// line is shown: the matrix is the model's pairs (MessageTable::pairs, the
// same lines and bytes); short of it, the lines' own sizes add up.
// (A receive by a task its send did not name cannot happen in PVM; such a
// line in a corrupt trace would show as queued until received.)
PairMatrix pairsAt(const ViewSnapshot& s, std::size_t position) {
  const std::size_t tasks = s.trace->taskCount();
  const bool dense = tasks <= 256;
  std::vector<PairAt> grid(dense ? tasks * tasks : 0);
  PairMatrix out;
  auto cell = [&](TaskIndex from, TaskIndex to) -> PairAt& { return dense ? grid[from * tasks + to] : out[{from, to}]; };
  const MessageLines& lines = s.lines();
  ShownRecords shown(s, position);
  if (shown.all() && lines.table()) {
    for (const auto& [pair, stats] : lines.table()->pairs)
      cell(pair.first, pair.second) = {stats.count, stats.bytes, stats.bytes, stats.transit};
  }
  std::size_t known = SIZE_MAX;
  std::uint32_t rank = 0;
  for (std::size_t i = 0; i < lines.size() && !shown.all(); ++i) {
    if (!shown.shown(lines.sendRef(i))) continue;
    PairAt& p = cell(lines.sender(i), lines.receiver(i));
    const EventRef recv = lines.recvRef(i, known, rank);
    auto bytes = static_cast<std::uint64_t>(std::max(lines.bytes(i), 0));
    ++p.count;
    p.bytes += bytes;
    if (shown.shown(recv)) {
      p.receivedBytes += bytes;
      p.transit = addTime(p.transit, std::max<TimeNs>(lines.recv(i) - lines.send(i), 0));
    }
  }
  for (const Undelivered& u : s.undelivered()) {
    if (u.sendPos >= position) continue;
    PairAt& p = cell(s.messages().messages[u.message].sender, u.receiver);
    ++p.count;
    p.bytes += static_cast<std::uint64_t>(std::max(u.bytes, 0));
  }
  if (dense)
    for (std::size_t i = 0; i < grid.size(); ++i)
      if (grid[i].count) out[{static_cast<TaskIndex>(i / tasks), static_cast<TaskIndex>(i % tasks)}] = grid[i];
  return out;
}

MessageMatrixModel::MessageMatrixModel(ViewState* state, QObject* parent)
    : QAbstractTableModel(parent), state_(state) {
  connect(state_, &ViewState::snapshotChanged, this, &MessageMatrixModel::reset);
  connect(state_, &ViewState::positionChanged, this, &MessageMatrixModel::recompute);
}

// pairsAt sweeps every message: on the GUI thread at every live snapshot,
// so not for a panel no one sees.
bool MessageMatrixModel::skipped() {
  if (!active_) stale_ = true;
  return !active_;
}

void MessageMatrixModel::setActive(bool active) {
  active_ = active;
  if (active_ && stale_) reset();
}

void MessageMatrixModel::recompute() {
  if (skipped()) return;
  stale_ = false;
  const ViewSnapshot* s = state_->snapshot();
  pairs_ = s ? pairsAt(*s, state_->position()) : PairMatrix{};
  ++computations_;
  findMax();
  if (tasks_ > 0) emit dataChanged(index(0, 0), index(tasks_ - 1, tasks_ - 1));
}

double MessageMatrixModel::valueOf(const PairAt& p) const {
  switch (metric_) {
    case Metric::Count: return static_cast<double>(p.count);
    case Metric::Bytes: return static_cast<double>(p.bytes);
    case Metric::Bandwidth: return p.bandwidth();
  }
  return 0;
}

void MessageMatrixModel::findMax() {
  max_ = 0;
  for (const auto& [pair, p] : pairs_) max_ = std::max(max_, valueOf(p));
}

void MessageMatrixModel::setMetric(Metric m) {
  metric_ = m;
  findMax();
  if (tasks_ > 0) emit dataChanged(index(0, 0), index(tasks_ - 1, tasks_ - 1));
}

void MessageMatrixModel::reset() {
  if (skipped()) return;
  const ViewSnapshot* s = state_->snapshot();
  int want = s ? static_cast<int>(s->trace->taskCount()) : 0;
  if (want != tasks_) {
    beginResetModel();
    stale_ = false;
    tasks_ = want;
    pairs_ = s ? pairsAt(*s, state_->position()) : PairMatrix{};
    ++computations_;
    findMax();
    endResetModel();
  } else {
    recompute();
  }
}

int MessageMatrixModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : tasks_; }
int MessageMatrixModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : tasks_; }

QVariant MessageMatrixModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ViewSnapshot* s = state_->snapshot();
  if (!s || index.row() >= tasks_ || index.column() >= tasks_) return {};
  auto it = pairs_.find({static_cast<TaskIndex>(index.row()), static_cast<TaskIndex>(index.column())});
  if (it == pairs_.end()) return role == Qt::DisplayRole ? QVariant(QString()) : QVariant();
  const PairAt& p = it->second;
  if (role == Qt::DisplayRole) {
    switch (metric_) {
      case Metric::Count: return static_cast<qulonglong>(p.count);
      case Metric::Bytes: return static_cast<qulonglong>(p.bytes);
      case Metric::Bandwidth: return QString::number(p.bandwidth() / 1e6, 'f', 2);
    }
  }
  if (role == Qt::ToolTipRole)
    return QStringLiteral("%1 -> %2: %3 messages, %4 bytes sent by this record; %5 MB/s over the %6 bytes received")
        .arg(label(*s, static_cast<TaskIndex>(index.row())), label(*s, static_cast<TaskIndex>(index.column())))
        .arg(p.count).arg(p.bytes).arg(p.bandwidth() / 1e6, 0, 'f', 2).arg(p.receivedBytes);
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  // A heat map: each pair shaded by its share of the busiest pair (heat.h).
  if (role == Qt::BackgroundRole && max_ > 0) return heatColor(valueOf(p) / max_);
  if (role == Qt::ForegroundRole && max_ > 0) return heatText(valueOf(p) / max_);
  return {};
}

QVariant MessageMatrixModel::headerData(int section, Qt::Orientation o, int role) const {
  const ViewSnapshot* s = state_->snapshot();
  if (!s || role != Qt::DisplayRole || section < 0 || section >= tasks_) return {};
  QString l = label(*s, static_cast<TaskIndex>(section));
  return o == Qt::Vertical ? l + QStringLiteral(" →") : QStringLiteral("→ ") + l;
}

}  // namespace xab::view
