// compensate.cpp -- intrusion compensation (xab/model/compensate.h).
#include <xab/model/causal_walk.h>
#include "contention.h"

#include <xab/model/clock.h>
#include <xab/model/compensate.h>
#include <xab/model/messages.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

namespace xab {

namespace {

// Slots of libab's cost records, in events.h's order.
enum CostSlot { kBurst, kTotal };
enum FlushSlot { kDuration, kBlocked, kOwn, kOwnCalls };
constexpr int kClockRtt = 4;

TimeNs slot(const Event& e, int s) { return e.has(s) ? std::max<TimeNs>(e.a[s], 0) : 0; }

// At most `cap` when there is one (contention.h: on a shared core, a longer
// send or exchange was pre-empted by a core-mate's own work).
TimeNs capped(TimeNs v, TimeNs cap) { return cap > 0 ? std::min(v, cap) : v; }

// What each record costs its task beyond what its own slots tell (a
// flush's duration, a clock exchange's round trip, the calibration).  A
// trace whose flush records carry own_ns/own_calls (libab measures one
// call in 32 in place) charges each call the mean at its end record (the
// begin record's put is in it); an older one charges each record of a
// call the calibrated cost of one record.  measured: the calls libab
// timed (0: none, the calibrated cost is charged).
std::vector<TimeNs> recordCharges(const EventStore& ev, TimeNs recordCost, std::uint64_t& measured) {
  TimeNs own = 0, calls = 0;
  ev.forEach([&](const Event& e) {
    if (e.kind == Kind::FLUSH && e.has(kOwnCalls)) {
      own += slot(e, kOwn);
      calls += slot(e, kOwnCalls);
    }
  });
  measured = static_cast<std::uint64_t>(calls);
  std::vector<TimeNs> charge(ev.size(), 0);
  for (std::uint32_t i = 0; i < ev.size(); ++i) {
    if (!detail::isCallRecord(ev[i].kind)) continue;
    if (calls == 0) charge[i] = recordCost;
    else if (!ev[i].isBegin()) charge[i] = own / calls;
  }
  return charge;
}

// What one record cost its task after it was made; `charge`: its entry of
// recordCharges.
TimeNs costAfter(const Event& e, TaskIntrusion& ti, TimeNs cap, TimeNs charge) {
  switch (e.kind) {
    case Kind::FLUSH: {
      TimeNs d = capped(slot(e, kDuration), cap);
      ++ti.sends;
      ti.sendTime += d;
      return d;
    }
    case Kind::CLOCK: {
      TimeNs d = capped(slot(e, kClockRtt), cap);
      ti.clockTime += d;
      return d;
    }
    case Kind::COST:
      return slot(e, kTotal);  // the calibration burst itself
    default:
      if (!detail::isCallRecord(e.kind)) return 0;
      ++ti.records;
      ti.recordTime += charge;
      return charge;
  }
}

struct Walk {
  const Trace& trace;
  CompensationReport& report;
  detail::Communication comm;                                // each receive's send, the least transfer and DC
  detail::Collectives coll;                                  // the collectives' ends to re-base
  std::vector<std::vector<TimeNs>> comp;                     // compensated times, as computed
  std::vector<std::uint32_t> cursor;                         // per task: the next event to compute
  std::vector<TimeNs> delta;                                 // per task: raw - compensated, now
  detail::Contention contention;                             // core-mates' costs (contention.h)
  std::vector<std::vector<TimeNs>> charge;                   // per task, per record: recordCharges
  std::vector<std::optional<EventRef>> spawnedAt;            // per task: its parent's spawn end (causal_walk.h)

  bool done(EventRef r) const { return cursor[r.task] > r.index; }

  // What the receiver and its core-mates (its sender among them) spent on
  // xab while the message of the receive at (t, i), sent at s, was on its
  // way (contention.h): not the message's own transfer.
  TimeNs inTransit(TaskIndex t, std::uint32_t i, EventRef s) const {
    return contention.inTransitTo(t, trace.event(s).time, trace.events(t)[i].time);
  }

  // The begin record of the receive that ends at index i, if it has one.
  std::optional<std::uint32_t> beginOf(TaskIndex t, std::uint32_t i) const { return detail::beginOf(trace.events(t), i); }

  // The compensated end of the receive at (t, i) of the message sent at
  // s (causal_walk.h's receiveEnd); `sequential` is its date with the
  // costs taken out (§5.3).  One that found its message there keeps the
  // least receive (DC): the rest of its duration was xab's.  A waited
  // one's own transfer is less what its core-mates (its sender among
  // them) spent on xab while the message was on its way (`mates`: the
  // core-mates' costs charged to this end, contention.h).  `xabWait`: the
  // receive waited as recorded, yet its message is there before it begins
  // once compensated.
  TimeNs rebase(TaskIndex t, std::uint32_t i, EventRef s, TimeNs sequential, TimeNs mates, bool& xabWait) const {
    detail::ReceiveDates r;
    r.sent = comp[s.task][s.index];
    r.sequential = sequential;
    if (auto b = beginOf(t, i)) {
      r.start = comp[t][*b];
      r.duration = sequential - *r.start;
    }
    r.kept = comm.receiveDuration;
    detail::ReceiveEnd end = detail::receiveEnd(r, comm, [&] {
      return trace.events(t)[i].time - trace.event(s).time - std::max(mates, inTransit(t, i, s));
    });
    xabWait = end.waited && r.sent + comm.transfer <= *r.start;
    return end.end;
  }

  // Compensates task t's next event; false when it must wait for its send
  // or for the arrivals of a collective's members.
  bool step(TaskIndex t, bool force) {
    std::uint32_t i = cursor[t];
    const Event& e = trace.events(t)[i];
    bool fromSpawn = false;  // counted once the event is computed (a receive may still wait below)
    if (const auto& p = spawnedAt[t]; i == 0 && p) {
      // A spawned task starts as much earlier as its parent's spawn
      // ended: the costs its parent paid before spawning it (the
      // calibration, the first clock exchanges) delayed its start too.
      if (!done(*p) && !force) return false;
      if (done(*p)) {
        delta[t] = trace.event(*p).time - comp[p->task][p->index];
        fromSpawn = true;
      }
    }
    TimeNs mates = contention.at(t, i);  // the core-mates' costs since the task's last event
    TimeNs c = e.time - delta[t] - mates;
    using CollState = detail::CollectiveStep::State;
    const detail::CollectiveStep sync =
        detail::collectiveStep(coll, comp, t, i, force, [&](EventRef a) { return done(a); });
    if (sync.state == CollState::Wait) return false;
    if (sync.state == CollState::Rebased) {
      c = sync.end;
      ++report.collectivesRebased;
    } else if (sync.state == CollState::Forced) {
      ++report.forced;
    } else if (const auto& s = comm.sendOf[t][i]; s && (force || done(*s))) {
      if (!force) {
        bool xabWait = false;
        c = rebase(t, i, *s, c, mates, xabWait);
        report.tasks[t].xabWaits += xabWait;
        ++report.receivesRebased;
      } else {
        ++report.forced;
      }
    } else if (s) {
      return false;
    }
    // The task's order stays (§5.4): no record before the one before
    // it.  The cost that would have put it there is still owed, not
    // forgiven: delta keeps it, and the next records that are far enough
    // apart take it out (a call is charged the mean of the calls libab
    // timed, more than the gap between two cheap calls' records).
    comp[t][i] = i > 0 ? std::max(c, comp[t][i - 1]) : c;
    report.tasks[t].contention += mates;
    report.spawnsRebased += fromSpawn;
    delta[t] = e.time - c + costAfter(e, report.tasks[t], contention.capAt(t, i, e.kind), charge[t][i]);
    ++cursor[t];
    return true;
  }

  void run() {
    detail::walkCausally(trace, cursor, [this](TaskIndex t, bool force) { return step(t, force); });
  }
};

}  // namespace

std::shared_ptr<const Trace> compensate(std::shared_ptr<const Trace> input, CompensationReport& report) {
  report = CompensationReport{};
  const Trace& trace = *input;
  report.tasks.assign(trace.taskCount(), TaskIntrusion{});
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    for (std::uint32_t i = 0; i < trace.events(t).size(); ++i) {
      const Event& e = trace.events(t)[i];
      if (e.kind == Kind::FLUSH) report.costRecords = true;
      if (e.kind == Kind::COST && report.tasks[t].recordCost == 0) {
        report.costRecords = true;
        report.tasks[t].recordCost = std::max(0, e.rc);
      }
    }
  if (!report.costRecords) {
    report.note = "no cost records: times as recorded, no compensation";
    return input;
  }
  Walk w{trace, report, {}, {}, {}, {}, {}, {}, {}, detail::spawnedAt(trace)};
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    w.charge.push_back(recordCharges(trace.events(t), report.tasks[t].recordCost, report.tasks[t].measured));
  w.comp.resize(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    w.comp[t].assign(trace.events(t).size(), 0);
  }
  w.cursor.assign(trace.taskCount(), 0);
  w.delta.assign(trace.taskCount(), 0);
  w.comm = detail::measureCommunication(trace, matchMessages(trace), &w.charge);
  report.transfer = w.comm.transfer;
  report.receiveDuration = w.comm.receiveDuration;
  detail::ContentionInput in{&w.charge, &w.comm.sendOf, report.transfer, report.receiveDuration + detail::kWaitSlack};
  w.contention = detail::measureContention(trace, in);
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) report.tasks[t].mates = w.contention.mates[t];
  w.coll = detail::measureCollectives(trace, &w.charge);
  w.run();
  std::vector<std::vector<TimeNs>> shift(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    const auto& ev = trace.events(t);
    shift[t].resize(ev.size());
    for (std::uint32_t i = 0; i < ev.size(); ++i) shift[t][i] = w.comp[t][i] - ev[i].time;
    TaskIntrusion& ti = report.tasks[t];
    ti.charged = ti.recordTime + ti.sendTime + ti.clockTime + ti.contention;
    if (!ev.empty()) {
      ti.rawRun = ev[ev.size() - 1].time - ev[0].time;
      ti.compensatedRun = w.comp[t][ev.size() - 1] - w.comp[t][0];
    }
  }
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "compensated: xab's measured cost taken out of %zu tasks (transfer %lld ns; %llu receives, %llu "
                "collectives and %llu spawned tasks re-based)",
                trace.taskCount(), static_cast<long long>(report.transfer),
                static_cast<unsigned long long>(report.receivesRebased),
                static_cast<unsigned long long>(report.collectivesRebased),
                static_cast<unsigned long long>(report.spawnsRebased));
  report.note = buf;
  w.comm = {};
  w.contention = {};
  w.coll = {};
  return shiftTimes(std::move(input), shift);  // in place when the caller handed over the only reference
}

}  // namespace xab
