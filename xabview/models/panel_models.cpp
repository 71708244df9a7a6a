#include "panel_models.h"

#include "activity.h"

#include <QBrush>

#include <algorithm>

namespace xab::view {
namespace {

QString label(const ViewSnapshot& s, TaskIndex t) { return QString::fromStdString(s.trace->label(t)); }

QString seconds(const ViewSnapshot& s, TimeNs t) { return QString::fromStdString(formatSeconds(t, s.firstTime())); }

}  // namespace

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

// ---- message matrix ----

double PairAt::bandwidth() const {
  return transit > 0 ? static_cast<double>(receivedBytes) * 1e9 / static_cast<double>(transit) : 0.0;
}

// Both the matrix and the queue read the snapshot's message lines (one
// per receive, with both records' positions) and the short list of named
// destinations that never received: one sequential pass, no trace lookups.
// (A receive by a task its send did not name cannot happen in PVM; such a
// line in a corrupt trace would show as queued until received.)
PairMatrix pairsAt(const ViewSnapshot& s, std::size_t position) {
  const std::size_t tasks = s.trace->taskCount();
  const bool dense = tasks <= 256;
  std::vector<PairAt> grid(dense ? tasks * tasks : 0);
  PairMatrix out;
  auto cell = [&](TaskIndex from, TaskIndex to) -> PairAt& { return dense ? grid[from * tasks + to] : out[{from, to}]; };
  for (const MessageLine& l : s.lines()) {
    if (l.sendPos >= position) continue;
    PairAt& p = cell(l.sender, l.receiver);
    auto bytes = static_cast<std::uint64_t>(std::max(l.bytes, 0));
    ++p.count;
    p.bytes += bytes;
    if (l.recvPos < position) {
      p.receivedBytes += bytes;
      p.transit = addTime(p.transit, std::max<TimeNs>(l.recv - l.send, 0));
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
  if (tasks_ > 0) emit dataChanged(index(0, 0), index(tasks_ - 1, tasks_ - 1));
}

void MessageMatrixModel::setMetric(Metric m) {
  metric_ = m;
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
  return {};
}

QVariant MessageMatrixModel::headerData(int section, Qt::Orientation o, int role) const {
  const ViewSnapshot* s = state_->snapshot();
  if (!s || role != Qt::DisplayRole || section < 0 || section >= tasks_) return {};
  QString l = label(*s, static_cast<TaskIndex>(section));
  return o == Qt::Vertical ? l + QStringLiteral(" →") : QStringLiteral("→ ") + l;
}

// ---- pending queues ----

std::vector<PendingEntry> pendingAt(const ViewSnapshot& s, std::size_t position) {
  std::vector<PendingEntry> out;
  for (const MessageLine& l : s.lines())
    if (l.sendPos < position && l.recvPos >= position) out.push_back({l.receiver, l.message});
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

// ---- hang and mismatch text ----

QStringList hangReportLines(const ViewSnapshot& s) {
  QStringList out;
  for (const auto& line : s.hangText().summary) out << QString::fromStdString(line);
  for (const auto& e : s.hangText().explanations)
    if (!out.contains(QString::fromStdString(e))) out << QString::fromStdString(e);
  for (const auto& m : s.mismatches().mismatches)
    out << QStringLiteral("%1 -> %2: %3").arg(label(s, m.sender), label(s, m.receiver),
                                              QString::fromStdString(m.explanation));
  return out;
}

QString hangReportHtml(const ViewState& state) {
  const ViewSnapshot* s = state.snapshot();
  if (!s) return QStringLiteral("<p>No trace yet.</p>");
  auto link = [&](EventRef r, const QString& text) {
    return QStringLiteral("<a href=\"event:%1\">%2</a>").arg(s->positionOf(r)).arg(text.toHtmlEscaped());
  };
  QString html;
  if (!state.atEnd()) {
    html += QStringLiteral("<p><i>Replaying: record %1 of %2. Tasks waiting at this moment:</i></p><ul>")
                .arg(state.position()).arg(s->size());
    int n = 0;
    for (TaskIndex t = 0; t < s->trace->taskCount(); ++t) {
      auto a = describeTask(state, t);
      if (a.kind != Activity::Blocked && a.kind != Activity::Barrier) continue;
      ++n;
      EventRef r{t, state.shownOf(t) - 1};
      html += "<li>" + label(*s, t).toHtmlEscaped() + ": " + link(r, a.text) + "</li>";
    }
    html += n ? "</ul>" : "<li>none</li></ul>";
    html += QStringLiteral("<p><i>The full diagnosis appears at the end of the trace.</i></p>");
    return html;
  }
  if (!s->hang().hung && s->mismatches().mismatches.empty())
    html += s->mismatches().records == 0
                ? QStringLiteral("<p>No task is blocked; pack/unpack not checked: no pack records.</p>")
                : QStringLiteral("<p>No task is blocked; no pack/unpack mismatch (%1 receives checked).</p>")
                      .arg(s->mismatches().checked);
  if (s->hang().hung) {
    qint64 idle = state.msSinceProgress();
    if (!s->inputEnded)  // at the newest record of an input that goes on, live or paused
      html += QStringLiteral("<p><b>No new records for %1 s.</b></p>").arg(idle / 1000.0, 0, 'f', 1);
    const HangText& words = s->hangText();
    html += "<h3>Blocked tasks: " + QString::fromStdString(words.headline).toHtmlEscaped() + "</h3><ul>";
    for (const auto& line : words.summary) {
      bool perTask = std::find(words.explanations.begin(), words.explanations.end(), line) != words.explanations.end();
      if (!perTask) html += "<li><b>" + QString::fromStdString(line).toHtmlEscaped() + "</b></li>";
    }
    html += "</ul><ul>";
    for (std::size_t i = 0; i < s->hang().blocked.size(); ++i) {
      const BlockedTask& b = s->hang().blocked[i];
      EventRef r{b.task, b.state.first};
      html += "<li>" + link(r, label(*s, b.task)) + ": " + QString::fromStdString(words.explanations[i]).toHtmlEscaped();
      for (const auto& p : b.pending) {
        const Message& m = s->messages().messages[p.message];
        html += "<br>&nbsp;&nbsp;queued: " +
                link(m.send, QStringLiteral("tag %1, %2 bytes from %3").arg(QString::fromStdString(formatTag(p.tag))).arg(p.bytes).arg(label(*s, p.sender)));
      }
      html += "</li>";
    }
    html += "</ul>";
    for (const auto& c : s->hang().cycles) {
      QStringList names;
      for (TaskIndex t : c) names << label(*s, t);
      html += "<p>Deadlock: " + names.join(" waits for ").toHtmlEscaped() + " waits for " + names.first().toHtmlEscaped() + "</p>";
    }
  }
  if (!s->mismatches().mismatches.empty()) {
    html += "<h3>Pack/unpack mismatches</h3><ul>";
    for (const auto& m : s->mismatches().mismatches)
      html += "<li>" + link(m.recv, label(*s, m.sender) + " -> " + label(*s, m.receiver)) + ": " +
              QString::fromStdString(m.explanation).toHtmlEscaped() + "</li>";
    html += "</ul>";
  }
  const FailureReport& f = s->failures();
  if (!f.calls.empty()) {  // each links to the first record of its kind
    const Trace& analysed = *s->analysis->model.trace;
    html += QStringLiteral("<h3>Failed calls (%1)</h3><ul>").arg(f.failed);
    for (const auto& t : f.timeouts)
      html += "<li><b>" + link(t.receive, QString::fromStdString(describe(analysed, t))) + "</b></li>";
    for (const auto& c : f.calls) html += "<li>" + link(c.first, QString::fromStdString(describe(analysed, c))) + "</li>";
    html += "</ul>";
  }
  return html;
}

}  // namespace xab::view
