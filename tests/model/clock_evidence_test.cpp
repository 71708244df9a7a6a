// Global time (xab/model/clock.h): a fit moves a task's times only as far
// as its samples give evidence for.  Each exchange bounds the task's clock
// against the reference's to an interval of its transit's width; a clock
// every interval agrees with is left as recorded, and a drift a constant
// offset explains as well is not fitted.  Tasks that read one clock (one
// host, a loaded machine: every exchange waited on one way or the other)
// keep their times, so the fit cannot put a receive before its send.
#include "clock_synth.h"

using namespace xab;
using namespace xab::clocktest;

namespace {

constexpr Tid kC = 0x40004, kD = 0x40005;

// A phase of `n` exchanges whose every one waited `wait` ns more on one
// way: on the way out (wait > 0: the sample reads the reference clock
// wait/2 ahead) or back (wait < 0: behind), as a loaded machine delays
// them.  Such a sample is honest: its interval holds the truth.
void waited(Synth& s, Tid tid, const Skew& skew, TimeNs t, int phase, int n, TimeNs wait) {
  constexpr TimeNs kOneWay = 20'000;
  if (wait >= 0)
    s.exchanges(tid, skew, t, phase, n, kOneWay, 0, kRef, Skew{}, wait);
  else
    s.exchanges(tid, skew, t, phase, n, kOneWay - wait, 0, kRef, Skew{}, wait);
}

constexpr TimeNs kEnd = 600'000'000;  // the end phase: 0.6 s on, enough span to fit a rate

}  // namespace

TEST_CASE("clock fit: tasks on the reference's clock keep their times, however their exchanges waited",
          "[clock]") {
  Synth s;
  // A's exchanges all waited 200 us on the way out, B's on the way back,
  // C's out at the start and back at the end (a drift of -333 ppm to a
  // line through them).  Four exchanges per phase, as a short task has.
  waited(s, kA, kNone, kT0, 0, 4, 200'000);
  waited(s, kB, kNone, kT0, 0, 4, -200'000);
  waited(s, kC, kNone, kT0, 0, 4, 200'000);
  // Messages with 150 us of transit (more than one way of any exchange), all ways, through the run.
  int serial = 0;
  for (TimeNs t = kT0 + 50'000'000; t < kT0 + kEnd; t += 50'000'000) {
    for (auto [from, to] : {std::pair{kA, kB}, std::pair{kB, kA}, std::pair{kA, kC}, std::pair{kC, kB}}) {
      s.send(from, kNone, t, to, ++serial);
      s.recv(to, kNone, t + 150'000, from, serial);
      t += 200'000;
    }
  }
  waited(s, kA, kNone, kT0 + kEnd, 2, 4, 200'000);
  waited(s, kB, kNone, kT0 + kEnd, 2, 4, -200'000);
  waited(s, kC, kNone, kT0 + kEnd, 2, 4, -200'000);
  auto raw = s.trace();
  for (Tid tid : {kA, kB, kC}) {
    ClockFit f = fitClock(clockSamples(*raw, *raw->findTask(tid)));
    INFO("t" << std::hex << tid << std::dec << ": offset " << f.offsetAt(kT0) / 1e3 << " us, drift " << f.driftPpm()
             << " ppm");
    REQUIRE(f.valid);
    CHECK(f.offsetAt(kT0) == 0);
    CHECK(f.offsetAt(kT0 + kEnd) == 0);
    CHECK(f.driftPpm() == 0);
    CHECK_FALSE(fitMoves(f, kT0, kT0 + kEnd));
  }
  ClockReport rep;
  auto global = toGlobalTime(raw, rep);
  CHECK(rep.messagesChecked == 44);
  CHECK(rep.violationsRaw == 0);
  CHECK(rep.violationsFit == 0);
  CHECK(rep.receivesMoved == 0);
  for (TaskIndex t = 0; t < raw->taskCount(); ++t)
    for (std::size_t i = 0; i < raw->events(t).size(); ++i) REQUIRE(global->events(t)[i].time == raw->events(t)[i].time);
}

TEST_CASE("clock fit: a drift that a constant offset explains as well is not fitted, one it does not explain is",
          "[clock]") {
  Synth s;
  // D's clock is 3 ms ahead, no drift; its start exchanges waited on the
  // way out, its end exchanges on the way back: a line through them would
  // drift -333 ppm, yet 3 ms lies in every sample's interval.
  const Skew kAhead{0.003, 0};
  waited(s, kD, kAhead, kT0, 0, 4, 200'000);
  waited(s, kD, kAhead, kT0 + kEnd, 2, 4, -200'000);
  // B's clock drifts 200 ppm, its exchanges quick: 120 us over the same
  // span, far beyond their 20 us intervals.
  s.exchanges(kB, kSkewB, kT0, 0, 4, 10'000);
  s.exchanges(kB, kSkewB, kT0 + kEnd, 2, 4, 10'000);
  auto trace = s.trace();
  ClockFit d = fitClock(clockSamples(*trace, *trace->findTask(kD)));
  REQUIRE(d.valid);
  INFO("D: offset " << d.offsetAt(kAhead.at(kT0)) / 1e3 << " us, drift " << d.driftPpm() << " ppm");
  CHECK_FALSE(d.rateFitted);
  CHECK(d.driftPpm() == 0);
  for (TimeNs t = kT0; t <= kT0 + kEnd; t += 100'000'000)
    CHECK(std::llabs(d.toReference(kAhead.at(t)) - t) < 20'000);  // its samples, +100 and -100 us off, average out
  ClockFit b = fitClock(clockSamples(*trace, *trace->findTask(kB)));
  REQUIRE(b.valid);
  CHECK(b.rateFitted);
  CHECK(std::fabs(b.driftPpm() - 200) < 20);
  for (TimeNs t = kT0; t <= kT0 + kEnd; t += 100'000'000)
    CHECK(std::llabs(b.toReference(kSkewB.at(t)) - t) < 10'000);
}

TEST_CASE("clock fit: samples far off the line but within their own bound do not make it poor", "[clock]") {
  Synth s;
  // A task on the reference's clock: quick exchanges at the start, then an
  // end phase whose every exchange waited 300 us on the way out, 150 us
  // off the line yet within half their transit.
  s.exchanges(kA, kNone, kT0, 0, 16, 10'000);
  waited(s, kA, kNone, kT0 + kEnd, 2, 16, 300'000);
  // A clock 2 ms off in the middle of the run only, with quick
  // exchanges: no line holds all three phases.
  s.exchanges(kD, kNone, kT0, 0, 16, 10'000);
  s.exchanges(kD, Skew{0.002, 0}, kT0 + kEnd / 2, 1, 16, 10'000);
  s.exchanges(kD, kNone, kT0 + kEnd, 2, 16, 10'000);
  auto trace = s.trace();
  ClockFit a = fitClock(clockSamples(*trace, *trace->findTask(kA)));
  REQUIRE(a.valid);
  INFO("A: " << a.used << " samples used, largest residual " << a.maxResidual / 1e3 << " us, fastest transit "
             << a.minTransit / 1e3 << " us");
  CHECK(a.maxResidual > 100'000);
  CHECK_FALSE(fitIsPoor(a));
  ClockFit d = fitClock(clockSamples(*trace, *trace->findTask(kD)));
  REQUIRE(d.valid);
  CHECK(fitIsPoor(d));
}

// A task whose exchanges at its start got no answer in time, and whose
// clock was then stepped 650 ms away: its one exchange at its end is
// narrow, and false for every record before the step.  The task's
// messages say more than that sample: on its clock as recorded none is
// received before its send.
TEST_CASE("global time: a fit that puts more receives before their sends than the clock as recorded is refused",
          "[clock]") {
  Synth s;
  s.exchanges(kA, kNone, kT0, 0, 16, 10'000);
  const TimeNs stale = kT0 + 250'000'000, end = kT0 + 900'000'000;  // the reference's answer, the task's ping
  s.send(kA, kNone, kT0 + 500'000'000, kD, 1);
  s.recv(kD, kNone, kT0 + 500'150'000, kA, 1);
  s.send(kD, kNone, kT0 + 600'000'000, kA, 1);
  s.recv(kA, kNone, kT0 + 600'150'000, kD, 1);
  s.line(end + 10'000, end, kD,
         "clock ref=t40001 ref_s=" + std::to_string(stale / 1'000'000'000) +
             " ref_ns=" + std::to_string(stale % 1'000'000'000) + " turn_ns=100 rtt_ns=8000 phase=2 rc=0");
  s.exchanges(kA, kNone, kT0 + 1'000'000'000, 2, 16, 10'000);
  auto raw = s.trace();
  ClockFit d = fitClock(clockSamples(*raw, *raw->findTask(kD)));
  REQUIRE(d.valid);
  REQUIRE(std::llabs(d.toReference(end) - (stale + 50)) < 5'000);  // the false sample, taken at its word
  ClockReport rep;
  auto global = toGlobalTime(raw, rep);
  CHECK(rep.violationsRaw == 0);
  CHECK(rep.violationsFit == 0);
  CHECK(rep.receivesMoved == 0);
  CHECK(rep.fitsRefused == 1);
  TaskIndex t = *raw->findTask(kD);
  for (std::size_t i = 0; i < raw->events(t).size(); ++i) CHECK(global->events(t)[i].time == raw->events(t)[i].time);
  CHECK(rep.fits[t].offsetAt(end) == 0);
}
