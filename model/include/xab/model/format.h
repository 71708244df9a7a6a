// xab/model/format.h -- events back to text, and events of all tasks in
// time order: what the viewer's event list and the translators need.
#pragma once

#include <xab/model/trace.h>

#include <optional>
#include <string>
#include <string_view>

namespace xab {

// The whole record as a trace line (without '\n'): times, tid, event, fields
// in table order, rc, and on the task's first record its identity.
// Reading the output back gives the same record.
std::string formatRecord(const Trace& trace, TaskIndex task, std::uint32_t index);

// A field by its key in the trace text ("nhost", "tag", "rc", ...), for
// keys the Key enum does not name; nullopt when the record has none.
std::optional<std::int32_t> fieldOf(const Event& e, std::string_view key);

// Seconds since the epoch with 9 decimals, as the trace writes times.
std::string formatTime(TimeNs t);

// Calls f(task, index, event) for every task event, merged over tasks by
// task time (ties: arrival order).  O(n log tasks).
template <class F>
void forEachByTime(const Trace& trace, F&& f);

}  // namespace xab

#include <queue>
#include <vector>

namespace xab {

template <class F>
void forEachByTime(const Trace& trace, F&& f) {
  struct Head {
    TimeNs time;
    std::uint32_t seq;
    TaskIndex task;
    std::uint32_t index;
    bool operator>(const Head& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    if (!trace.events(t).empty()) heads.push({trace.events(t)[0].time, trace.events(t)[0].seq, t, 0});
  while (!heads.empty()) {
    Head h = heads.top();
    heads.pop();
    const auto& ev = trace.events(h.task);
    f(h.task, h.index, ev[h.index]);
    if (h.index + 1 < ev.size()) {
      const Event& n = ev[h.index + 1];
      heads.push({n.time, n.seq, h.task, h.index + 1});
    }
  }
}

}  // namespace xab
