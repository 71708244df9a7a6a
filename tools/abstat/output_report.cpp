// abstat --output: the lines the tasks wrote (output records),
// in time order, each with its task.
#include "reports.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

namespace xab::abstat {
namespace {

// Whether `want` names task k: its tid (t40003), its program name, or its label.
bool names(const Trace& t, TaskIndex k, std::string_view want) {
  if (want.empty()) return true;
  char tid[16];
  std::snprintf(tid, sizeof tid, "t%x", static_cast<unsigned>(t.task(k).tid));
  return want == tid || want == t.taskName(k) || want == t.label(k);
}

struct Line {
  TimeNs time;
  TaskIndex task;
  std::string_view text;
};

}  // namespace

std::string outputReport(const Trace& t, std::string_view task, bool& found) {
  std::vector<Line> lines;
  const int textSlot = slotOf(Kind::OUTPUT, Phase::End, Key::Text);
  found = task.empty();
  for (TaskIndex k = 0; k < t.taskCount(); ++k) {
    if (!names(t, k, task)) continue;
    found = true;
    t.events(k).forEach([&](const Event& e) {
      if (e.kind == Kind::OUTPUT && e.has(textSlot)) lines.push_back({e.time, k, t.str(e.a[textSlot])});
    });
  }
  // Each task's lines are in its order already; tasks are merged by time.
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.time < b.time; });
  std::string out = "\nOutput (" + std::to_string(lines.size()) + " lines)\n";
  for (const Line& l : lines) {
    char when[32];
    std::snprintf(when, sizeof when, "%.6f", seconds(t, l.time));
    out += "  " + std::string(when) + "  " + t.label(l.task) + "  ";
    out += l.text;
    out += '\n';
  }
  return out;
}

}  // namespace xab::abstat
