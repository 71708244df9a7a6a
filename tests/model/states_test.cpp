#include "fixtures.h"

#include <catch2/catch.hpp>

using namespace xab;
using xab::test::loadFixture;
using xab::test::taskNamed;

namespace {
constexpr TimeNs at(std::int64_t ms) { return 1763680000LL * 1'000'000'000 + ms * 1'000'000; }
}  // namespace

TEST_CASE("what every task was doing at time t") {
  auto trace = loadFixture("cholesky_hang.trace");
  TaskIndex host = taskNamed(*trace, "cholhost", 0);
  TaskIndex node0 = taskNamed(*trace, "cholnode", 0);

  CHECK(stateAt(*trace, host, at(50)).state == TaskState::NotStarted);
  CHECK(stateAt(*trace, host, at(100)).state == TaskState::Computing);
  StateInterval spawning = stateAt(*trace, host, at(120));
  CHECK(spawning.state == TaskState::Spawning);
  CHECK(spawning.begin == at(101));
  CHECK(spawning.end == at(150));
  CHECK(stateAt(*trace, host, at(151) + 1).state == TaskState::Packing);
  CHECK(stateAt(*trace, host, at(152) + 1).state == TaskState::Sending);

  StateInterval waiting = stateAt(*trace, node0, at(140));
  CHECK(waiting.state == TaskState::Receiving);
  CHECK(waiting.a == 0x40002);
  CHECK(waiting.b == 16001);
  CHECK(stateAt(*trace, node0, at(160) + 1).state == TaskState::Unpacking);
  CHECK(stateAt(*trace, node0, at(165)).state == TaskState::Computing);

  StateInterval now = currentState(*trace, host);
  CHECK(now.state == TaskState::Receiving);
  CHECK(now.a == kAnyTid);
  CHECK(now.b == 16040);
  CHECK(now.end == kOpenEnd);
  CHECK(stateAt(*trace, host, at(100000)).state == TaskState::Receiving);
}

TEST_CASE("state intervals over a window, merged and in order") {
  auto trace = loadFixture("cholesky_hang.trace");
  TaskIndex host = taskNamed(*trace, "cholhost", 0);
  auto all = stateIntervals(*trace, host);
  // computing, spawning, computing, packing, sending, computing, receiving
  REQUIRE(all.size() == 7);
  CHECK(all.front().state == TaskState::Computing);
  CHECK(all.back().state == TaskState::Receiving);
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].end == all[i].begin);
  auto window = stateIntervals(*trace, host, at(120), at(151));
  REQUIRE(window.size() == 2);
  CHECK(window[0].state == TaskState::Spawning);
  CHECK(window[1].state == TaskState::Computing);
}

TEST_CASE("a task that exited stays exited") {
  auto trace = loadFixture("deadlock.trace");
  TaskIndex idle = taskNamed(*trace, "idle", 0);
  CHECK(trace->task(idle).exit == ExitHow::Exit);
  CHECK(trace->task(idle).lang == 1);
  CHECK(stateAt(*trace, idle, at(200)).state == TaskState::Exited);
  CHECK(currentState(*trace, idle).state == TaskState::Exited);
}

// A task is one thread: what it records between a blocking call's begin and
// its end was done inside the call, and the task is still in the call after
// it (recvf_hang.trace: a pvm_recvf matching function calls pvm_bufinfo on
// every message it refuses).
TEST_CASE("calls a matching function makes inside a blocked receive leave the task receiving") {
  auto trace = loadFixture("recvf_hang.trace");
  TaskIndex parent = taskNamed(*trace, "recvfhang", 0);
  const TimeNs origin = 1795468490LL * 1'000'000'000;
  const auto& ev = trace->events(parent);
  std::uint32_t bufinfo = 0;
  while (ev[bufinfo].kind != Kind::BUFINFO) ++bufinfo;
  CHECK(ev[bufinfo].insideCall());
  CHECK_FALSE(ev[bufinfo - 1].insideCall());  // the recv.begin itself
  CHECK(enclosingCall(*trace, parent, bufinfo) == bufinfo - 1);

  StateInterval after = stateAt(*trace, parent, origin + 195'000'000);  // after the bufinfo
  CHECK(after.state == TaskState::Receiving);
  CHECK(after.a == 0x40003);
  CHECK(after.b == 1);
  auto all = stateIntervals(*trace, parent);
  REQUIRE_FALSE(all.empty());
  CHECK(all.back().state == TaskState::Exited);
  REQUIRE(all.size() >= 2);
  const StateInterval& waited = all[all.size() - 2];
  CHECK(waited.state == TaskState::Receiving);  // one interval, from the recv.begin to the task's end
  CHECK(waited.begin == origin + 120'200'000);
  CHECK(waited.end == origin + 10'300'000'000);
}

TEST_CASE("a handler's own receive inside a blocked receive: the outer one goes on after the inner ends") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=mhf\n"
      "1.1 1.1 t1 recv.begin src=any tag=6\n"
      "1.2 1.2 t1 handler src=t2 tag=5 bytes=4 serial=1 mhid=1 rc=0\n"
      "1.3 1.3 t1 recv.begin src=t2 tag=9\n"  // the handler waits for a second message
      "1.4 1.4 t1 recv src=t2 tag=9 bytes=4 serial=2 rc=3\n"
      "1.5 1.5 t1 upkint type=int n=1 stride=1 rc=0\n"
      "1.6 1.6 t1 recv src=t2 tag=6 bytes=4 serial=3 rc=4\n"  // the outer receive ends
      "1.7 1.7 t1 pkint type=int n=1 stride=1 rc=0\n");
  REQUIRE(r.errorCount == 0);
  const Trace& t = *r.trace;
  TaskIndex mhf = taskNamed(t, "mhf", 0);
  auto state = [&](double s) { return stateAt(t, mhf, static_cast<TimeNs>(s * 1e9)); };
  CHECK(state(1.25).state == TaskState::Receiving);
  CHECK(state(1.25).b == 6);  // after the handler record: the outer receive
  CHECK(state(1.35).b == 9);  // in the handler's receive
  CHECK(state(1.45).b == 6);  // the handler's receive ended: back in the outer one
  CHECK(state(1.55).state == TaskState::Receiving);
  CHECK(state(1.55).b == 6);
  CHECK(state(1.65).state == TaskState::Computing);  // the outer receive ended
  const auto& ev = t.events(mhf);
  CHECK(ev[4].insideCall());  // the handler's receive's end
  CHECK(ev[5].insideCall());
  CHECK_FALSE(ev[6].insideCall());  // the outer end
  CHECK_FALSE(ev[7].insideCall());
}
