// causal_walk.h -- the one driver of the model's re-dating passes
// (compensate.cpp, replay_correct.cpp): every task's events in turn, each
// event only once what it depends on (a receive's send, a barrier's other
// members) has been computed.
#pragma once

#include <xab/model/trace.h>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace xab::detail {

// The begin record of the call that ends at index i of a task's events,
// if it has one: the nearest begin record before it, within the few
// records (pokes' flush records) a call can hold, of the same kind.
inline std::optional<std::uint32_t> beginOf(const ChunkedVector<Event>& ev, std::uint32_t i) {
  constexpr std::uint32_t kLookBack = 8;
  for (std::uint32_t k = 1; k <= kLookBack && k <= i; ++k) {
    const Event& b = ev[i - k];
    if (b.isBegin()) return b.kind == ev[i].kind ? std::optional(i - k) : std::nullopt;
  }
  return std::nullopt;
}

// Per task, its parent's spawn end record whose tids list holds it (none:
// the task started on its own, or its parent is not in the trace).  A
// spawned task's dates start from its parent's at that record: whatever a
// pass moved the parent by before the spawn, it moves the child by too.
inline std::vector<std::optional<EventRef>> spawnedAt(const Trace& trace) {
  std::map<Tid, EventRef> spawnOf;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    for (std::uint32_t i = 0; i < trace.events(t).size(); ++i) {
      const Event& e = trace.events(t)[i];
      if (e.kind == Kind::SPAWN && !e.isBegin())
        for (Tid c : trace.list(e.get(Key::Tids, -1))) spawnOf.emplace(c, EventRef{t, i});
    }
  std::vector<std::optional<EventRef>> out(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    if (auto it = spawnOf.find(trace.task(t).tid); it != spawnOf.end() && it->second.task != t) out[t] = it->second;
  return out;
}

// cursor[t]: task t's next event to compute.  step(t, force) computes it
// and advances cursor[t], or returns false when it must wait for another
// task; with force it must not wait (a receive goes without its send).
// When every task waits -- a cycle only a corrupt trace has -- the first
// waiting task is forced one event.
template <class Step>
void walkCausally(const Trace& trace, const std::vector<std::uint32_t>& cursor, Step&& step) {
  for (;;) {
    bool progress = false, left = false;
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      while (cursor[t] < trace.events(t).size() && step(t, false)) progress = true;
      left |= cursor[t] < trace.events(t).size();
    }
    if (!left) return;
    if (progress) continue;
    for (TaskIndex t = 0; t < trace.taskCount(); ++t)
      if (cursor[t] < trace.events(t).size()) {
        step(t, true);
        break;
      }
  }
}

}  // namespace xab::detail
