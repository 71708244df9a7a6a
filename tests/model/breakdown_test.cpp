#include "fixtures.h"

#include <catch2/catch.hpp>

using namespace xab;
using xab::test::loadFixture;
using xab::test::taskNamed;

TEST_CASE("time breakdown: compute, communication, blocked, barrier") {
  auto trace = loadFixture("barrier.trace");
  BreakdownReport b = timeBreakdown(*trace);
  TaskIndex w0 = taskNamed(*trace, "worker", 0);
  CHECK(b.perTask[w0].barrier == 700'000'000);
  CHECK(b.perTask[w0].compute == 2'300'000'000);
  CHECK(b.perTask[w0].total() == 3'000'000'000);
  CHECK(b.total.barrier == 1'360'000'000);

  auto chol = loadFixture("cholesky_hang.trace");
  BreakdownReport c = timeBreakdown(*chol);
  TaskIndex host = taskNamed(*chol, "cholhost", 0);
  CHECK(c.perTask[host].blocked == 49'000'000);  // spawn; the open receive ends where the trace does
  CHECK(c.perTask[host].communication == 2'000'000);
}
