// state_mipmap.h -- a task's states at levels of detail, made as it runs.
//
// Level 0 cuts the task's time from `origin` into bins of `width0` ns;
// each level above has bins twice as wide.  A bin holds the state that
// covers most of it (kNoState: none), so at full zoom-out a pixel column
// reads one bin instead of walking spans: painting is O(pixels), live as
// well as for a finished file.
//
// A MipmapBuilder folds the task's settled spans as the snapshot builder
// settles them (each state interval once, in time order).  Each level has
// one open bin, which adds up the time of each state exactly; a bin closes
// with the state that covers most of it, a byte.  When the task's time
// outgrows kMipBins bins, level 0 goes and the one above takes its place
// (the width doubles), so a mipmap's size depends on kMipBins, never on the
// run's length.  The levels are append-only between doublings, so a
// snapshot's copy (freeze()) shares every full chunk with the builder.
#pragma once

#include <xab/model/chunked_vector.h>
#include <xab/model/model.h>

#include <array>
#include <cstdint>
#include <vector>

namespace xab::view {

inline constexpr std::uint8_t kNoState = 0xFF;
inline constexpr std::size_t kMipBins = std::size_t{1} << 14;
// A task with fewer settled spans gets none: they are cheap to walk.
inline constexpr std::size_t kMipMinSpans = 4096;

struct StateMipmap {
  // A level: a byte a bin, its state (kNoState: none).
  using Level = ChunkedVector<std::uint8_t, 6, 12>;
  TimeNs origin = 0;
  TimeNs width0 = 0;  // 0: no mipmap
  std::vector<Level> levels;
  // Bins that begin before `from` hold nothing shown (kNoState): under a
  // memory budget a task's bins start at its first record of the run
  // (TaskInfo::firstTime), and those before the window's records settle
  // (SnapshotBuilder) are of records the window no longer holds.
  TimeNs from = INT64_MIN;
  TimeNs binWidth(std::size_t level) const { return width0 << level; }
  // Where the closed bins of a level end: nothing is known after it.
  TimeNs endOf(std::size_t level) const {
    return level < levels.size() ? origin + static_cast<TimeNs>(levels[level].size()) * binWidth(level) : origin;
  }
  // Where the first bin of a level that begins at or after `from` begins.
  TimeNs firstShown(std::size_t level) const {
    if (from <= origin) return origin;
    if (from == INT64_MAX) return INT64_MAX;  // none shown yet
    const TimeNs w = binWidth(level);
    return origin + (from - origin + w - 1) / w * w;
  }
  // The state of the bin holding time t at this level; kNoState outside
  // the closed bins, and before firstShown(level).
  std::uint8_t at(std::size_t level, TimeNs t) const;
  std::size_t memoryBytes() const;
};

class MipmapBuilder {
 public:
  // The task was in `state` from `begin` to `end`; intervals come in time
  // order (one beginning before the last one's end is cut to start there;
  // the bins of a gap before one hold no state).
  void fold(TimeNs begin, TimeNs end, TaskState state);
  // Before the first fold: intervals will start at `origin` and reach at
  // least `end`, so the bins start as wide as that needs (rather than
  // doubling their way there).
  void expect(TimeNs origin, TimeNs end);
  // A copy of the closed bins for a snapshot (none while width0 is 0).
  StateMipmap freeze() const;

 private:
  static constexpr std::size_t kStates = static_cast<std::size_t>(TaskState::Exited) + 1;
  static constexpr std::size_t kLevels = 15;   // level 14: a bin over level 0's kMipBins
  static constexpr TimeNs kFirstWidth = 1000;  // ns; doubled as the task's time grows
  using Cover = std::array<TimeNs, kStates>;   // time per state
  void close();                                // level 0's open bin, and those above it ends
  void doubleWidth();
  TimeNs origin_ = 0, width_ = 0, folded_ = 0;
  std::size_t closed_ = 0;  // level 0's closed bins
  // Each level's open bin: level 0's, the time folded into it; level k's,
  // its closed bins of level k - 1 (one more level than is kept, whose
  // bin holds every closed bin of the top).
  std::array<Cover, kLevels + 1> open_{};
  std::vector<StateMipmap::Level> levels_ = std::vector<StateMipmap::Level>(kLevels);
};

// Spans from `from` on folded into m, each lasting until the next begins
// (the last, whose end is not known, is left out), none after an exit.
// `spans` has size(), stateAt(i) and beginAt(i) (as SpanList::Reader).
// Returns the first span not folded, or size() after an exit.
template <class Spans>
std::size_t foldSpans(Spans& spans, std::size_t from, MipmapBuilder& m) {
  const std::size_t n = spans.size();
  if (from + 1 >= n) return from;
  TimeNs begin = spans.beginAt(from);
  for (std::size_t i = from; i + 1 < n; ++i) {
    const TaskState state = spans.stateAt(i);
    if (state == TaskState::Exited) return n;
    const TimeNs end = spans.beginAt(i + 1);
    m.fold(begin, end, state);
    begin = end;
  }
  return n - 1;
}

}  // namespace xab::view
