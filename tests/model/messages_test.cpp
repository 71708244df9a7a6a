#include "fixtures.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

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

TEST_CASE("serials out of order or repeated are still found, and every record maps to its message") {
  // t1's serials go 3, 1, 3, 2 (a repeated serial: the receive takes the
  // send with its tag; find() gives the later one); t2 sends in order.
  auto r = loadTraceText(
      "1.0 1.0 t1 send dst=t2 tag=1 bytes=4 serial=3 rc=0\n"
      "1.1 1.1 t1 send dst=t2 tag=2 bytes=4 serial=1 rc=0\n"
      "1.2 1.2 t1 send dst=t2 tag=3 bytes=4 serial=3 rc=0\n"
      "1.3 1.3 t1 send dst=t2 tag=4 bytes=4 serial=2 rc=0\n"
      "1.4 1.4 t2 recv src=t1 tag=2 bytes=4 serial=1 rc=1\n"
      "1.5 1.5 t2 recv src=t1 tag=3 bytes=4 serial=3 rc=1\n"
      "1.6 1.6 t2 send dst=t1 tag=5 bytes=8 serial=1 rc=0\n"
      "1.7 1.7 t2 recv src=t1 tag=4 bytes=4 serial=2 rc=1\n"
      "1.8 1.8 t1 recv src=t2 tag=5 bytes=8 serial=1 rc=1\n"
      "1.9 1.9 t1 recv src=t2 tag=5 bytes=8 serial=7 rc=1\n");
  MessageTable m = matchMessages(*r.trace);
  REQUIRE(m.messages.size() == 5);
  TaskIndex t1 = *r.trace->findTask(1), t2 = *r.trace->findTask(2);
  CHECK(m.find(t1, 1) == 1);
  CHECK(m.find(t1, 2) == 3);
  CHECK(m.find(t1, 3) == 2);
  CHECK(m.find(t1, 4) == -1);
  CHECK(m.find(t1, 0) == -1);
  CHECK(m.find(t2, 1) == 4);
  CHECK(m.find(t2, 2) == -1);
  CHECK(m.find(99, 1) == -1);
  CHECK(m.messages[0].receives.empty());
  CHECK(m.messages[0].unreceived.size() == 1);
  CHECK(m.neverReceived == 1);
  CHECK(m.duplicateSerials == 1);
  REQUIRE(m.unmatched.size() == 1);
  CHECK(m.unmatched[0].serial == 7);
  // Each send and each matched receive names its message; other records none.
  for (std::uint32_t i = 0; i < m.messages.size(); ++i) {
    CHECK(m.messageOf(m.messages[i].send) == i);
    for (const MessageReceive& rc : m.messages[i].receives) {
      CHECK(m.messageOf(rc.recv) == i);
      CHECK(r.trace->event(rc.recv).get(Key::Tag) == m.messages[i].tag);
    }
  }
  CHECK(m.messageOf(m.unmatched[0].recv) == -1);
  CHECK(m.messageOf({t1, 99}) == -1);
  CHECK(m.messageOf({7, 0}) == -1);
  CHECK(m.total.count == 4);
  // Moving the table keeps the messages' views of its arrays valid.
  MessageTable moved = std::move(m);
  CHECK(moved.messages[4].receives.size() == 1);
  CHECK(moved.messages[4].destinations[0] == 1);
  CHECK(moved.messageOf(moved.messages[4].receives[0].recv) == 4);
}

TEST_CASE("MessageLookup answers as messageOf, in each task's order, asked again and out of order") {
  for (const char* name : {"mismatch.trace", "mcast.trace", "ge.trace", "cholesky_hang.trace", "handler.trace",
                           "psend_precv.trace", "bcast_left.trace"}) {
    INFO(name);
    auto trace = loadFixture(name);
    MessageTable m = matchMessages(*trace);
    MessageLookup inOrder(m), twice(m), backwards(m);
    for (TaskIndex t = 0; t < trace->taskCount(); ++t)
      for (std::uint32_t i = 0; i < trace->events(t).size(); ++i) {
        CHECK(inOrder.messageOf({t, i}) == m.messageOf({t, i}));
        CHECK(twice.messageOf({t, i}) == m.messageOf({t, i}));
        CHECK(twice.messageOf({t, i}) == m.messageOf({t, i}));
      }
    for (TaskIndex t = 0; t < trace->taskCount(); ++t)
      for (std::uint32_t i = static_cast<std::uint32_t>(trace->events(t).size()); i-- > 0;)
        CHECK(backwards.messageOf({t, i}) == m.messageOf({t, i}));
    CHECK(inOrder.messageOf({static_cast<TaskIndex>(trace->taskCount()), 0}) == -1);
  }
}

TEST_CASE("an empty table finds nothing") {
  MessageTable m;
  CHECK(m.find(0, 1) == -1);
  CHECK(m.messageOf({0, 0}) == -1);
}

// pvm_precv returns 0 on success, so "rc > 0" counted
// every precv of pbwtest (a real trace) as nothing received.
TEST_CASE("psend/precv of a real pbwtest run: every precv (rc=0) receives its psend") {
  auto trace = loadFixture("psend_precv.trace");
  MessageTable m = matchMessages(*trace);
  REQUIRE(m.sent == 6);
  CHECK(m.neverReceived == 0);
  CHECK(m.unmatched.empty());
  CHECK(m.total.count == 6);
  CHECK(m.total.bytes == 2 * 800000);
  for (const Message& msg : m.messages) {
    CHECK(msg.kind == Kind::PSEND);
    CHECK(msg.receives.size() == 1);
  }
  TaskIndex master = taskNamed(*trace, "pbwtest", 0);
  CHECK(m.pairs.at({master, taskNamed(*trace, "pbwtest", 1)}).count == 3);
}

TEST_CASE("each receive-like call's rc convention decides whether it took a message") {
  // One record per convention; gotMessage is the rule every reader uses.
  auto r = loadTraceText(
      "1.0 1.0 t1 send dst=t2 tag=1 bytes=4 serial=1 rc=0\n"
      "1.0 1.0 t1 send dst=t2 tag=1 bytes=4 serial=2 rc=0\n"
      "1.0 1.0 t1 send dst=t2 tag=1 bytes=4 serial=3 rc=0\n"
      "1.0 1.0 t1 psend dst=t2 tag=1 bytes=8 serial=4 type=int n=2 rc=0\n"
      "1.0 1.0 t1 send dst=t2 tag=5 bytes=4 serial=5 rc=0\n"
      "1.1 1.1 t2 recv src=t1 tag=1 bytes=4 serial=1 rc=3\n"        // buffer id: got it
      "1.2 1.2 t2 trecv src=t1 tag=1 bytes=0 serial=0 rc=0\n"       // timed out
      "1.3 1.3 t2 trecv src=t1 tag=1 bytes=4 serial=2 rc=4\n"       // got it
      "1.4 1.4 t2 nrecv src=t1 tag=1 bytes=0 serial=0 rc=0\n"       // none there
      "1.5 1.5 t2 nrecv src=t1 tag=1 bytes=4 serial=3 rc=5\n"       // got it
      "1.6 1.6 t2 precv src=t1 tag=1 bytes=0 serial=0 type=int n=2 rc=-2\n"  // an error
      "1.7 1.7 t2 precv src=t1 tag=1 bytes=8 serial=4 type=int n=2 rc=0\n"   // PvmOk: got it
      "1.8 1.8 t2 probe src=t1 tag=5 bytes=4 serial=5 rc=6\n"       // found, stays queued
      "1.9 1.9 t2 handler src=t1 tag=5 bytes=4 serial=5 mhid=1 rc=0\n");  // a handler took it
  REQUIRE(r.errorCount == 0);
  const Trace& t = *r.trace;
  TaskIndex rx = *t.findTask(0x2);
  std::vector<bool> got;
  t.events(rx).forEach([&](const Event& e) { got.push_back(gotMessage(e)); });
  CHECK(got == std::vector<bool>{true, false, true, false, true, false, true, false, true});
  MessageTable m = matchMessages(t);
  CHECK(m.sent == 5);
  CHECK(m.total.count == 5);
  CHECK(m.neverReceived == 0);
  CHECK(m.unmatched.empty());
  REQUIRE(m.messages[4].receives.size() == 1);  // by the handler, not the probe
  CHECK(t.event(m.messages[4].receives[0].recv).kind == Kind::HANDLER);
}

// A bcast names its destinations (dst=) since they are
// recorded at the call; members that leave the group before the trace
// ends are still its destinations.
TEST_CASE("a bcast with dst= has known destinations, even after members left the group") {
  auto trace = loadFixture("bcast_left.trace");
  MessageTable m = matchMessages(*trace);
  REQUIRE(m.sent == 3);
  for (const Message& msg : m.messages) {
    CHECK(msg.kind == Kind::BCAST);
    CHECK(msg.destinationsKnown);
    CHECK(msg.destinations.size() == 5);
    CHECK(msg.receives.size() == 5);
    CHECK(msg.unreceived.empty());
  }
  CHECK(m.total.count == 15);
  CHECK(m.neverReceived == 0);
}

TEST_CASE("a bcast's dst= names the destination that never received it, and without dst= is inferred") {
  auto r = loadTraceText(
      "1.0 1.0 t1 bcast group=g tag=1 bytes=4 serial=1 dst=t2,t3 rc=0\n"
      "1.0 1.0 t1 bcast group=g tag=1 bytes=4 serial=2 rc=0\n"  // an older trace's record
      "1.1 1.1 t2 recv src=t1 tag=1 bytes=4 serial=1 rc=3\n"
      "1.2 1.2 t2 recv src=t1 tag=1 bytes=4 serial=2 rc=4\n");
  REQUIRE(r.errorCount == 0);
  MessageTable m = matchMessages(*r.trace);
  REQUIRE(m.messages.size() == 2);
  CHECK(m.messages[0].destinationsKnown);
  REQUIRE(m.messages[0].unreceived.size() == 1);
  CHECK(m.messages[0].unreceived[0] == 0x3);
  CHECK_FALSE(m.messages[1].destinationsKnown);
  CHECK(m.messages[1].unreceived.empty());
  CHECK(m.neverReceived == 1);
}

namespace {
std::string fixtureText(const std::string& name) {
  std::ifstream f(xab::test::dataPath(name));
  return std::string(std::istreambuf_iterator<char>(f), {});
}
}  // namespace

// One run's trace read twice gave "100 sent, 200 received
// and matched, 99 never received" with no warning.  Now the repeated
// serials are counted, each receive takes its own send, totals add up.
TEST_CASE("a trace read twice: repeated serials are reported, and no message is counted twice") {
  std::string once = fixtureText("psend_precv.trace");
  std::string body = once.substr(once.find('\n') + 1);  // without the header
  auto r = loadTraceText(once + body);
  REQUIRE(r.errorCount == 0);
  MessageTable m = matchMessages(*r.trace);
  CHECK(m.sent == 12);
  CHECK(m.duplicateSerials == 6);
  CHECK(m.duplicateReceives == 0);
  CHECK_FALSE(m.consistent());
  CHECK(m.total.count == 12);
  CHECK(m.neverReceived == 0);
  CHECK(m.messagesSent == m.total.count + m.unreceivedMessages);
  for (const Message& msg : m.messages) CHECK(msg.receives.size() == 1);
}

TEST_CASE("a receive of a message its task already received is counted apart, not twice") {
  auto r = loadTraceText(
      "1.0 1.0 t1 send dst=t2 tag=1 bytes=4 serial=1 rc=0\n"
      "1.1 1.1 t2 recv src=t1 tag=1 bytes=4 serial=1 rc=3\n"
      "1.1 1.1 t2 recv src=t1 tag=1 bytes=4 serial=1 rc=3\n");
  REQUIRE(r.errorCount == 0);
  MessageTable m = matchMessages(*r.trace);
  CHECK(m.sent == 1);
  CHECK(m.total.count == 1);
  CHECK(m.duplicateReceives == 1);
  CHECK(m.duplicateSerials == 0);
  CHECK(m.unmatched.empty());
  REQUIRE(m.messages[0].receives.size() == 1);
}

TEST_CASE("sends and messages add up: an mcast is one send, one message per destination") {
  auto trace = loadFixture("mcast.trace");
  MessageTable m = matchMessages(*trace);
  CHECK(m.sent == 2);
  CHECK(m.messagesSent == 3 + 1);     // the mcast to 3, the bcast (no dst=) got by 1
  CHECK(m.unreceivedMessages == 1);
  CHECK(m.total.count == 3);
  CHECK(m.messagesSent == m.total.count + m.unreceivedMessages);
  CHECK(m.consistent());
}

// A message a pvm_addmhf handler took is a receive of it.
// A real run (libab's handler records): two tag-5 messages taken by the
// handler while the task waits in recv for tag 6.
TEST_CASE("messages taken by a pvm_addmhf handler are received (a real run)") {
  auto trace = loadFixture("handler.trace");
  MessageTable m = matchMessages(*trace);
  REQUIRE(m.sent == 3);
  CHECK(m.total.count == 3);
  CHECK(m.neverReceived == 0);
  CHECK(m.unmatched.empty());
  int byHandler = 0;
  for (const Message& msg : m.messages)
    for (const MessageReceive& r : msg.receives) byHandler += trace->event(r.recv).kind == Kind::HANDLER;
  CHECK(byHandler == 2);
  MismatchReport mm = findPackMismatches(*trace, m);
  CHECK(mm.checked == 3);  // the handler's unpacks are checked against the sends' packs
  CHECK(mm.mismatches.empty());
}

TEST_CASE("PVM's ge example (a real run): every bcast names its 3 destinations, all received") {
  auto trace = loadFixture("ge.trace");
  MessageTable m = matchMessages(*trace);
  CHECK(m.sent == 5);  // the mcast of nproc, one bcast per member
  int bcasts = 0;
  for (const Message& msg : m.messages) {
    if (msg.kind != Kind::BCAST) continue;
    ++bcasts;
    CHECK(msg.destinationsKnown);
    CHECK(msg.destinations.size() == 3);
    CHECK(msg.receives.size() == 3);
  }
  CHECK(bcasts == 4);
  CHECK(m.messagesSent == 15);
  CHECK(m.total.count == 15);
  CHECK(m.unreceivedMessages == 0);
}

// PVM's notify messages (pvm_notify: a task's exit, a host added or
// deleted) come from pvmd, which no trace holds as a task: counted apart,
// never a receive without a send.
TEST_CASE("receives of pvmd's notify messages are counted apart, not unmatched") {
  auto r = loadTraceText("1.0 1.0 t40002 recv src=t80000000 tag=100 bytes=4 serial=0 rc=5\n"
                         "1.1 1.1 t40002 recv src=-2147483648 tag=100 bytes=4 serial=0 rc=6\n"
                         "1.2 1.2 t40002 recv src=t40009 tag=1 bytes=4 serial=0 rc=7\n");
  REQUIRE(r.errorCount == 0);
  MessageTable m = matchMessages(*r.trace);
  CHECK(m.fromPvmd == 2);
  REQUIRE(m.unmatched.size() == 1);
  CHECK(m.unmatched[0].src == 0x40009);
}
