// Global time, the re-dating: a trace's times through the tasks' clock
// fits (clock_fit.cpp), the causality check, and the correction of the
// receives the fit leaves too early (xab/model/clock.h,
// docs/global-time.md).
#include "clock_correct.h"

#include <xab/model/builder.h>
#include <xab/model/clock.h>
#include <xab/model/messages.h>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace xab {

namespace {

bool monitorWritten(const text::Record& r) {
  return r.kind == Kind::TASK_EXIT || r.kind == Kind::ABMON_LOST || r.kind == Kind::ABMON_BAD ||
         r.kind == Kind::OUTPUT;
}

// Of those, abmon writes on any host the task.exit of a host that has gone
// (docs/trace-format.md, host.delete) and every output line (read from the
// program's pipes or PVM's output collection: abmon's receive time); the
// rest come from the relay.
bool writtenByAbmon(const text::Record& r) {
  int how = slotOf(Kind::TASK_EXIT, Phase::End, keyName(Key::How));
  return r.kind == Kind::OUTPUT || (r.kind == Kind::TASK_EXIT && how >= 0 && r.str[how] == "host");
}

bool relayRecord(Kind k) {
  return k == Kind::RELAY_START || k == Kind::RELAY_BATCH || k == Kind::RELAY_STOP || isSampleRecord(k);
}

// Every event's time through its task's fit, in the original arrival
// order (seq), so the new trace is the old one re-timed.
// hostFits[t]: the fit of the relay on task t's host (invalid on abmon's
// host): the monitor's records of the task are on that relay's clock.
// relays: the relays' fits by tid, for their own relay.* records (on their
// clock); null: those records as they are.
std::shared_ptr<const Trace> retime(const Trace& trace, const std::vector<ClockFit>& fits,
                                    const std::vector<ClockFit>& hostFits,
                                    const detail::RecordShift* shift,
                                    const std::unordered_map<Tid, ClockFit>* relays = nullptr) {
  struct At {
    std::uint32_t seq;
    std::int64_t task;  // -1: a monitor event
    std::uint32_t index;
  };
  std::vector<At> order;
  order.reserve(trace.eventCount() + trace.monitorEvents().size());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    for (std::uint32_t i = 0; i < trace.events(t).size(); ++i) order.push_back({trace.events(t)[i].seq, t, i});
  for (std::uint32_t i = 0; i < trace.monitorEvents().size(); ++i)
    order.push_back({trace.monitorEvents()[i].seq, -1, i});
  std::sort(order.begin(), order.end(), [](const At& a, const At& b) { return a.seq < b.seq; });
  TraceBuilder b;
  b.header() = trace.header();
  if (trace.cut().cut) b.adoptCut(trace);  // its task table and what the cut left out, by the same task indices
  for (const auto& [tid, ev] : trace.referenceClocks())
    for (const Event& e : ev) b.appendReferenceClock(tid, e);  // kept for a reader that refits
  std::vector<bool> seen(trace.taskCount(), false);
  for (const At& at : order) {
    if (at.task < 0) {
      // Through a Record: its strings (a relay's host) are ids of this
      // trace's table, not of the new one's.
      text::Record r = toRecord(trace, trace.monitorEvents()[at.index], trace.monitorTid(at.index));
      // A relay's own records are on its clock: through its fit, so that
      // the run's first and last records are on global time too.
      if (relays && relayRecord(r.kind))
        if (auto it = relays->find(r.tid); it != relays->end()) r.time = it->second.toReference(r.time);
      b.record(r);
      continue;
    }
    auto t = static_cast<TaskIndex>(at.task);
    const TaskInfo& info = trace.task(t);
    // The identity where this trace has one (a piece of a stream may not).
    bool identity = !seen[t] && (info.name >= 0 || info.host >= 0 || info.pid != 0 || info.parent != kNoTid);
    text::Record r = toRecord(trace, t, at.index, identity);
    if (identity && info.name >= 0) r.id.instance = info.instance;
    seen[t] = true;
    if (!monitorWritten(r))
      r.time = fits[t].toReference(r.time);
    else if (t < hostFits.size() && !writtenByAbmon(r))
      r.time = hostFits[t].toReference(r.time);  // the task's relay wrote it, on its clock
    // else abmon's own record, on its clock already
    if (shift) r.time = addTime(r.time, (*shift)(t, at.index));
    b.record(r);
  }
  return b.take();
}

}  // namespace

// The same re-dating without a second copy, for a trace its caller alone
// holds: each event's time changes where it is stored, and what the
// builder derives from times (each task's first, last and exit times, the
// trace's first and last) is derived again.  Order, strings, lists and
// arrival numbers stay as they are: the result is what retime() builds.
struct TraceRedate {
  // The trace to change when `p` is its only owner and no snapshot shares
  // its events' storage; null otherwise.  Every Trace is made as a mutable
  // object (TraceBuilder::take, freeze), so changing it through the sole
  // reference is sound.
  static Trace* sole(const std::shared_ptr<const Trace>& p) {
    if (!p || p.use_count() != 1) return nullptr;
    for (const auto& ev : p->events_)
      if (!ev.sole()) return nullptr;
    return const_cast<Trace*>(p.get());
  }

  static void redate(Trace& trace, const std::vector<ClockFit>& fits, const std::vector<ClockFit>& hostFits,
                     const detail::RecordShift* shift, const std::unordered_map<Tid, ClockFit>* relays) {
    for (std::size_t i = 0; i < trace.monitor_.size() && relays; ++i) {
      Event& e = trace.monitor_[i];
      if (relayRecord(e.kind))
        if (auto it = relays->find(trace.monitorTid(i)); it != relays->end()) e.time = it->second.toReference(e.time);
    }
    const int how = slotOf(Kind::TASK_EXIT, Phase::End, keyName(Key::How));
    Derived derived(trace);
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      std::optional<detail::RecordShift::Walk> walk;
      if (shift) walk.emplace(*shift, t);
      derived.startTask(t);
      trace.events_[t].rewrite([&](Event& e, std::size_t i) {
        if (!monitorWritten(e))
          e.time = fits[t].toReference(e.time);
        else if (t < hostFits.size() && !writtenByAbmon(trace, e, how))
          e.time = hostFits[t].toReference(e.time);
        if (walk) e.time = addTime(e.time, (*walk)(i));
        derived.event(e);
      });
    }
    derived.finish();
  }

  // What TraceBuilder::append and noteTime derive from the times, taken
  // from each task's events, in order, as they pass: the trace's first and
  // last time, each task's first, last and exit time.
  class Derived {
   public:
    explicit Derived(Trace& trace) : trace_(trace) {}
    void startTask(TaskIndex t) {
      info_ = &trace_.tasks_[t];
      first_ = true;
      exitSeen_ = false;
    }
    void event(const Event& e) {
      note(e.time);
      if (first_) {
        info_->firstTime = info_->lastTime = e.time;
        first_ = false;
      } else {
        info_->lastTime = std::max(info_->lastTime, e.time);
      }
      const bool exitCall = e.kind == Kind::EXIT && e.phase == Phase::End;
      if (!exitSeen_ && (exitCall || e.kind == Kind::TASK_EXIT)) {
        exitSeen_ = true;
        if (info_->exit != ExitHow::None) info_->exitTime = e.time;
      }
    }
    void finish() {
      for (const Event& e : trace_.monitor_) note(e.time);
    }

   private:
    void note(TimeNs t) {
      trace_.firstTime_ = any_ ? std::min(trace_.firstTime_, t) : t;
      trace_.lastTime_ = any_ ? std::max(trace_.lastTime_, t) : t;
      any_ = true;
    }
    Trace& trace_;
    TaskInfo* info_ = nullptr;
    bool any_ = false, first_ = true, exitSeen_ = false;
  };

  static void rederive(Trace& trace) {
    Derived derived(trace);
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      derived.startTask(t);
      trace.events_[t].forEach([&](const Event& e) { derived.event(e); });
    }
    derived.finish();
  }

  // The re-dating as a copy that shares the events' bytes: each task's
  // store re-dated as it is read, by its fits and its steps of the
  // correction (those that change its shift, copied), the rest copied or
  // shared as TraceBuilder::freeze does.
  static std::shared_ptr<const Trace> shared(const Trace& trace, const std::vector<ClockFit>& fits,
                                             const std::vector<ClockFit>& hostFits,
                                             const detail::CausalCorrection* steps,
                                             const std::unordered_map<Tid, ClockFit>* relays) {
    auto out = std::make_shared<Trace>();
    out->copyAllButEvents(trace);  // a window of a longer run stays one (Trace::cut)
    for (std::size_t i = 0; i < out->monitor_.size() && relays; ++i) {
      Event& e = out->monitor_[i];
      if (relayRecord(e.kind))
        if (auto it = relays->find(out->monitorTid(i)); it != relays->end()) e.time = it->second.toReference(e.time);
    }
    // writtenByAbmon's test, on the string's id: the trace's strings are
    // interned, so "host" has one id at most.
    const int how = slotOf(Kind::TASK_EXIT, Phase::End, keyName(Key::How));
    std::optional<std::int32_t> host;
    for (std::size_t i = 0; i < trace.strings_.size() && !host; ++i)
      if (trace.strings_[i] == "host") host = static_cast<std::int32_t>(i);
    out->events_.reserve(trace.taskCount());
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      struct Steps {
        std::vector<std::uint32_t> from;
        std::vector<TimeNs> shift;
      } own;
      // Only the steps where the shift changes (a receive the correction
      // moved, often none): a record's shift is that of the last step at or
      // before it, 0 before the first.
      if (steps && t < steps->from.size())
        for (std::size_t k = 0; k < steps->from[t].size(); ++k)
          if (steps->shift[t][k] != (own.shift.empty() ? 0 : own.shift.back())) {
            own.from.push_back(steps->from[t][k]);
            own.shift.push_back(steps->shift[t][k]);
          }
      const bool onHost = t < hostFits.size();
      out->events_.push_back(trace.events_[t].redated(
          [fit = fits[t], hostFit = onHost ? hostFits[t] : ClockFit{}, onHost, how, host,
           own = std::move(own)](Event* ev, std::size_t first, std::uint32_t count) {
            // The steps at or before `first`, then walked along.
            std::size_t k = static_cast<std::size_t>(std::upper_bound(own.from.begin(), own.from.end(), first) -
                                                     own.from.begin());
            for (std::uint32_t j = 0; j < count; ++j) {
              Event& e = ev[j];
              if (!monitorWritten(e))
                e.time = fit.toReference(e.time);
              else if (onHost && !(e.kind == Kind::OUTPUT ||
                                   (e.kind == Kind::TASK_EXIT && how >= 0 && host && e.a[how] == *host)))
                e.time = hostFit.toReference(e.time);
              while (k < own.from.size() && own.from[k] <= first + j) ++k;
              if (k) e.time = addTime(e.time, own.shift[k - 1]);
            }
          }));
    }
    rederive(*out);
    return out;
  }

  static bool monitorWritten(const Event& e) {
    return e.kind == Kind::TASK_EXIT || e.kind == Kind::ABMON_LOST || e.kind == Kind::ABMON_BAD || e.kind == Kind::OUTPUT;
  }
  // As writtenByAbmon() reads it through a Record (the slot's string, present or not).
  static bool writtenByAbmon(const Trace& trace, const Event& e, int how) {
    return e.kind == Kind::OUTPUT || (e.kind == Kind::TASK_EXIT && how >= 0 && trace.str(e.a[how]) == "host");
  }
};

namespace {

// The re-dating, in place when the caller handed over the only reference,
// else as a copy that shares every byte of the trace's events and re-dates
// them as they are read (EventStore::redated): the records stay as they
// are either way, so a message table of `trace` is one of the result.
// steps: the causality correction's, or null.
std::shared_ptr<const Trace> retimeOwned(std::shared_ptr<const Trace> trace, const std::vector<ClockFit>& fits,
                                         const std::vector<ClockFit>& hostFits,
                                         const detail::CausalCorrection* steps,
                                         const std::unordered_map<Tid, ClockFit>* relays = nullptr) {
  std::optional<detail::RecordShift> shift;
  if (steps) shift.emplace(*steps);
  if (Trace* own = TraceRedate::sole(trace)) {
    TraceRedate::redate(*own, fits, hostFits, shift ? &*shift : nullptr, relays);
    return trace;
  }
  return TraceRedate::shared(*trace, fits, hostFits, steps, relays);
}

// Receives earlier than their send plus minTransfer, with each task's
// times as recorded (fits null) or through its fit.
std::uint64_t countViolations(const MessageTable& m, const std::vector<detail::Exchange>& x,
                              const std::vector<ClockFit>* fits, TimeNs minTransfer) {
  std::uint64_t n = 0;
  for (std::size_t k = 0, e = 0; k < m.messages.size(); ++k) {
    const TaskIndex sender = m.messages.send(k).task;
    for (const MessageReceive& r : m.messages.receives(k)) {
      const auto& t = x[e++].times;
      const TimeNs sent = fits ? (*fits)[sender].toReference(t.sent) : t.sent;
      const TimeNs got = fits ? (*fits)[r.recv.task].toReference(t.got) : t.got;
      n += got < addTime(sent, minTransfer);
    }
  }
  return n;
}

// A fit must not make causality worse than the clock as recorded.  Its
// samples can be false and still narrow (an exchange that took the late
// answer to an earlier ping: hundreds of ms off, on a clock that needs no
// correction), and a task's messages then say more than its samples: each
// task whose fit puts more of its messages' receives before their sends
// (partners through their fits) than its times as recorded keeps those
// (identity fit).  Only receives early by more than both fits' error
// count (each its fastest exchange's whole transit, beyond what any honest
// sample can be off; not its residuals, which a false sample inflates):
// a few us the correction then removes say nothing against a fit.  A
// clock that is truly off keeps its fit.  Returns the tasks refused.
std::uint64_t refuseWorseFits(const MessageTable& m, const std::vector<detail::Exchange>& x, TimeNs minTransfer,
                              std::vector<ClockFit>& fits) {
  std::vector<std::int64_t> worse(fits.size(), 0);  // receives too early with its fit, minus as recorded
  auto at = [&](TaskIndex t, TimeNs recordedTime, bool recorded) {
    return recorded ? recordedTime : fits[t].toReference(recordedTime);
  };
  auto error = [&](TaskIndex t) {
    const ClockFit& f = fits[t];
    return f.valid ? f.minTransit : 0;
  };
  for (std::size_t k = 0, e = 0; k < m.messages.size(); ++k) {
    const TaskIndex sender = m.messages.send(k).task;
    for (const MessageReceive& r : m.messages.receives(k)) {
      const auto& t = x[e++].times;
      const TaskIndex receiver = r.recv.task;
      if (receiver == sender) continue;
      const TimeNs slack = addTime(minTransfer, -(error(sender) + error(receiver)));
      auto early = [&](bool sendRecorded, bool recvRecorded) {
        return at(receiver, t.got, recvRecorded) < addTime(at(sender, t.sent, sendRecorded), slack);
      };
      const int fitted = early(false, false);
      worse[sender] += fitted - early(true, false);
      worse[receiver] += fitted - early(false, true);
    }
  }
  std::uint64_t refused = 0;
  for (TaskIndex t = 0; t < fits.size(); ++t) {
    if (!fits[t].valid || worse[t] <= 0) continue;
    fits[t].refAt = fits[t].localAt;
    fits[t].rate = 1.0;
    fits[t].rateFitted = false;
    ++refused;
  }
  return refused;
}

}  // namespace

std::shared_ptr<const Trace> shiftTimes(const Trace& trace, const std::vector<std::vector<TimeNs>>& shift) {
  std::vector<ClockFit> none(trace.taskCount());
  const detail::RecordShift by(shift);
  return retime(trace, none, {}, &by);
}

std::shared_ptr<const Trace> shiftTimes(std::shared_ptr<const Trace> trace,
                                        const std::vector<std::vector<TimeNs>>& shift) {
  std::vector<ClockFit> none(trace->taskCount());
  const detail::RecordShift by(shift);
  if (Trace* own = TraceRedate::sole(trace)) {
    TraceRedate::redate(*own, none, {}, &by, nullptr);
    return trace;
  }
  return retime(*trace, none, {}, &by);
}

std::shared_ptr<const Trace> applyClockFits(const Trace& trace, const std::unordered_map<Tid, ClockFit>& fits) {
  std::vector<ClockFit> perTask(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    if (auto it = fits.find(trace.task(t).tid); it != fits.end()) perTask[t] = it->second;
  return retime(trace, perTask, {}, nullptr, &fits);
}

std::shared_ptr<const Trace> toGlobalTime(std::shared_ptr<const Trace> input, ClockReport& report,
                                          std::shared_ptr<MessageTable>* messages) {
  report = ClockReport{};
  const Trace& trace = *input;
  std::vector<ClockFit> fits(trace.taskCount());
  TimeNs minTransit = INT64_MAX;
  const auto relays = referenceFits(trace);
  std::vector<ClockFit> hostFits(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    auto samples = clockSamples(trace, t);
    report.clockRecords |= !samples.empty() || !relays.empty();
    hostFits[t] = taskClockFit(ClockFit{}, trace.task(t).tid, relays);  // its host's relay's, if any
    fits[t] = taskClockFit(fitClock(samples), trace.task(t).tid, relays);
    if (fits[t].valid) minTransit = std::min(minTransit, fits[t].minTransit);
  }
  if (!report.clockRecords) {
    report.note = "no clock records: task clocks as recorded, no correction";
    report.fits = fits;
    return input;
  }
  // One way of the fastest exchange: no message can travel faster.
  report.minTransfer = minTransit / 2;
  MessageTable m = matchMessages(trace);
  std::vector<detail::Exchange> x = detail::exchanges(trace, m);
  report.messagesChecked = x.size();
  report.violationsRaw = countViolations(m, x, nullptr, report.minTransfer);
  report.fitsRefused = refuseWorseFits(m, x, report.minTransfer, fits);
  const std::size_t taskCount = trace.taskCount();
  // The check and the correction read each matched receive's times through
  // the fits; the trace is then re-dated once, fits and correction
  // together.
  report.violationsFit = countViolations(m, x, &fits, report.minTransfer);
  std::optional<detail::CausalCorrection> correction;
  if (report.violationsFit > 0) {
    correction = detail::causalShifts(std::move(m), std::move(x), fits, report.minTransfer, report);
    report.violationsCorrected = correction->violationsLeft;
  }
  x = {};
  auto out = retimeOwned(std::move(input), fits, hostFits, correction ? &*correction : nullptr, &relays);
  if (messages && !correction && !out->cut().cut) {  // the correction frees the table
    m.retimed(*out);
    *messages = std::make_shared<MessageTable>(std::move(m));
  }
  report.fits.assign(out->taskCount(), ClockFit{});
  for (TaskIndex t = 0; t < taskCount && t < out->taskCount(); ++t) report.fits[t] = fits[t];
  std::size_t fittedCount = 0;
  for (const ClockFit& f : fits) fittedCount += f.valid;
  char buf[256];
  std::snprintf(buf, sizeof buf, "global time: %zu of %zu tasks fitted to the reference clock", fittedCount,
                taskCount);
  report.note = buf;
  return out;
}

}  // namespace xab
