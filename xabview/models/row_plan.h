// row_plan.h -- which rows the diagram has and what each holds: rows you
// control (Vampir's process groups, Perfetto's track groups).
//
// The tasks are grouped by host (hosts in the order of their first task,
// tasks of a host in trace order).  The user may hide tasks, keep only the
// rows matching a text, and fold tasks into one row: by name (the tasks of
// one program on one host) or by host (every task of a host).  A folded
// row stands for its members: it draws what share of them compute,
// communicate, wait or sit in a barrier (the utilization strip's counts,
// over those tasks only), and messages to or from a member end on it.  A
// group can be unfolded again by itself.  A trace of more than
// kAutoFoldTasks tasks opens folded by name unless the user chose.  The
// user may move a row (a task's or a folded one) to another place.
#pragma once

#include <xab/model/trace.h>

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace xab::view {

enum class RowFold : std::uint8_t { None, ByName, ByHost, Auto };
inline constexpr std::size_t kAutoFoldTasks = 512;
inline constexpr TaskIndex kNoRow = std::numeric_limits<TaskIndex>::max();
inline constexpr std::uint32_t kNoGroup = std::numeric_limits<std::uint32_t>::max();

struct RowChoice {
  RowFold fold = RowFold::Auto;     // Auto: by name over kAutoFoldTasks tasks, else none
  std::set<std::string> unfolded;   // keys of groups unfolded again (RowGroup::key)
  std::set<Tid> hidden;             // tasks not drawn
  std::string filter;               // only tasks whose label, host or tid contains it (any case)
  // The rows in the user's order, by key (rowKey): rows not in it (a new
  // task, a group folded or unfolded) follow the row before them in the
  // plain order; a task of a group in it takes the group's place.
  std::vector<std::string> order;
  bool operator==(const RowChoice&) const = default;
};

struct RowGroup {
  std::string key;                  // "name:nodo@vm", "host:vm"
  std::string label;                // "nodo x37" / "vm: 38 tasks"
  std::vector<TaskIndex> members;   // in row order
};

struct RowPlan {
  std::vector<TaskIndex> rowTask;       // row -> its task (a folded row: its first member)
  std::vector<TaskIndex> taskRow;       // task -> row, kNoRow when not drawn
  std::vector<TaskIndex> hostFirstRows; // the first row of each host's group (two hosts or more)
  std::vector<std::uint32_t> rowGroup;  // row -> index in groups, kNoGroup; empty when nothing is folded
  std::vector<RowGroup> groups;
  std::size_t rows() const { return rowTask.size(); }
  std::uint32_t groupOfRow(TaskIndex row) const { return row < rowGroup.size() ? rowGroup[row] : kNoGroup; }
};

// The rows of `trace` under `choice`: O(tasks) (and the filter's text per
// task), O(rows log rows) more in a user's order.  On two hosts or more a
// host's rows follow each other unless the user moved them apart.
RowPlan planRows(const Trace& trace, const RowChoice& choice);

// A row's key in RowChoice::order: a folded row's group key, else
// "task:" and its tid ("task:t40003").
std::string rowKey(const Trace& trace, const RowPlan& plan, TaskIndex row);

// The choice with the row `from` moved to `to` (rows of `plan`, the plan of
// `choice`): the order of every row as shown, the moved one at `to`.
RowChoice movedRow(const Trace& trace, const RowPlan& plan, RowChoice choice, TaskIndex from, TaskIndex to);

// The fold a choice means for a trace of `tasks` tasks (Auto resolved).
RowFold effectiveFold(const RowChoice& choice, std::size_t tasks);

}  // namespace xab::view
