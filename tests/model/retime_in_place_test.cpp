// Global time without a second copy (xab/model/time_base.h): a trace whose
// caller hands over the only reference is re-dated where it is stored, and
// comes out as the re-timed copy would; a trace someone else still reads
// (a snapshot sharing its events) is left as it was, and the re-timed one
// shares its events' bytes, re-dating them as they are read.
#include <xab/model/model.h>

#include <catch2/catch.hpp>

#include "clock_synth.h"

using namespace xab;
using namespace xab::clocktest;

namespace {

// B's clock skewed, a message the fit leaves too early (the causality
// correction runs too), a mark after it and both tasks' exits.
Synth skewedRun() {
  Synth s;
  sampleBoth(s, 0);
  TimeNs t = kT0 + 3'000'000'000;
  s.send(kA, kNone, t, kB, 1);
  s.recv(kB, kSkewB, t + 1'000, kA, 1);
  s.line(t + 50'000, kSkewB.at(t + 50'000), kB, "mark text=after rc=0");
  s.line(t + 60'000, kNone.at(t + 60'000), kA, "exit rc=0");
  s.line(t + 70'000, kSkewB.at(t + 70'000), kB, "exit rc=0");
  return s;
}

void checkSame(const Trace& a, const Trace& b) {
  REQUIRE(a.taskCount() == b.taskCount());
  REQUIRE(a.eventCount() == b.eventCount());
  CHECK(a.firstTime() == b.firstTime());
  CHECK(a.lastTime() == b.lastTime());
  for (TaskIndex t = 0; t < a.taskCount(); ++t) {
    INFO("task " << a.label(t));
    CHECK(a.task(t).firstTime == b.task(t).firstTime);
    CHECK(a.task(t).lastTime == b.task(t).lastTime);
    CHECK(a.task(t).exitTime == b.task(t).exitTime);
    REQUIRE(a.events(t).size() == b.events(t).size());
    for (std::size_t i = 0; i < a.events(t).size(); ++i) {
      const Event &x = a.events(t)[i], &y = b.events(t)[i];
      CHECK(x.time == y.time);
      CHECK(x.seq == y.seq);
      CHECK(x.present == y.present);
    }
  }
  REQUIRE(a.monitorEvents().size() == b.monitorEvents().size());
  for (std::size_t i = 0; i < a.monitorEvents().size(); ++i) CHECK(a.monitorEvents()[i].time == b.monitorEvents()[i].time);
}

}  // namespace

TEST_CASE("global time re-dates a trace its caller alone holds in place, as the copy would", "[clock]") {
  Synth s = skewedRun();
  // The copy: a second reference keeps the trace as read.
  auto read = s.trace();
  auto kept = read;
  TimeBaseReport copyReport;
  auto copied = prepare(std::move(read), TimeBase{}, copyReport);
  REQUIRE(copyReport.clock.receivesMoved == 1);  // the fit and the correction both re-dated
  CHECK(copied.get() != kept.get());

  // In place: the only reference handed over.
  auto alone = s.trace();
  const Trace* object = alone.get();
  TaskIndex b = *alone->findTask(kB);
  const EventStore* store = &alone->events(b);
  const TimeNs recorded = alone->events(b)[0].time;
  TimeBaseReport report;
  auto global = prepare(std::move(alone), TimeBase{}, report);
  CHECK(global.get() == object);          // no second trace
  CHECK(&global->events(b) == store);     // its events re-dated where they are kept
  CHECK(global->events(b)[0].time != recorded);
  CHECK(report.clock.receivesMoved == copyReport.clock.receivesMoved);
  CHECK(report.clock.note == copyReport.clock.note);
  checkSame(*global, *copied);
}

TEST_CASE("global time leaves a trace a snapshot still shares as it was, and shares its events", "[clock]") {
  Synth s = skewedRun();
  TraceReader r;
  r.feed(s.text);
  r.finish();
  auto snapshot = r.snapshot();  // shares every full chunk of the events
  auto taken = r.take();
  TaskIndex b = *snapshot->findTask(kB);
  const TimeNs recorded = snapshot->events(b)[0].time;
  TimeBaseReport report;
  auto global = prepare(std::move(taken), TimeBase{}, report);
  REQUIRE(report.clock.receivesMoved == 1);
  CHECK(snapshot->events(b)[0].time == recorded);
  CHECK(global->events(b)[0].time != recorded);
  // No second copy of the events: the re-timed trace reads the snapshot's
  // bytes (the trace taken is gone, so a copy would leave them the
  // snapshot's alone).
  for (TaskIndex t = 0; t < snapshot->taskCount(); ++t) CHECK_FALSE(snapshot->events(t).sole());
  // As the trace re-dated in place reads.
  TimeBaseReport alone;
  checkSame(*global, *prepare(s.trace(), TimeBase{}, alone));
}

TEST_CASE("compensation re-dates a trace its caller alone holds in place", "[compensate]") {
  Synth s = skewedRun();
  // B's record cost: compensation has something to take out.
  s.line(kT0 + 1'000, kSkewB.at(kT0 + 1'000), kB, "cost rc=2000");
  auto read = s.trace();
  auto kept = read;
  TimeBaseReport copyReport;
  auto copied = prepare(std::move(read), TimeBase{.globalTime = false, .compensate = true, .correct = {}}, copyReport);
  REQUIRE(copyReport.compensation.costRecords);
  auto alone = s.trace();
  const Trace* object = alone.get();
  TimeBaseReport report;
  auto out = prepare(std::move(alone), TimeBase{.globalTime = false, .compensate = true, .correct = {}}, report);
  CHECK(out.get() == object);
  checkSame(*out, *copied);
}

namespace {

void checkSamePairs(const MessageTable& a, const MessageTable& b) {
  REQUIRE(a.pairs.size() == b.pairs.size());
  for (const auto& [pair, stats] : a.pairs) {
    REQUIRE(b.pairs.count(pair));
    CHECK(stats.count == b.pairs.at(pair).count);
    CHECK(stats.bytes == b.pairs.at(pair).bytes);
    CHECK(stats.transit == b.pairs.at(pair).transit);
  }
  CHECK(a.total.transit == b.total.transit);
  CHECK(a.messages.size() == b.messages.size());
}

}  // namespace

TEST_CASE("global time hands its message table on to the analyses, measured on the times it made", "[clock]") {
  TimeBaseReport report;
  auto global = prepare(exchangesBothWays().trace(), TimeBase{}, report);
  REQUIRE(report.clock.violationsRaw == 20);  // the fit moved B by two hours
  REQUIRE(report.clock.violationsFit == 0);
  REQUIRE(report.messages);
  const MessageTable fresh = matchMessages(*global);
  CHECK(fresh.total.transit > 0);
  checkSamePairs(*report.messages, fresh);
  AnalyseOptions options;
  options.messages = report.messages;
  const Analysis a = analyse(global, options);
  checkSamePairs(a.messages, fresh);
  CHECK(a.messages.messagesSent == fresh.messagesSent);
}

TEST_CASE("global time hands on a table that reads the re-timed copy when someone else holds the trace", "[clock]") {
  auto read = exchangesBothWays().trace();
  std::weak_ptr<const Trace> gone = read;
  TimeBaseReport report;
  auto kept = read;  // a second reference: the re-timed trace is a copy
  auto global = prepare(std::move(read), TimeBase{}, report);
  REQUIRE(global.get() != kept.get());
  kept.reset();
  CHECK(gone.expired());
  REQUIRE(report.messages);
  REQUIRE(report.messages->messages.size() > 0);
  // A message's send read through the table is the re-timed trace's record.
  for (std::size_t k = 0; k < report.messages->messages.size(); ++k)
    CHECK(report.messages->messages[k].time == global->event(report.messages->messages.send(k)).time);
  checkSamePairs(*report.messages, matchMessages(*global));
}

TEST_CASE("global time hands on no message table when the correction used it or compensation re-dated after it",
          "[clock]") {
  TimeBaseReport corrected;
  prepare(skewedRun().trace(), TimeBase{}, corrected);
  REQUIRE(corrected.clock.receivesMoved == 1);
  CHECK_FALSE(corrected.messages);
  TimeBaseReport compensated;
  prepare(exchangesBothWays().trace(), TimeBase{.globalTime = true, .compensate = true, .correct = {}}, compensated);
  CHECK(compensated.global);
  CHECK_FALSE(compensated.messages);
}
