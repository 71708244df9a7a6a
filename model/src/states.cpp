// Task states from the gaps between a task's records (see states.h).
#include <xab/model/states.h>

#include <xab/model/messages.h>

namespace xab {
namespace {

bool fillsSendBuffer(Kind k) { return k == Kind::INITSEND || k == Kind::MKBUF || isPack(k); }

void blockingState(const Event& e, StateInterval& iv) {
  iv.call = e.kind;
  switch (e.kind) {
    case Kind::RECV:
    case Kind::TRECV:
    case Kind::PRECV:
      iv.state = TaskState::Receiving;
      iv.a = e.get(Key::Src, kAnyTid);
      iv.b = e.get(Key::Tag, kAnyTag);
      break;
    case Kind::BARRIER:
      iv.state = TaskState::Barrier;
      iv.a = e.get(Key::Group, -1);
      iv.b = e.get(Key::Count, -1);
      break;
    case Kind::REDUCE:
    case Kind::GATHER:
    case Kind::SCATTER:
      iv.state = TaskState::Collective;
      iv.a = e.get(Key::Group, -1);
      iv.b = e.get(Key::Root, -1);
      break;
    case Kind::SPAWN: iv.state = TaskState::Spawning; break;
    default: iv.state = TaskState::Blocked; break;
  }
}

TaskState gapState(const Event& e, const Event* next) {
  if (e.kind == Kind::EXIT || e.kind == Kind::TASK_EXIT) return TaskState::Exited;
  if (!next) return TaskState::Computing;
  if (fillsSendBuffer(e.kind)) {
    if (isPack(next->kind)) return TaskState::Packing;
    if (isMsgOut(next->kind)) return TaskState::Sending;
  }
  if (isUnpack(next->kind) && (gotMessage(e) || isUnpack(e.kind))) return TaskState::Unpacking;
  return TaskState::Computing;
}

// abmon's notes about a task (events lost, a bad message) are not calls of
// the task: they do not end what the task was doing.  Nor do libab's own
// records (clock exchanges, its cost, its sends to abmon: a poke answered
// inside a blocked call is told by a `flush` record after its begin).
bool isNote(Kind k) {
  return k == Kind::ABMON_LOST || k == Kind::ABMON_BAD || k == Kind::CLOCK || k == Kind::COST || k == Kind::FLUSH;
}

// Index of the last record with time <= t, or -1.  Records of a task are
// in call order, so their times do not decrease.
std::int64_t lastAtOrBefore(const EventStore& ev, TimeNs t) {
  return static_cast<std::int64_t>(ev.partitionPoint([t](const Event& e) { return e.time <= t; })) - 1;
}

bool sameState(const StateInterval& x, const StateInterval& y) {
  return x.state == y.state && x.call == y.call && x.a == y.a && x.b == y.b;
}

}  // namespace

std::string_view stateName(TaskState s) {
  static constexpr std::string_view names[] = {"not started", "computing", "packing",  "unpacking",
                                               "sending",     "receiving", "barrier",  "collective",
                                               "spawning",    "blocked",   "exited"};
  auto i = static_cast<std::size_t>(s);
  return i < std::size(names) ? names[i] : "?";
}

namespace {

// intervalAfter on `ev`: the task's store, or a cursor on it.
template <class Events>
StateInterval intervalIn(const Trace& trace, TaskIndex task, Events& ev, std::size_t size, std::uint32_t i) {
  StateInterval iv;
  if (i >= size) return iv;
  // Records i and before first, then those after: a cursor (one block held)
  // decodes a block once when i is the last of it.
  iv.begin = ev[i].time;
  iv.first = i;
  std::uint32_t call = i;  // the task's own record whose state this is
  while (call > 0 && isNote(ev[call].kind)) --call;
  const Event e = ev[call];
  iv.end = i + 1 < size ? ev[i + 1].time : kOpenEnd;
  std::uint32_t after = i + 1;
  while (after < size && isNote(ev[after].kind)) ++after;
  // A copy and a pointer, not a std::optional: GCC's -Wmaybe-uninitialized
  // misreads one at -O1 (the ThreadSanitizer build).
  Event nextEvent{};
  const bool hasNext = after < size;
  if (hasNext) nextEvent = ev[after];
  const Event* next = hasNext ? &nextEvent : nullptr;
  if (e.isBegin() && isBlocking(e.kind)) {
    blockingState(e, iv);
  } else if (e.insideCall()) {
    blockingState(trace.events(task)[enclosingCall(trace, task, call)], iv);  // back in the call, or still there
  } else {
    iv.state = gapState(e, next);
  }
  if (iv.state == TaskState::Exited) iv.end = kOpenEnd;
  return iv;
}

}  // namespace

namespace {

// A task of a cut trace whose records, its exit among them, are all before
// the cut: the task table keeps its exit, and it stays exited.
StateInterval endedBeforeCut(const Trace& trace, TaskIndex task) {
  StateInterval iv;
  iv.begin = trace.task(task).exitTime;
  iv.end = kOpenEnd;
  iv.state = TaskState::Exited;
  return iv;
}

}  // namespace

StateInterval intervalAfter(const Trace& trace, TaskIndex task, std::uint32_t i) {
  const auto& ev = trace.events(task);
  return intervalIn(trace, task, ev, ev.size(), i);
}

StateInterval intervalAfter(const Trace& trace, TaskIndex task, std::uint32_t i, EventStore::Cursor& cursor) {
  return intervalIn(trace, task, cursor, trace.events(task).size(), i);
}

bool opensOwnInterval(const Event& e) { return !isNote(e.kind) && !e.insideCall(); }

std::uint32_t enclosingCall(const Trace& trace, TaskIndex task, std::uint32_t i) {
  // Back over the calls made inside it, each inner blocking call from its
  // end to its begin (record i itself may be such an end).
  const auto& ev = trace.events(task);
  int depth = isBlocking(ev[i].kind) && !ev[i].isBegin() ? 1 : 0;
  while (i > 0) {
    const Event& e = ev[--i];
    if (isNote(e.kind) || !isBlocking(e.kind)) continue;
    if (!e.isBegin()) {
      ++depth;
    } else if (depth == 0) {
      return i;
    } else {
      --depth;
    }
  }
  return i;
}

StateInterval stateAt(const Trace& trace, TaskIndex task, TimeNs t) {
  const auto& ev = trace.events(task);
  if (ev.empty() && trace.task(task).exit != ExitHow::None && t >= trace.task(task).exitTime)
    return endedBeforeCut(trace, task);
  std::int64_t i = lastAtOrBefore(ev, t);
  if (i < 0) {
    StateInterval iv;
    iv.begin = INT64_MIN;
    iv.end = ev.empty() ? kOpenEnd : ev[0].time;
    return iv;
  }
  return intervalAfter(trace, task, static_cast<std::uint32_t>(i));
}

StateInterval currentState(const Trace& trace, TaskIndex task) {
  const auto& ev = trace.events(task);
  if (ev.empty()) return trace.task(task).exit != ExitHow::None ? endedBeforeCut(trace, task) : StateInterval{};
  return intervalAfter(trace, task, static_cast<std::uint32_t>(ev.size() - 1));
}

std::vector<StateInterval> stateIntervals(const Trace& trace, TaskIndex task, TimeNs from,
                                          TimeNs to) {
  const auto& ev = trace.events(task);
  std::vector<StateInterval> out;
  std::int64_t start = lastAtOrBefore(ev, from);
  if (start < 0) start = 0;
  EventStore::Cursor cursor(ev);
  for (auto i = static_cast<std::size_t>(start); i < ev.size(); ++i) {
    StateInterval iv = intervalAfter(trace, task, static_cast<std::uint32_t>(i), cursor);
    if (iv.begin >= to) break;
    if (iv.end <= from && iv.end != kOpenEnd) continue;
    // Neighbouring gaps in the same state (marks, lost-event notes) read as one.
    if (!out.empty() && sameState(out.back(), iv) && out.back().end == iv.begin) {
      out.back().end = iv.end;
    } else {
      out.push_back(iv);
    }
    if (iv.state == TaskState::Exited) break;
  }
  return out;
}

}  // namespace xab
