// row_plan.cpp -- the diagram's rows (row_plan.h).
#include "row_plan.h"

#include <algorithm>
#include <cctype>
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

}  // namespace

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
