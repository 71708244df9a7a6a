// The Compare tab's content (compare_model.h).
#include "compare_model.h"

#include <cmath>

namespace xab::view {

RunComparison compareTraces(std::shared_ptr<const Trace> first, std::shared_ptr<const Trace> second) {
  AnalyseOptions o;
  o.why = true;  // and the breakdown: a cause's compute before the waits it explains
  xab::Analysis a = analyse(std::move(first), o);  // the model's, not the snapshot's view::Analysis
  xab::Analysis b = analyse(std::move(second), o);
  return compareRuns({&a, &b});
}

void CompareModel::setComparison(RunComparison c) {
  beginResetModel();
  c_ = std::move(c);
  endResetModel();
}

int CompareModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(c_.differences.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

namespace {

QString figure(double v, const std::string& unit) {
  if (unit == "s") return QString::number(v, 'f', 3) + " s";
  return QString::number(v, 'g', 6) + " " + QString::fromStdString(unit);
}

}  // namespace

QVariant CompareModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const RunDifference& d = c_.differences[static_cast<std::size_t>(index.row())];
  if (role == Qt::ToolTipRole) return QString::fromStdString(d.words);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case WhatCol: return QString::fromStdString(d.what);
    case TaskCol: return QString::fromStdString(d.task);
    case FirstCol: return figure(d.a, d.unit);
    case SecondCol: return figure(d.b, d.unit);
    case ChangeCol: return (d.delta > 0 ? "+" : "") + figure(d.delta, d.unit);
  }
  return {};
}

QVariant CompareModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"What", "Task", "First run", "Second run", "Change"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

QStringList compareSummary(const RunComparison& c) {
  QStringList out;
  if (!c.sameShape) {
    out << "Runs of a different program shape: their figures are not compared.";
    for (const std::string& s : c.shape) out << "  " + QString::fromStdString(s);
    return out;
  }
  if (c.differences.empty()) return {"The two runs do not differ."};
  out << QStringLiteral("%1 differences, the largest change in time first; a cause comes before the waits it "
                        "explains (hover a row for it in words).")
             .arg(c.differences.size());
  return out;
}

}  // namespace xab::view
