// range_stats.h -- what happened in a time range, at the replay position:
// per task the time spent in each state (the diagram's bars, clipped to the
// range), messages sent and received with their bytes; and the totals.
// The details pane shows it for a range dragged on the diagram (Shift+drag).
#pragma once

#include "view_state.h"

#include <array>
#include <vector>

namespace xab::view {

inline constexpr int kStateCount = static_cast<int>(TaskState::Exited) + 1;

struct TaskRangeStats {
  std::array<TimeNs, kStateCount> time{};  // by TaskState: nothing for NotStarted and Exited
  std::uint64_t sent = 0, sentBytes = 0;           // sends in the range (an mcast once per receiver)
  std::uint64_t received = 0, receivedBytes = 0;   // receives in the range
};

struct RangeStats {
  TimeNs from = 0, to = 0;
  std::vector<TaskRangeStats> tasks;
  std::array<TimeNs, kStateCount> total{};
  std::uint64_t sent = 0, sentBytes = 0, received = 0, receivedBytes = 0;
};

// The records shown at the state's position only; a state still open ends
// at the position's "now" (ViewState::nowTime).  O(spans and messages in
// the range + tasks).
RangeStats rangeStats(const ViewState& state, TimeNs from, TimeNs to);

}  // namespace xab::view
