// growing_table_model.h -- a table whose rows grow as a trace loads.
//
// Tasks and barrier instances only ever grow in number while the reader
// thread hands over snapshots; the models that list them share how they
// follow a new snapshot (and the replay position, which changes every cell).
#pragma once

#include <QAbstractTableModel>

namespace xab::view {

class GrowingTableModel : public QAbstractTableModel {
 public:
  using QAbstractTableModel::QAbstractTableModel;
  int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : rows_; }

 protected:
  // Rows to `want`: inserted when there are more, a reset when there are
  // fewer (a new input); every cell is reported changed.
  void syncRows(int want) {
    if (want < rows_) {
      beginResetModel();
      rows_ = want;
      endResetModel();
      return;
    }
    if (want > rows_) {
      beginInsertRows({}, rows_, want - 1);
      rows_ = want;
      endInsertRows();
    }
    if (rows_ > 0) emit dataChanged(index(0, 0), index(rows_ - 1, columnCount() - 1));
  }

 private:
  int rows_ = 0;
};

}  // namespace xab::view
