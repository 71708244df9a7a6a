// call_counts.h -- records per call (Kind) of the snapshot shown: the
// event log's Call box ("send (640)").
//
// Kept up to date as snapshots come, each read once: a snapshot that
// extends the last one costs its new records, and a budget's later window
// (ViewSnapshot::shiftFrom) what the cut brought in front (the carried
// records) and one block: the counts are kept per block of kBlock run
// positions, so what the cut dropped comes off a block at a time, and the
// block the cut goes through is counted again from what it kept.  Any
// other snapshot (another input, the past read again, back from it) is
// counted whole.
#pragma once

#include "snapshot.h"

#include <array>
#include <cstdint>
#include <deque>

namespace xab::view {

class CallCounts {
 public:
  static constexpr std::size_t kBlock = 8192;
  // Brings the counts to `s` (null: none); false if it held nothing new.
  bool update(const ViewSnapshot* s);
  std::uint64_t operator[](Kind k) const { return total_[static_cast<std::size_t>(k)]; }
  // Records read since this was made: what a test reads to see that a cut
  // costs what it brought, not the window.
  std::uint64_t recordsRead() const { return read_; }

 private:
  using Counts = std::array<std::uint32_t, kKindCount>;
  void clear();
  // The earlier window moved on by `shift`: its blocks before the cut
  // dropped, the block the cut goes through counted again.
  void move(const ViewSnapshot& s, const ViewSnapshot::Shift& shift);
  // Positions [from, to) of `s` counted in.
  void count(const ViewSnapshot& s, std::size_t from, std::size_t to);
  Counts& blockOf(std::uint64_t run);  // the block of run position `run`, made if new

  std::array<std::uint64_t, kKindCount> total_{};
  std::deque<Counts> blocks_;  // of run positions [firstBlock_ * kBlock, ...), in kBlock blocks
  std::uint64_t firstBlock_ = 0;
  std::size_t counted_ = 0;    // positions of the window counted: [0, counted_)
  std::size_t carried_ = 0;
  std::uint64_t start_ = 0;    // the window's start in the run (ViewSnapshot::windowStart)
  bool fromHistory_ = false;
  bool any_ = false;           // a snapshot was counted since clear()
  std::uint64_t read_ = 0;
};

}  // namespace xab::view
