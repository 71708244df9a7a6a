// event_log_model.h -- every record, lazily.
//
// Rows are records in arrival order (libab's own records only on request:
// EventFilter::libabRecords).  When every record is shown the model holds no
// per-row data at all (row = position); otherwise it keeps the matching
// positions or the others, whichever are fewer (row_set.h).  Text is made only for rows a view asks
// about, so a million rows scroll like ten.  Snapshots only ever append
// records, so a new snapshot inserts rows at the end; a budget's later
// window (ViewSnapshot::shiftFrom) moves the rows it keeps (RowSet::shift)
// and reads only the records carried across the cut and the new ones.
#pragma once

#include "row_set.h"
#include "view_state.h"

#include <QAbstractTableModel>

namespace xab::view {

class EventLogModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { SeqCol, TimeCol, TaskCol, EventCol, FieldsCol, ColumnCount };
  enum Role { PositionRole = Qt::UserRole + 1 };

  explicit EventLogModel(ViewState* state, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

  std::size_t positionOfRow(int row) const;
  int rowOfPosition(std::size_t position) const;  // -1 if filtered out
  // The last row at or before `position` (what the filter keeps of the
  // records up to it); -1 if none.
  int rowAtOrBefore(std::size_t position) const;
  // Records the filter was asked about since this was made: what a test
  // reads to see that a cut costs what it brought, not the window.
  std::uint64_t recordsRead() const { return read_; }

 private slots:
  void onSnapshot();
  void onFilter();
  void onPosition();

 private:
  // Whether each position in [from, to) matches the filter.
  std::vector<bool> matches(std::size_t from, std::size_t to);
  // The rows of an earlier window moved to this one, then the new records'.
  void shiftRows(const ViewSnapshot::Shift& shift);

  ViewState* state_;
  std::size_t known_ = 0;             // records of the snapshot the rows reflect
  std::uint64_t window_ = 0;  // the window known_ counts in (ViewSnapshot::windowStart)
  bool fromHistory_ = false;  // and whether it was the past read again
  bool filtered_ = false;
  RowSet rows_;                       // the positions shown, when filtered
  std::size_t lastPosition_ = 0;
  std::uint64_t read_ = 0;
};

QString eventName(const Trace& trace, const Event& e);  // "recv.begin", or an unknown name

}  // namespace xab::view
