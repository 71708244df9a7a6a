// causal_walk.h -- what the re-dating passes share: intrusion
// compensation (compensate.cpp) and the correction of a replay to its
// record (the replay library's correct.cpp).  One driver (every task's
// events in turn, each event only once what it depends on -- a receive's
// send, a collective's other members -- has been computed), one measure
// of the trace's communication (each receive's send, the least transfer,
// the least receive duration) and one rule for a receive's new end.
#pragma once

#include <xab/model/barriers.h>
#include <xab/model/messages.h>
#include <xab/model/trace.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace xab::detail {

// A blocking receive that lasted this much longer than the least receive
// (its duration with the pass's costs out) waited for its message.
inline constexpr TimeNs kWaitSlack = 10'000;

// The begin record of the call that ends at index i of a task's events,
// if it has one: the nearest begin record before it not made inside the
// call, of the same kind, within a few other records.
inline std::optional<std::uint32_t> beginOf(const EventStore& ev, std::uint32_t i) {
  // Records made while the call waited do not count toward the bound:
  // libab's clock exchanges (16 records each, one a period, so any wait
  // longer than a period holds some) and a handler's records.
  constexpr std::uint32_t kLookBack = 8;
  std::uint32_t looked = 0;
  for (std::uint32_t k = i; k-- > 0;) {
    const Event& b = ev[k];
    if (b.insideCall() || isLibabRecord(b.kind)) continue;
    if (b.isBegin()) return b.kind == ev[i].kind ? std::optional(k) : std::nullopt;
    if (++looked == kLookBack) break;
  }
  return std::nullopt;
}

// Per task, its parent's spawn end record whose tids list holds it (none:
// the task started on its own, or its parent is not in the trace).  A
// spawned task's dates start from its parent's at that record: whatever a
// pass moved the parent by before the spawn, it moves the child by too.
inline std::vector<std::optional<EventRef>> spawnedAt(const Trace& trace) {
  std::map<Tid, EventRef> spawnOf;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    std::uint32_t i = 0;  // chunk by chunk: every record is read, at no index's cost
    trace.events(t).forEach([&](const Event& e) {
      if (e.kind == Kind::SPAWN && !e.isBegin())
        for (Tid c : trace.list(e.get(Key::Tids, -1))) spawnOf.emplace(c, EventRef{t, i});
      ++i;
    });
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

// The trace's communication as a re-dating pass sees it.
struct Communication {
  std::vector<std::vector<std::optional<EventRef>>> sendOf;  // per task, per receive end: its message's send
  TimeNs transfer = 0;         // the least transfer (receive end - send; 0 at least)
  // The least duration (end - begin) of a blocking receive whose message
  // was there before it began (its send plus the least transfer no later
  // than its begin): the copy out of PVM's buffer, Chassin de Kergommeaux,
  // Maillet and Vincent's DC.  A receive that waited lasted as long as its
  // sender made it and says nothing of the copy; when every receive
  // waited, DC is unknown and 0.
  TimeNs receiveDuration = 0;
};

// beginCost (null: none): per task, per record, the cost the pass takes
// out of a record (compensation's charge), less from each receive's
// duration at its begin record.
Communication measureCommunication(const Trace& trace, const MessageTable& messages,
                                   const std::vector<std::vector<TimeNs>>* beginCost = nullptr);

// One receive end whose message's send has its new date already.
struct ReceiveDates {
  TimeNs sent = 0;                // the send's new date
  std::optional<TimeNs> start;    // the receive's begin record's new date (none: no begin record)
  TimeNs sequential = 0;          // the end's date from its own task's course alone
  TimeNs duration = 0;            // end - begin with the pass's costs out (sequential - start)
  // The duration a receive that found its message there keeps: the least
  // receive (DC) in compensation, whose costs are xab's (Chassin de
  // Kergommeaux et al. §5.3); its own in a replay's correction, whose
  // durations are invariant (the Athapascan record/replay paper, §4.1).
  TimeNs kept = 0;
};

struct ReceiveEnd {
  TimeNs end = 0;
  bool waited = false;  // it lasted longer than the least receive plus the slack
};

// The new end of a receive (Chassin de Kergommeaux et al. §5.3's base-date
// reset; the Athapascan paper's §4.3, eq. 3):
//  - without a begin record: its own course's date, no earlier than the
//    send plus the least transfer;
//  - one that found its message there (it lasted no longer than DC plus
//    the slack): its start plus the duration it keeps, no earlier than the
//    send plus the least transfer;
//  - one that waited: its message's own transfer after the send (the
//    transfer is the network's, not the pass's), no earlier than its start
//    plus DC.  ownTransfer() (called only here): its raw end less its raw
//    send, less what the pass takes out of the transfer.
template <class OwnTransfer>
ReceiveEnd receiveEnd(const ReceiveDates& r, const Communication& c, OwnTransfer&& ownTransfer) {
  if (!r.start) return {std::max(r.sequential, r.sent + c.transfer), false};
  if (r.duration <= c.receiveDuration + kWaitSlack) return {std::max(*r.start + r.kept, r.sent + c.transfer), false};
  TimeNs own = ownTransfer();
  return {std::max(*r.start + c.receiveDuration, r.sent + std::max(own, c.transfer)), true};
}

// A collective's end on one task (Chassin de Kergommeaux et al., §5.3,
// with all its members): it ends no earlier than the latest new date of
// the arrivals it waits for, plus its own release time (its end less the
// latest arrival and that arrival record's own cost: PVM's doing, not the
// pass's).  A barrier waits for every member; a reduce's or gather's root
// for every member, its other members for nobody (PVM sends their part
// and returns); a scatter's members for the root.
struct Sync {
  std::vector<EventRef> awaited;  // the begin records of the members it waits for (itself too)
  TimeNs release = 0;
};

struct Collectives {
  std::vector<std::vector<std::uint32_t>> syncOf;  // per task, per event: index into syncs (kNoRecord: none)
  std::vector<Sync> syncs;
};

// The ends of the trace's barriers, reduces, gathers and scatters that
// wait for someone.  arrivalCost (null: none): as measureCommunication's
// beginCost.
Collectives measureCollectives(const Trace& trace, const std::vector<std::vector<TimeNs>>* arrivalCost = nullptr);

// The new end of a collective, given the new dates computed so far.
inline TimeNs syncEnd(const Sync& s, const std::vector<std::vector<TimeNs>>& dates) {
  TimeNs latest = INT64_MIN;
  for (EventRef a : s.awaited) latest = std::max(latest, dates[a.task][a.index]);
  return latest + s.release;
}

// One step of both passes at a task's event (t, i): Wait when it is a
// collective's end whose awaited arrivals are not all dated yet (the
// walk comes back to it), Forced when it is one the walk must date
// without them, Rebased with its new end (syncEnd) once they all are;
// None when the event ends no collective that waits.  done(ref): whether
// the pass has dated that record.
struct CollectiveStep {
  enum class State : std::uint8_t { None, Wait, Forced, Rebased } state = State::None;
  const Sync* sync = nullptr;
  TimeNs end = 0;  // Rebased: the collective's new end
};

template <class Done>
CollectiveStep collectiveStep(const Collectives& coll, const std::vector<std::vector<TimeNs>>& dates, TaskIndex t,
                              std::uint32_t i, bool force, Done&& done) {
  const std::uint32_t k = coll.syncOf[t][i];
  if (k == kNoRecord) return {};
  const Sync& s = coll.syncs[k];
  if (!std::all_of(s.awaited.begin(), s.awaited.end(), done))
    return {force ? CollectiveStep::State::Forced : CollectiveStep::State::Wait, &s, 0};
  return {CollectiveStep::State::Rebased, &s, syncEnd(s, dates)};
}

}  // namespace xab::detail
