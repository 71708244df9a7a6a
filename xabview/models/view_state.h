// view_state.h -- the one state every view shares.
//
// Hotspot's lesson: a single object holds the snapshot being shown, the
// replay position, the visible time range, the filter and the selection;
// each view listens to it and changes it, and no view talks to another.
//
// The replay position counts records in arrival order (the order abmon
// received them: "the next event in the monitor's event queue", Beguelin,
// Xab, §3.3).  Position p shows the first p records; the current event is p-1.
// In live mode the position follows the end as snapshots arrive; pausing,
// stepping or jumping leaves live mode until setLive(true).
//
// The visible time range follows too: the whole trace until the user
// zooms; zoomed in live mode, the chosen width with the newest time at the
// right edge; after a pan (the user looks at history) it stays put until
// setLive(true) or fitAll().
#pragma once

#include "lazy_why.h"
#include "row_plan.h"
#include "trace_loader.h"

#include <QElapsedTimer>
#include <QObject>

#include <optional>
#include <set>
#include <vector>

namespace xab::view {

struct EventFilter {
  std::set<TaskIndex> tasks;          // empty: every task
  std::optional<Kind> kind;           // a call (begin and end records)
  std::optional<std::int32_t> tag;    // records with this tag
  // libab's own records (clock, cost, flush: isLibabRecord) are left out
  // unless asked for (or named by `kind`).
  bool libabRecords = false;
  bool matches(const ViewSnapshot& s, const OrderEntry& e) const { return matches(e, s.event(e)); }
  bool matches(const OrderEntry& e, const Event& ev) const { return matches(e, RecordRef(ev)); }
  // r: the record e names; its event is decoded only for a tag.
  bool matches(const OrderEntry& e, const RecordRef& r) const;
  // No task, call or tag chosen (libab's records may still be left out).
  bool empty() const { return tasks.empty() && !kind && !tag; }
  bool all() const { return empty() && libabRecords; }  // every record matches
};

// An interval of a task's row the diagram draws over its states: a wait
// of the cause chosen in the Why-slow panel, the work of the task that
// caused it, a step of the critical path (docs/why-slow.md).
struct Highlight {
  enum Kind : std::uint8_t { Wait, CauseWork, Critical } kind = Wait;
  TaskIndex task = 0;
  TimeNs begin = 0, end = 0;
  friend bool operator==(const Highlight&, const Highlight&) = default;
};

class ViewState : public QObject {
  Q_OBJECT
 public:
  explicit ViewState(QObject* parent = nullptr);

  const ViewSnapshot* snapshot() const { return snapshot_.get(); }
  SnapshotPtr snapshotPtr() const { return snapshot_; }  // to share it (the overview's own state)
  std::size_t size() const { return snapshot_ ? snapshot_->size() : 0; }

  std::size_t position() const { return position_; }
  bool live() const { return live_; }
  bool atEnd() const { return position_ >= size(); }
  // Records of `task` shown at the current position.
  std::uint32_t shownOf(TaskIndex task) const;
  // "Now" at the current position: the latest task time shown.
  TimeNs cursorTime() const;
  // Live and at the end: wall-clock now, so "blocked for 12.4 s" keeps counting.
  TimeNs nowTime() const;

  TimeNs viewBegin() const { return viewBegin_; }
  TimeNs viewEnd() const { return viewEnd_; }
  // Where the zoom keys zoom: the middle of the view; following the
  // newest records, the newest time (so it stays in view).
  TimeNs zoomCenter() const;

  const EventFilter& filter() const { return filter_; }
  std::optional<std::size_t> selected() const { return selected_; }
  // Chosen on the diagram (selectAt): the time clicked on the selected
  // record's row, where the diagram marks it (a bar is marked where it was
  // clicked, not at its start); the message whose line was clicked, drawn
  // highlighted with its receives marked.  Any other select() clears them.
  std::optional<TimeNs> selectedTime() const { return selectedTime_; }
  std::optional<std::uint32_t> selectedMessage() const { return selectedMessage_; }
  const std::vector<Highlight>& highlights() const { return highlights_; }
  // The rows the user chose (row_plan.h) and the diagram's rows under it,
  // computed once per snapshot and choice.
  const RowChoice& rowChoice() const { return rowChoice_; }
  const RowPlan& rowPlan() const;

  // The Why-slow analysis (lazy_why.h): made for the shown snapshot and
  // each newer one once wantWhy() was called (the Why slow tab shown, a
  // script that writes it); until then snapshots have none.  whyRuns():
  // how many were begun.
  void wantWhy();
  bool whyWanted() const { return why_->wanted(); }
  bool whyRunning() const { return why_->running(); }
  std::uint64_t whyRuns() const { return why_->started(); }

  // Milliseconds since the last snapshot that brought new task records
  // (abmon's own, such as its samples, are no progress of the program).
  qint64 msSinceProgress() const { return progressClock_.elapsed(); }

 public slots:
  void setSnapshot(xab::view::SnapshotPtr s);
  void setPosition(std::size_t p);        // leaves live mode unless p is the end
  void step(long delta);                  // leaves live mode
  void setLive(bool live);
  void setViewRange(TimeNs begin, TimeNs end);
  void zoom(double factor, TimeNs center);  // factor < 1 zooms in, `center` stays put
  void pan(double fraction);                // of the visible width
  // zoom() and pan() keep to the trace, with a margin of 1/50 of it.
  void fitAll();
  // Live, following a running program: the view moves on to the present
  // (called every second: time passes while no record comes).
  void followPresent();
  void setFilter(const xab::view::EventFilter& f);
  void select(std::optional<std::size_t> position);
  void selectAt(std::size_t position, xab::TimeNs time, std::optional<std::uint32_t> message = std::nullopt);
  void setHighlights(std::vector<xab::view::Highlight> h);
  void setRowChoice(const xab::view::RowChoice& c);
  // Time t is before the window of a budget-cut trace (only its summary is
  // held): historyWanted(t) and true; else false.
  bool askHistory(xab::TimeNs t);

 signals:
  void snapshotChanged();
  void positionChanged();
  void rangeChanged();
  void filterChanged();
  void selectionChanged();
  void highlightsChanged();
  void rowsChanged();
  void liveChanged(bool live);
  // A view asks for the records of a time a memory budget's window no
  // longer holds (InputSession reads them again: TraceLoader::readHistory).
  void historyWanted(xab::TimeNs t);

 private:
  void refreshShown();
  void moveShown(std::size_t from);  // refreshShown() after the position moved from `from`
  TimeNs newestTime() const;  // where the whole trace's range ends
  void showNewest(TimeNs width);
  void clampToTrace(TimeNs begin, TimeNs end);  // setViewRange, kept on the trace

  SnapshotPtr snapshot_;
  LazyWhy* why_;
  std::size_t position_ = 0;
  bool live_ = true;
  enum class Follow { WholeTrace, Newest, None };
  Follow follow_ = Follow::WholeTrace;
  TimeNs viewBegin_ = 0, viewEnd_ = 1'000'000'000;
  EventFilter filter_;
  std::optional<std::size_t> selected_;
  std::optional<TimeNs> selectedTime_;
  std::optional<std::uint32_t> selectedMessage_;
  std::vector<Highlight> highlights_;
  RowChoice rowChoice_;
  mutable RowPlan rowPlan_;
  mutable const ViewSnapshot* rowPlanOf_ = nullptr;  // the snapshot rowPlan_ is of
  mutable bool rowPlanStale_ = true;
  std::vector<std::uint32_t> shown_;
  TimeNs cursorTime_ = 0;
  QElapsedTimer progressClock_;
};

}  // namespace xab::view
