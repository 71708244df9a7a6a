// compare_model.h -- two runs of one program compared, for the Compare tab
// (the model's compareRuns, compare.h; docs/why-slow.md "Comparing runs"):
// the differences ranked, a cause before the waits it explains.
#pragma once

#include <xab/model/compare.h>

#include <QAbstractTableModel>
#include <QStringList>

#include <memory>

namespace xab::view {

// The first trace against the second, each analysed with the wait states
// and the time breakdown (the traces as shown: on the same time base).
// Linear in records; callers run it off the GUI thread.
RunComparison compareTraces(std::shared_ptr<const Trace> first, std::shared_ptr<const Trace> second);

// One row per difference, in the comparison's order.
class CompareModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { WhatCol, TaskCol, FirstCol, SecondCol, ChangeCol, ColumnCount };
  using QAbstractTableModel::QAbstractTableModel;
  void setComparison(RunComparison c);
  const RunComparison& comparison() const { return c_; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
 private:
  RunComparison c_;
};

// What the tab says above the table: a different program shape and what
// differs, or how many differences (and that the first is the largest).
QStringList compareSummary(const RunComparison& c);

}  // namespace xab::view
