#include "fixtures.h"

#include <catch2/catch.hpp>

using namespace xab;
using xab::test::loadFixture;
using xab::test::taskNamed;

TEST_CASE("barrier waits: the late task, totals per task and per barrier") {
  auto trace = loadFixture("barrier.trace");
  BarrierAnalysis b = analyzeBarriers(*trace);
  REQUIRE(b.instances.size() == 2);
  const BarrierInstance& first = b.instances[0];
  CHECK(trace->str(first.group) == "w");
  CHECK(first.count == 3);
  CHECK(first.use == 0);
  CHECK(first.complete());
  REQUIRE(first.visits.size() == 3);
  TaskIndex late = taskNamed(*trace, "worker", 2);
  CHECK(first.visits[static_cast<std::size_t>(first.lastArrival)].task == late);
  CHECK(first.lateBy == 500'000'000);
  CHECK(first.totalWait == 600'000'000 + 500'000'000 + 100'000'000);
  CHECK(b.instances[1].use == 1);
  CHECK(b.instances[1].totalWait == 100'000'000 + 50'000'000 + 10'000'000);

  TaskIndex w0 = taskNamed(*trace, "worker", 0);
  CHECK(b.perTask[w0].wait == 700'000'000);
  CHECK(b.perTask[w0].visits == 2);
  CHECK(b.perTask[late].lastToArrive == 2);
  CHECK(b.perTask[w0].share == Approx(0.7 / 3.0));
  CHECK(b.totalWait == 1'360'000'000);
}
