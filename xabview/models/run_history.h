// run_history.h -- what a memory budget cut away, kept as a summary.
//
// Under a memory budget (--budget) the reader keeps a window of the newest
// records (the model's TraceSource window: Trace::cut()); the records
// before it are dropped.  Before they go, their task states are folded
// here: per task, a fixed number of bins over the whole time they cover,
// each holding the state that covered most of it and how much of it.  When
// the run outgrows the bins, their width doubles (pairs merge), so the
// summary's size depends on the tasks, never on the run's length: the
// diagram at full zoom-out draws the whole run, the window's records in
// detail and the time before it from here (as the window's own mipmaps do
// at low zoom).  Immutable once handed to a snapshot: each cut makes a new
// one from the last (a copy of the bins, which are small).
#pragma once

#include <xab/model/model.h>

#include <array>
#include <cstdint>
#include <vector>

namespace xab::view {

class RunHistory {
 public:
  // Bins per task (the width of a full-screen diagram, with room).
  static constexpr std::size_t kBins = 2048;
  static constexpr std::uint8_t kNone = 0xFF;
  static constexpr std::size_t kStates = 11;  // TaskState's values

  // A history whose time starts at `origin` (the run's first record) with
  // bins `width` ns wide to begin with (doubled as the run goes on).
  explicit RunHistory(TimeNs origin = 0, TimeNs width = 1'000'000);

  // Task t was in `state` from `begin` to `end`; a task's intervals come in
  // time order, each starting at or after the previous one's end.  Times
  // before the origin are left out.
  void fold(TaskIndex t, TimeNs begin, TimeNs end, TaskState state);
  // Every open bin closed (the folds of a cut are done): what the bins
  // say is final up to `end()`.
  void settle();

  TimeNs origin() const { return origin_; }
  TimeNs binWidth() const { return width_; }
  // The latest time folded: the history covers [origin(), end()).
  TimeNs end() const { return end_; }
  bool empty() const { return end_ <= origin_; }
  std::size_t taskCount() const { return tasks_.size(); }
  // The state that covered most of [from, to) for task t, kNone if no
  // folded interval covers any of it (a task not started, or after end()).
  std::uint8_t stateIn(TaskIndex t, TimeNs from, TimeNs to) const;
  // Records of the run before the window (Trace::cut().dropped), for the
  // status bar.
  std::uint64_t records() const { return records_; }
  void setRecords(std::uint64_t n) { records_ = n; }
  std::size_t memoryBytes() const;

 private:
  // A bin: the state that covered most of it (kNone: nothing) and its
  // share of the bin, 0-255.
  struct Bin {
    std::uint8_t state = kNone;
    std::uint8_t share = 0;
  };
  struct Task {
    std::vector<Bin> bins;                // kBins once anything is folded
    std::size_t open = SIZE_MAX;          // the bin being filled
    std::array<TimeNs, kStates> acc{};    // its time per state so far
  };
  void close(Task& task);
  void doubleWidth();
  TimeNs origin_ = 0, width_ = 1, end_ = 0;
  std::uint64_t records_ = 0;
  std::vector<Task> tasks_;
};

}  // namespace xab::view
