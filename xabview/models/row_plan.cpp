// row_plan.cpp -- the diagram's rows (row_plan.h).
#include "row_plan.h"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <unordered_map>

namespace xab::view {
namespace {

std::string lowerCopy(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string tidText(Tid tid) {
  char b[16];
  std::snprintf(b, sizeof b, "t%x", static_cast<unsigned>(tid));
  return b;
}

bool matchesFilter(const Trace& trace, TaskIndex t, const std::string& needle) {
  if (needle.empty()) return true;
  const TaskInfo& info = trace.task(t);
  return lowerCopy(trace.label(t)).find(needle) != std::string::npos ||
         lowerCopy(trace.str(info.host)).find(needle) != std::string::npos || tidText(info.tid).find(needle) != std::string::npos;
}

std::string taskKey(const Trace& trace, TaskIndex t) { return "task:" + tidText(trace.task(t).tid); }

// The key of the group a task is in under `fold` (folded or not).
std::string foldKey(const Trace& trace, RowFold fold, TaskIndex t) {
  const std::string host(trace.str(trace.task(t).host));
  if (fold == RowFold::ByName) return "name:" + std::string(trace.str(trace.task(t).name)) + "@" + host;
  if (fold == RowFold::ByHost) return "host:" + host;
  return {};
}

// Sorts the plan's rows into the user's order (RowChoice::order): a row in
// it by its place there; an unfolded task by its group's place, a folded
// row by its first member's; any other just after the row before it in the
// plain order.
void applyOrder(const Trace& trace, RowFold fold, const std::vector<std::string>& order, RowPlan& plan) {
  std::unordered_map<std::string, std::size_t> place;
  for (std::size_t i = 0; i < order.size(); ++i) place.try_emplace(order[i], i);
  struct Rank { std::size_t major; int minor; std::size_t plain; };
  std::vector<Rank> rank(plan.rowTask.size());
  std::size_t before = 0;  // the place the previous row took (0: none yet, places are 1 + index)
  for (std::size_t row = 0; row < rank.size(); ++row) {
    const std::uint32_t g = plan.groupOfRow(static_cast<TaskIndex>(row));
    const std::string key = g == kNoGroup ? taskKey(trace, plan.rowTask[row]) : plan.groups[g].key;
    auto it = place.find(key);
    std::size_t at = it != place.end() ? it->second + 1 : 0;
    if (!at && g == kNoGroup) {  // an unfolded task: its group's place
      it = place.find(foldKey(trace, fold, plan.rowTask[row]));
      if (it != place.end()) at = it->second + 1;
    }
    if (!at && g != kNoGroup)  // a folded row: its first member's place
      for (TaskIndex t : plan.groups[g].members)
        if (auto m = place.find(taskKey(trace, t)); m != place.end() && (!at || m->second + 1 < at)) at = m->second + 1;
    rank[row] = at ? Rank{at, 0, row} : Rank{before, 1, row};
    before = rank[row].major;
  }
  std::vector<std::size_t> rows(rank.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    const Rank &x = rank[a], &y = rank[b];
    return std::tie(x.major, x.minor, x.plain) < std::tie(y.major, y.minor, y.plain);
  });
  RowPlan sorted = plan;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    sorted.rowTask[i] = plan.rowTask[rows[i]];
    if (!plan.rowGroup.empty()) sorted.rowGroup[i] = plan.rowGroup[rows[i]];
  }
  plan = std::move(sorted);
}

}  // namespace

std::string rowKey(const Trace& trace, const RowPlan& plan, TaskIndex row) {
  const std::uint32_t g = plan.groupOfRow(row);
  return g == kNoGroup ? taskKey(trace, plan.rowTask[row]) : plan.groups[g].key;
}

RowChoice movedRow(const Trace& trace, const RowPlan& plan, RowChoice choice, TaskIndex from, TaskIndex to) {
  if (from >= plan.rows() || to >= plan.rows() || from == to) return choice;
  std::vector<std::string> keys;
  for (TaskIndex row = 0; row < plan.rows(); ++row) keys.push_back(rowKey(trace, plan, row));
  std::string moved = keys[from];
  keys.erase(keys.begin() + from);
  keys.insert(keys.begin() + to, std::move(moved));
  // The rows not drawn now (hidden, filtered) keep their order after the
  // rows shown; the tasks of a folded row take its place.
  std::set<std::string> shown(keys.begin(), keys.end());
  for (const RowGroup& g : plan.groups)
    for (TaskIndex t : g.members) shown.insert(taskKey(trace, t));
  for (const std::string& k : choice.order)
    if (!shown.count(k)) keys.push_back(k);
  choice.order = std::move(keys);
  return choice;
}

RowFold effectiveFold(const RowChoice& choice, std::size_t tasks) {
  if (choice.fold != RowFold::Auto) return choice.fold;
  return tasks > kAutoFoldTasks ? RowFold::ByName : RowFold::None;
}

RowPlan planRows(const Trace& trace, const RowChoice& choice) {
  RowPlan plan;
  const TaskIndex n = trace.taskCount();
  plan.taskRow.assign(n, kNoRow);
  const std::string needle = lowerCopy(choice.filter);
  // The tasks drawn, by host: hosts in the order of their first task.
  std::unordered_map<StrId, std::size_t> hostIndex;
  std::vector<std::vector<TaskIndex>> byHost;
  for (TaskIndex t = 0; t < n; ++t) {
    const TaskInfo& info = trace.task(t);
    if (choice.hidden.count(info.tid) || !matchesFilter(trace, t, needle)) continue;
    auto [it, added] = hostIndex.try_emplace(info.host, byHost.size());
    if (added) byHost.emplace_back();
    byHost[it->second].push_back(t);
  }
  const RowFold fold = effectiveFold(choice, n);
  auto addRow = [&](TaskIndex task, std::uint32_t group) {
    plan.rowTask.push_back(task);
    plan.rowGroup.push_back(group);
  };
  for (const auto& tasks : byHost) {
    if (byHost.size() > 1) plan.hostFirstRows.push_back(static_cast<TaskIndex>(plan.rowTask.size()));
    const std::string host(trace.str(trace.task(tasks.front()).host));
    // The groups of this host, in the order of their first task.
    std::vector<std::vector<TaskIndex>> groups;
    std::vector<std::string> keys, labels;
    if (fold == RowFold::ByHost) {
      groups.push_back(tasks);
      keys.push_back("host:" + host);
      labels.push_back((host.empty() ? std::string("?") : host) + ": " + std::to_string(tasks.size()) + " tasks");
    } else if (fold == RowFold::ByName) {
      std::unordered_map<StrId, std::size_t> nameIndex;
      for (TaskIndex t : tasks) {
        auto [it, added] = nameIndex.try_emplace(trace.task(t).name, groups.size());
        if (added) {
          groups.emplace_back();
          const std::string name(trace.str(trace.task(t).name));
          keys.push_back("name:" + name + "@" + host);
          labels.push_back(name.empty() ? std::string("(unnamed)") : name);
        }
        groups[it->second].push_back(t);
      }
      for (std::size_t g = 0; g < groups.size(); ++g) labels[g] += " \u00d7" + std::to_string(groups[g].size());
    } else {
      for (TaskIndex t : tasks) addRow(t, kNoGroup);
      continue;
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      // One task, or unfolded again: a row per task.
      if (groups[g].size() == 1 || choice.unfolded.count(keys[g])) {
        for (TaskIndex t : groups[g]) addRow(t, kNoGroup);
        continue;
      }
      const auto index = static_cast<std::uint32_t>(plan.groups.size());
      addRow(groups[g].front(), index);
      plan.groups.push_back({keys[g], labels[g], std::move(groups[g])});
    }
  }
  if (!choice.order.empty()) applyOrder(trace, fold, choice.order, plan);
  if (byHost.size() > 1) {  // where a host's rows start (after a move, each run of them)
    plan.hostFirstRows.clear();
    for (TaskIndex row = 0; row < plan.rowTask.size(); ++row)
      if (row == 0 || trace.task(plan.rowTask[row]).host != trace.task(plan.rowTask[row - 1]).host)
        plan.hostFirstRows.push_back(row);
  }
  for (TaskIndex row = 0; row < plan.rowTask.size(); ++row) {
    const std::uint32_t g = plan.rowGroup[row];
    if (g == kNoGroup) plan.taskRow[plan.rowTask[row]] = row;
    else
      for (TaskIndex t : plan.groups[g].members) plan.taskRow[t] = row;
  }
  if (plan.groups.empty()) plan.rowGroup.clear();
  return plan;
}

}  // namespace xab::view
