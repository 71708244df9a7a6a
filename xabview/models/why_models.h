// why_models.h -- what the Why-slow panel shows and lays on the diagram:
// the root causes of the waiting ranked (the model's WhyReport,
// wait_states.h), the report in the one wording every front end uses
// (why_text.h), and the diagram's highlights for a chosen cause and for
// the critical path (docs/why-slow.md).
#pragma once

#include "growing_table_model.h"
#include "view_state.h"

#include <QStringList>

#include <vector>

namespace xab::view {

// One row per root cause, the costliest first: the task, the pattern of
// the waits its work cost, that waiting, its share of all waiting, and how
// many wait states took a part of it.
class WhyCauseModel : public GrowingTableModel {
  Q_OBJECT
 public:
  enum Column { TaskCol, PatternCol, CostCol, ShareCol, WaitsCol, ColumnCount };
  explicit WhyCauseModel(ViewState* state, QObject* parent = nullptr);
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;
 private slots:
  void reset();
 private:
  ViewState* state_;
};

// The waits the cause `cause` (an index into WhyReport::causes) made
// directly (its task caused them, in its pattern), on the waiters' rows,
// and its task's work during each: from the wait's start to the record
// that ended it (the late send, the last arrival).  A cause whose waiting
// of that pattern all came through a chain of others (its work kept a
// task waiting, which therefore kept these waiters waiting) made none
// itself: then its waiters' waits of the pattern, and its task's time over
// them.  Sorted by kind, task and time.  Out of range: none.
std::vector<Highlight> causeHighlights(const ViewSnapshot& s, std::size_t cause);

// The critical path's steps: each an interval of a task's own work.
std::vector<Highlight> criticalPathHighlights(const ViewSnapshot& s);

// The report in words, a line each: the headline, the root causes, the
// symptoms, the critical path and the slack; while the analysis has not
// reached the newest records, a line that says so first; while s has no
// WhyAnalysis yet (lazy_why.h), one line that it is being made.
QStringList whyReportLines(const ViewSnapshot& s);

}  // namespace xab::view
