// The history a memory budget keeps of the records it cut away
// (run_history.h), alone and as the snapshot builder folds it at cuts.
#include "run_history.h"
#include "support.h"

#include <xab/model/reader.h>
#include <xab/model/source.h>

#include <catch2/catch.hpp>


using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

constexpr TimeNs kMs = 1'000'000;

}  // namespace

TEST_CASE("a run's history says the state that covered most of a time, in bins of fixed count") {
  RunHistory h(0, kMs);
  // Task 0 computes 0-10 ms, blocks 10-13 ms, computes on to 40 ms; task 1
  // receives from 5 ms to 40 ms.
  h.fold(0, 0, 10 * kMs, TaskState::Computing);
  h.fold(0, 10 * kMs, 13 * kMs, TaskState::Blocked);
  h.fold(0, 13 * kMs, 40 * kMs, TaskState::Computing);
  h.fold(1, 5 * kMs, 40 * kMs, TaskState::Receiving);
  h.settle();
  CHECK(h.end() == 40 * kMs);
  CHECK(h.stateIn(0, 0, 40 * kMs) == static_cast<std::uint8_t>(TaskState::Computing));
  CHECK(h.stateIn(0, 10 * kMs, 13 * kMs) == static_cast<std::uint8_t>(TaskState::Blocked));
  CHECK(h.stateIn(0, 11 * kMs, 12 * kMs) == static_cast<std::uint8_t>(TaskState::Blocked));
  CHECK(h.stateIn(1, 0, 4 * kMs) == RunHistory::kNone);  // not started yet
  CHECK(h.stateIn(1, 20 * kMs, 21 * kMs) == static_cast<std::uint8_t>(TaskState::Receiving));
  CHECK(h.stateIn(0, 41 * kMs, 50 * kMs) == RunHistory::kNone);  // after its end
  CHECK(h.stateIn(2, 0, 40 * kMs) == RunHistory::kNone);        // no such task

  // A run thousands of times longer: the bins widen, the memory stays.
  const std::size_t bytes = h.memoryBytes();
  const TimeNs width = h.binWidth();
  for (int i = 0; i < 1000; ++i) {
    const TimeNs b = (40 + i * 100) * kMs;
    h.fold(0, b, b + 70 * kMs, TaskState::Computing);
    h.fold(0, b + 70 * kMs, b + 100 * kMs, TaskState::Sending);
    h.fold(1, b, b + 100 * kMs, TaskState::Barrier);
  }
  h.settle();
  CHECK(h.memoryBytes() == bytes);
  CHECK(h.binWidth() > width);
  CHECK(h.end() == (40 + 1000 * 100) * kMs);
  CHECK(static_cast<TimeNs>(RunHistory::kBins) * h.binWidth() >= h.end());
  // Seven tenths of each 100 ms computing: so every wide stretch.
  CHECK(h.stateIn(0, 1000 * kMs, 90'000 * kMs) == static_cast<std::uint8_t>(TaskState::Computing));
  CHECK(h.stateIn(1, 1000 * kMs, 90'000 * kMs) == static_cast<std::uint8_t>(TaskState::Barrier));
}

TEST_CASE("at each cut the builder folds what the window dropped into the history") {
  // A whole trace, read once; then the same read by a reader cut twice.
  const std::string all = slowRingTrace(200, 4);
  auto whole = snapshotOfText(all);
  REQUIRE(whole->trace->eventCount() > 3000);

  TraceReader reader;
  SnapshotBuilder builder;
  std::shared_ptr<ViewSnapshot> s;
  const std::size_t third = all.size() / 3;
  const std::size_t cutAt[] = {all.find('\n', third) + 1, all.find('\n', 2 * third) + 1};
  std::size_t from = 0;
  std::uint64_t cuts = 0;
  for (std::size_t piece : {cutAt[0], cutAt[1], all.size()}) {
    reader.feed(std::string_view(all).substr(from, piece - from));
    from = piece;
    s = builder.update(reader.snapshot());
    if (piece != all.size()) {
      reader.cut(reader.runRecords() - reader.eventCount() / 4);  // keep the newest quarter of the window
      ++cuts;
    }
  }
  reader.finish();
  s = builder.update(reader.snapshot());
  REQUIRE(s->trace->cut().cut);
  REQUIRE(s->history);
  CHECK(s->history->records() == s->trace->cut().dropped);
  CHECK(s->history->origin() == whole->tasksBegin);
  CHECK(s->runBegin() == whole->tasksBegin);
  CHECK(s->firstTime() == whole->firstTime());

  // Wherever one span of the whole trace covers a history bin, the history
  // says its state there.
  const RunHistory& h = *s->history;
  std::size_t checked = 0;
  for (TaskIndex t = 0; t < whole->trace->taskCount(); ++t) {
    const SpanList& spans = whole->spans[t];
    const TimeNs windowBegin = s->trace->events(t).empty() ? h.end() : s->trace->events(t)[0].time;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const TimeNs b = spans[i].begin, e = spanEnd(spans, i);
      const TaskState st = spans[i].state;
      if (st == TaskState::Exited || st == TaskState::NotStarted) continue;
      // Whole bins inside [b, min(e, windowBegin)).
      const TimeNs w = h.binWidth();
      TimeNs lo = h.origin() + ((b - h.origin() + w - 1) / w) * w;
      for (; lo + w <= std::min(e, windowBegin) && lo + w <= h.end(); lo += w) {
        CHECK(h.stateIn(t, lo, lo + w) == static_cast<std::uint8_t>(st));
        ++checked;
      }
    }
  }
  CHECK(checked > 20);
}
