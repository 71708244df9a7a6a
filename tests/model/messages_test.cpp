#include "fixtures.h"

#include <catch2/catch.hpp>

using namespace xab;
using xab::test::loadFixture;
using xab::test::taskNamed;

TEST_CASE("every receive is matched to its send by (source, serial)") {
  auto trace = loadFixture("mismatch.trace");
  MessageTable m = matchMessages(*trace);
  REQUIRE(m.messages.size() == 2);
  CHECK(m.unmatched.empty());
  CHECK(m.neverReceived == 0);
  for (const Message& msg : m.messages) REQUIRE(msg.receives.size() == 1);
  CHECK(m.messages[0].tag == 7);
  CHECK(m.messages[1].serial == 2);
  TaskIndex p = taskNamed(*trace, "producer", 0), c = taskNamed(*trace, "consumer", 0);
  const PairStats& pair = m.pairs.at({p, c});
  CHECK(pair.count == 2);
  CHECK(pair.bytes == 64);
  CHECK(pair.transit == 4'000'000);  // 2 ms + 2 ms
  CHECK(pair.bandwidth() == Approx(64 / 0.004));
  CHECK(m.messageOf(m.messages[1].receives[0].recv) == 1);
  CHECK(m.find(p, 1) == 0);
}

TEST_CASE("an mcast is one send with several receives and the unreceived are named") {
  auto trace = loadFixture("mcast.trace");
  MessageTable m = matchMessages(*trace);
  REQUIRE(m.messages.size() == 2);
  const Message& mc = m.messages[0];
  CHECK(mc.kind == Kind::MCAST);
  CHECK(mc.destinations.size() == 3);
  CHECK(mc.receives.size() == 2);
  REQUIRE(mc.unreceived.size() == 1);
  CHECK(mc.unreceived[0] == 0x40005);
  const Message& bc = m.messages[1];
  CHECK(bc.kind == Kind::BCAST);
  CHECK_FALSE(bc.destinationsKnown);
  CHECK(bc.receives.size() == 1);
  CHECK(bc.unreceived.empty());
  CHECK(trace->str(bc.group) == "all");
  CHECK(m.neverReceived == 1);
  CHECK(m.total.count == 3);
  CHECK(m.total.bytes == 4000);
}

TEST_CASE("a receive whose sender is not in the trace stays unmatched") {
  auto r = loadTraceText("1.0 1.0 t2 recv src=t9 tag=1 bytes=4 serial=3 rc=1\n"
                         "1.1 1.1 t2 recv src=t9 tag=1 bytes=4 serial=0 rc=1\n");
  MessageTable m = matchMessages(*r.trace);
  CHECK(m.messages.empty());
  REQUIRE(m.unmatched.size() == 2);
  CHECK(m.unmatched[0].serial == 3);
  CHECK(m.unmatched[1].serial == 0);
}

TEST_CASE("sums of huge transit times saturate instead of overflowing") {
  auto r = loadTraceText(
      "0.0 0.0 t1 send dst=t2 tag=1 bytes=4 serial=1 rc=0\n"
      "0.0 0.0 t1 send dst=t2 tag=1 bytes=4 serial=2 rc=0\n"
      "9000000000.0 9000000000.0 t2 recv src=t1 tag=1 bytes=4 serial=1 rc=1\n"
      "9000000000.0 9000000000.0 t2 recv src=t1 tag=1 bytes=4 serial=2 rc=1\n");
  MessageTable m = matchMessages(*r.trace);
  CHECK(m.total.count == 2);
  CHECK(m.total.transit == INT64_MAX);
  BreakdownReport b = timeBreakdown(*r.trace);
  CHECK(b.total.total() >= 0);
}
