// utilization.h -- how many tasks compute, communicate, are blocked or
// wait in a barrier, at a time or per pixel column, at the replay position
// (the utilization strip paints these counts; the state dump writes them).
#pragma once

#include "activity.h"
#include "view_state.h"

#include <array>
#include <vector>

namespace xab::view {

// Counts per activity at time t (at the current replay position).
std::array<int, kActivityCount> utilizationAt(const ViewState& state, TimeNs t);
// utilizationAt(begin + (x + 0.5) * nsPerColumn) for each column x, in one
// pass over the shown spans in view: O(spans in view + tasks + columns),
// not O(columns x tasks) (100,000 tasks x 1,100 columns per repaint).
// Where a task's mipmap has bins no wider than a column (many spans a
// column), the task counts in the state covering most of the bin at the
// column's centre instead, as the diagram draws the column: no record is
// read for it.
// `tasks`: only those (a folded row's members); nullptr: every task.
std::vector<std::array<int, kActivityCount>> utilizationColumns(const ViewState& state, TimeNs begin,
                                                                double nsPerColumn, int columns,
                                                                const std::vector<TaskIndex>* tasks = nullptr);

}  // namespace xab::view
