// panel_models.h -- item models and contents behind the barrier, message,
// hang and input panels (barrier_models.cpp, message_matrix_model.cpp,
// pending_queue_model.cpp, hang_report.cpp, input_report.cpp: one job
// each).  The widgets only draw what these compute.
#pragma once

#include "view_state.h"

#include <QAbstractTableModel>

#include <map>

#include "growing_table_model.h"

namespace xab::view {

// One row per barrier instance: group, use, who arrived last, waits.
class BarrierWaitModel : public GrowingTableModel {
  Q_OBJECT
 public:
  enum Column { GroupCol, UseCol, TasksCol, LastCol, LateCol, TotalCol, MaxCol, ColumnCount };
  explicit BarrierWaitModel(ViewState* state, QObject* parent = nullptr);
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
 private slots:
  void reset();
 private:
  ViewState* state_;
};

// One row per task: total barrier wait, visits, times it was last.
class BarrierTotalsModel : public GrowingTableModel {
  Q_OBJECT
 public:
  enum Column { TaskCol, WaitCol, VisitsCol, LastCol, ShareCol, ColumnCount };
  explicit BarrierTotalsModel(ViewState* state, QObject* parent = nullptr);
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
 private slots:
  void reset();
 private:
  ViewState* state_;
};

// The barrier chart's content: a title and a bar per task, each one's wait
// in one barrier use (`instance`, an index into the barrier instances) or,
// with instance -1 or out of range, its total barrier wait.
struct BarrierBar {
  QString label;       // the task
  TimeNs wait = 0;
  QString value;       // the wait in words ("700.0 ms")
  bool last = false;   // the last to arrive at that use
};
struct BarrierChartData {
  QString title;
  std::vector<BarrierBar> bars;
  TimeNs most = 1;  // the longest wait, at least 1: the bars' scale
};
BarrierChartData barrierChartData(const ViewSnapshot& s, int instance);

// Messages between one sender and one receiver up to a replay position.
struct PairAt {
  std::uint64_t count = 0;          // sent by then (an mcast once per receiver)
  std::uint64_t bytes = 0;
  std::uint64_t receivedBytes = 0;  // of those, received by then ...
  TimeNs transit = 0;               // ... and their time in transit
  double bandwidth() const;         // bytes per second over transit; 0 if none
};
using PairMatrix = std::map<std::pair<TaskIndex, TaskIndex>, PairAt>;  // (sender, receiver)

// The pair matrix at `position` (the first `position` records shown): each
// message sent by then counts toward each receiver that got it and each
// named destination that had not (yet); bandwidth is over the ones
// received by then.  At the end of a trace whose messages were all
// received, it equals the model's MessageTable::pairs.
PairMatrix pairsAt(const ViewSnapshot& s, std::size_t position);

// Sender x receiver: messages, bytes, bandwidth, at the replay position.
class MessageMatrixModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum class Metric { Count, Bytes, Bandwidth };
  explicit MessageMatrixModel(ViewState* state, QObject* parent = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
  void setMetric(Metric m);
  // A hidden panel's model does no work: while inactive, new snapshots and
  // positions only mark it stale; setActive(true) catches up at once.
  void setActive(bool active);
  // How many times the matrix was computed (each a sweep over every message).
  std::uint64_t computations() const { return computations_; }
 private slots:
  void reset();
  void recompute();
 private:
  bool skipped();
  double valueOf(const PairAt& p) const;  // the metric's
  void findMax();                         // the heat map's scale: the busiest pair
  ViewState* state_;
  Metric metric_ = Metric::Count;
  double max_ = 0;
  int tasks_ = 0;
  PairMatrix pairs_;
  bool active_ = true;
  bool stale_ = false;
  std::uint64_t computations_ = 0;
};

// Messages sent and not yet received at the current position, per receiver.
struct PendingEntry {
  TaskIndex receiver = 0;
  std::uint32_t message = 0;  // index into MessageTable::messages
};

class PendingQueueModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { ReceiverCol, SenderCol, TagCol, BytesCol, SentCol, WaitingCol, ColumnCount };
  enum Role { PositionRole = Qt::UserRole + 1 };
  explicit PendingQueueModel(ViewState* state, QObject* parent = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
  const std::vector<PendingEntry>& entries() const { return rows_; }
  // As MessageMatrixModel's: no work while inactive, caught up when active.
  void setActive(bool active);
  std::uint64_t computations() const { return computations_; }
 private slots:
  void recompute();
 private:
  ViewState* state_;
  std::vector<PendingEntry> rows_;
  bool active_ = true;
  bool stale_ = false;
  std::uint64_t computations_ = 0;
};

// Messages sent to a receiver and not received by `position`.
std::vector<PendingEntry> pendingAt(const ViewSnapshot& s, std::size_t position);

// The hang and mismatch diagnosis as HTML; links "event:<position>" name records.
QString hangReportHtml(const ViewState& state);
// The same in plain text (stderr, --dump-state).
QStringList hangReportLines(const ViewSnapshot& s);

// The input panel's text, a line each: why the input cannot be read
// (`failure`, when not empty), what was read, the malformed lines, and
// the per-host collection figures when the trace has several hosts or a
// relay.  No snapshot (null): the failure alone.
QStringList inputReportLines(const ViewSnapshot* s, const QString& failure);

}  // namespace xab::view
