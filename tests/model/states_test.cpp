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
