// xab/model/clock.h -- global time: every task's clock put on the
// reference clock (abmon's) from the trace's `clock` records, and the
// causality check and correction after the fit (docs/global-time.md).
//
// Each task is its own clock domain.  Its `clock` records are ping-pong
// exchanges with a reference (Chassin de Kergommeaux et al., eq. 4.3): the reference's clock
// at the middle of its turn, (t2 + t3) / 2, is paired with the task's at
// the middle of the exchange, (t1 + t4) / 2, each pair good to half its
// transit time (rtt - turn) / 2.  The fit keeps the fastest exchanges of
// each phase (lowest-RTT filtering), fits reference = offset + rate *
// local by least squares, drops samples far off the line and fits again.
// With samples spanning less than kMinDriftSpan the rate is taken as 1.
// Each sample bounds reference - local to [t3 - t4, t2 - t1]; the fit
// moves a task no further than those intervals give evidence for: not at
// all when the reference's clock lies in every one (a task on abmon's
// clock keeps its times), by a constant offset when one lies in every
// used sample's (no drift), else by the fitted line.
#pragma once

#include <xab/model/trace.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace xab {

class MessageTable;

// One exchange, as the trace records it.
struct ClockSample {
  TimeNs t1 = 0, t2 = 0, t3 = 0, t4 = 0;  // t1, t4 task clock; t2, t3 reference clock
  Tid ref = 0;
  std::int32_t phase = 0;  // 0 start, 1 running, 2 end
  std::int32_t number = 0; // within its phase
  TimeNs local() const { return t1 + (t4 - t1) / 2; }
  TimeNs reference() const { return t2 + (t3 - t2) / 2; }
  TimeNs transit() const { return (t4 - t1) - (t3 - t2); }  // both ways
};

// The samples of every `clock` record of task t, in record order.
std::vector<ClockSample> clockSamples(const Trace& trace, TaskIndex t);
// Those of its events from index `from` on, appended to `out`: a live
// reader looks at each record once.  Returns the index to go on from.
std::size_t appendClockSamples(const Trace& trace, TaskIndex t, std::size_t from, std::vector<ClockSample>& out);

inline constexpr TimeNs kMinDriftSpan = 500'000'000;  // 0.5 s of samples to fit a rate

// reference time = refAt + (local - localAt) * rate
struct ClockFit {
  bool valid = false;
  TimeNs localAt = 0, refAt = 0;
  double rate = 1.0;
  std::size_t samples = 0, used = 0;  // in the trace / kept by the filter and the outlier pass
  TimeNs minTransit = 0;              // fastest exchange (both ways)
  TimeNs maxResidual = 0;             // largest |residual| of the samples used
  TimeNs maxBeyond = 0;               // ... beyond the sample's own bound, half its transit (0: the line crosses every one)
  double rmsResidual = 0;             // ns
  bool rateFitted = false;            // false: rate 1 (samples span < kMinDriftSpan, or no evidence of a drift)
  Tid ref = 0;                        // the clock the samples measured against (abmon, or a relay)
  Tid via = 0;                        // composed: the relay whose own fit put it on abmon's clock
  TimeNs toReference(TimeNs local) const;
  // The task's clock minus the reference's at task time `local` (ns): a
  // clock ahead of abmon's has a positive offset, as XAB_TEST_CLOCK_SKEW gives it.
  double offsetAt(TimeNs local) const { return static_cast<double>(local - toReference(local)); }
  // How much faster the task's clock runs than the reference's, in ppm.
  double driftPpm() const { return (1.0 / rate - 1.0) * 1e6; }
};

ClockFit fitClock(const std::vector<ClockSample>& samples);

// A task's fit against a relay composed with the relay's own fit against
// abmon (task -> relay -> abmon): one linear fit on abmon's clock.  `refs`
// holds the relays' fits by tid; a fit whose ref is not there is returned
// as it is.
ClockFit composeFit(const ClockFit& fit, const std::unordered_map<Tid, ClockFit>& refs);
// The fits of the trace's reference clocks (its relays'), by tid.
std::unordered_map<Tid, ClockFit> referenceFits(const Trace& trace);
// The fit that puts task `tid`'s records on abmon's clock, the one rule of
// every reader (toGlobalTime, LiveClockFit): the fit of its own samples
// (`own`; invalid when it has none) composed with its relay's, else the fit
// of the relay on its host (the task reads its host's clock, as the relay
// does: a task PVM traces, a task that started before its host's relay).
// Invalid: the task stays on its own clock.
ClockFit taskClockFit(const ClockFit& own, Tid tid, const std::unordered_map<Tid, ClockFit>& relays);

// Whether putting the task clock readings [first, last] on the reference
// clock through `fit` moves any of them by more than the fit can tell
// from its own error: half its fastest exchange's transit, and at least
// kClockResolution.  On one host every task reads abmon's clock, the fit
// finds offsets of a few microseconds inside that error, and a live viewer
// keeps the times as recorded (no whole new trace for every picture).
inline constexpr TimeNs kClockResolution = 1'000;
bool fitMoves(const ClockFit& fit, TimeNs first, TimeNs last);

// What the correction did, for abstat and the viewer.
struct ClockReport {
  bool clockRecords = false;        // the trace has clock records at all
  std::vector<ClockFit> fits;       // per task index of the corrected trace
  TimeNs minTransfer = 0;           // the least one-way transfer time used by the causality rule
  std::uint64_t messagesChecked = 0;
  std::uint64_t violationsRaw = 0;  // receives earlier than send + minTransfer, before the fit
  std::uint64_t violationsFit = 0;  // ... after the fit
  std::uint64_t violationsCorrected = 0;  // ... after the causality correction (0 unless it gave up)
  std::uint64_t fitsRefused = 0;    // tasks kept on their clock as recorded: their fit put more receives before their sends
  std::uint64_t receivesMoved = 0;  // receives the correction moved forward
  TimeNs largestMove = 0;
  std::string note;                 // one line: what was done, or why not
};

// The trace on global time: each task's times through its fit
// (taskClockFit: tasks without one keep theirs; a task whose fit puts more
// of its messages' receives before their sends than its clock as recorded
// keeps its times too: the fit is refused), each relay's own records
// through the relay's (the trace's first and last times are global too),
// then the causality correction, and `report` says what was done.  The
// times change in place when the caller hands over the only reference to
// `trace` and no snapshot shares its events (abstat and the translators
// after reading a file: no second copy); otherwise the result is a new,
// re-timed trace.  A trace without clock records
// (an old one, an importer's) is handed back as it is (report.note says so).
// messages, when not null, receives the message table of the result when
// one was made and kept (the check needs it; the correction frees it to
// keep the peak down; not on a cut trace), else stays as it is: the
// analyses then need not match again.
std::shared_ptr<const Trace> toGlobalTime(std::shared_ptr<const Trace> trace, ClockReport& report,
                                          std::shared_ptr<MessageTable>* messages = nullptr);

// For readers that see a trace in pieces (the streaming translators): the
// samples of every piece, then one fit per task (tid).  No causality
// correction: that needs the whole trace's messages.
class ClockFitter {
 public:
  void add(const Trace& piece);
  bool any() const { return !samples_.empty(); }
  std::unordered_map<Tid, ClockFit> fit() const;

 private:
  std::unordered_map<Tid, std::vector<ClockSample>> samples_;
};

// The fit of a growing trace (a live viewer's): each call looks only at
// the records added since the last, refits the tasks that got samples, and
// says whether global time would move any task's times (fitMoves).  While
// it would not, the trace on global time is the trace as recorded, and a
// live picture can be extended instead of rebuilt from a re-timed copy.
class LiveClockFit {
 public:
  // true: some task's clock is off the reference by more than its fit's
  // error, so the trace must go through toGlobalTime.
  bool update(const Trace& trace);
  bool anySamples() const { return anySamples_; }

 private:
  struct TaskClock {
    std::vector<ClockSample> samples;
    std::size_t scanned = 0;
    ClockFit fit;
  };
  std::unordered_map<Tid, TaskClock> tasks_;
  std::unordered_map<Tid, TaskClock> refs_;  // relays' clocks
  bool anySamples_ = false;
  std::uint64_t cutAt_ = 0;  // the trace's cut position scanned (a new cut renumbers its records: scanned again)
};
// The trace with shift[task][index] added to each event's time (same shape as the trace).
std::shared_ptr<const Trace> shiftTimes(const Trace& trace, const std::vector<std::vector<TimeNs>>& shift);
// The same, re-dating `trace` in place when the caller hands over its only
// reference and no snapshot shares its events (else a re-timed copy).
std::shared_ptr<const Trace> shiftTimes(std::shared_ptr<const Trace> trace,
                                        const std::vector<std::vector<TimeNs>>& shift);

// The trace with each task's times through fits[its tid] (others as they are).
std::shared_ptr<const Trace> applyClockFits(const Trace& trace, const std::unordered_map<Tid, ClockFit>& fits);

}  // namespace xab
