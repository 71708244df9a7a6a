// compare_view.h -- a second run beside the first (docs/xabview.md,
// "Comparing two runs"): its diagram under the first one's, the two
// aligned at their first task records and zoomed and panned together, and
// the Compare tab ranking what differs (compare_model.h).
#pragma once

#include "compare_model.h"
#include "trace_loader.h"
#include "view_state.h"

#include <QFutureWatcher>
#include <QWidget>

class QLabel;
class QTableView;

namespace xab::view {

class DiagramView;
class InputSession;

// The second run: its own view state, read by its own loader, drawn by its
// own diagram; its visible range is the first's, shifted by the distance
// between their first task records, both ways.
class CompareView : public QWidget {
  Q_OBJECT
 public:
  CompareView(ViewState* first, TraceLoader::Options second, QWidget* parent = nullptr);
  ~CompareView() override;
  ViewState* second() const { return second_; }
  QString file() const { return file_; }
 private:
  void follow(const ViewState& from, ViewState& to, TimeNs shift);
  TimeNs shift() const;  // the second's first task record less the first's
  ViewState* first_;
  ViewState* second_;
  InputSession* input_;
  DiagramView* diagram_;
  QLabel* title_;
  QString file_;
  bool syncing_ = false;
};

// The Compare tab: what differs between the first run and the second, once
// both are read whole (computed off the GUI thread, again when either
// changes).
class ComparePanel : public QWidget {
  Q_OBJECT
 public:
  ComparePanel(ViewState* first, QWidget* parent = nullptr);
  void setSecond(ViewState* second);
  CompareModel* model() const { return model_; }
  QString text() const;  // the summary and each row, as shown (--dump-state)
  bool ready() const { return ready_; }  // the table holds the comparison of the runs shown
 signals:
  void compared();
 private:
  void recompute();
  ViewState* first_;
  ViewState* second_ = nullptr;
  CompareModel* model_;
  QTableView* table_;
  QLabel* summary_;
  QFutureWatcher<RunComparison> watcher_;
  std::shared_ptr<const Trace> pendingA_, pendingB_, shownA_, shownB_;
  bool ready_ = false;
};

}  // namespace xab::view
