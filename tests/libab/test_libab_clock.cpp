// libab's clock exchanges with abmon (docs/global-time.md) when abmon is
// slow to answer: a task gives up on a ping after 200 ms, and abmon's answer
// to it, come later, must never be taken for a later exchange's.  Each
// `clock` record is checked against the one clock both share on one host:
// abmon read the ping (t2) and answered it (t3) between the task's sending
// it (t1) and reading the answer (t4).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;

TEST_CASE("libab clock: a late answer to a ping given up on is no sample of a later exchange", "[clock][pvm]") {
  auto& vm = PrivateVm::shared();
  // abmon answers each task's first ping 600 ms late (XAB_TEST_SLOW_PONGS):
  // the task's start exchanges stop there, and its end exchanges begin while
  // that answer is on its way.
  setenv("XAB_TEST_SLOW_PONGS", "1", 1);
  // --batch 1: the task sends each record at once, so its start exchanges
  // come with its first call, its end exchanges with pvm_exit.
  Monitor mon(vm.dir() + "/latepong.trace", {"--batch", "1"});
  unsetenv("XAB_TEST_SLOW_PONGS");
  // The task waits 1.5 s between its first call and its end: abmon's late
  // answer is there when its next exchanges begin.
  auto r = run({bin_dir() + "/xabt_wait", "1.5"});
  int abmon_rc = -1;
  auto rs = mon.finish(&abmon_rc);
  CHECK(abmon_rc == 0);
  REQUIRE(r.exit_code == 0);

  int samples = 0;
  for (auto& rec : rs) {
    if (rec.event != "clock") continue;
    ++samples;
    double t1 = rec.task_time;
    double t2 = std::stod(rec.get("ref_s")) + std::stod(rec.get("ref_ns")) * 1e-9;
    double t3 = t2 + std::stod(rec.get("turn_ns")) * 1e-9;
    double t4 = t1 + std::stod(rec.get("rtt_ns")) * 1e-9;
    INFO("exchange " << rec.get("rc") << " of phase " << rec.get("phase") << ": t2 - t1 = " << (t2 - t1)
                     << " s, t4 - t3 = " << (t4 - t3) << " s");
    // A record's seconds are doubles: a few hundred ns of rounding.
    CHECK(t2 >= t1 - 1e-6);
    CHECK(t3 <= t4 + 1e-6);
  }
  // The start exchanges stopped at the first (the slow one); the running
  // ones after the wait (its exchange 0 the one a late answer could fool)
  // and the end ones are all answered.
  CHECK(samples == 4 + 16);
  CHECK(find(rs, "clock", {{"phase", "1"}, {"rc", "0"}}));
}

// Filtering at the source (docs/libab.md): XAB_FILTER=clock leaves out the
// exchanges while running, keeps the start and end ones (global time still
// has both ends), and the task's filter record says what it omitted.
TEST_CASE("libab clock: XAB_FILTER=clock records no running exchanges, the start and end ones stay", "[clock][pvm]") {
  auto& vm = PrivateVm::shared();
  auto phases = [&](const EnvVars& env, const std::string& name) {
    Monitor mon(vm.dir() + "/" + name, {"--batch", "1"});
    auto r = run({bin_dir() + "/xabt_wait", "1.5"}, env);  // longer than XAB_CLOCK_PERIOD_NS
    REQUIRE(r.exit_code == 0);
    auto rs = mon.finish();
    std::vector<int> n(3);
    for (auto& rec : rs)
      if (rec.event == "clock" && !rec.get("phase").empty()) ++n.at(std::stoul(rec.get("phase")));
    n.push_back(find(rs, "filter", {{"omit", "2"}}) ? 1 : 0);
    return n;
  };
  auto plain = phases({}, "clock-plain.trace");
  CHECK(plain[1] > 0);  // the run is long enough for running exchanges
  CHECK(plain[3] == 0);
  auto filtered = phases({{"XAB_FILTER", "clock"}}, "clock-filtered.trace");
  CHECK(filtered[0] > 0);
  CHECK(filtered[1] == 0);
  CHECK(filtered[2] > 0);
  CHECK(filtered[3] == 1);
}

// An exchange whose turn (abmon's clock) is longer than its round trip (the
// task's) is no sample: abmon cannot answer after the answer came back.  The
// task's clock runs 10 % slow (XAB_TEST_CLOCK_SKEW) and abmon answers the
// first ping 100 ms late, within the task's wait: that exchange's round
// trip on the task's clock is 90 ms and some, its turn 100 ms.  The relay
// drops such an exchange too (wire.h, xab_clock_exchange_usable).
TEST_CASE("libab clock: an exchange whose turn is longer than its round trip is no sample", "[clock][pvm]") {
  auto& vm = PrivateVm::shared();
  setenv("XAB_TEST_SLOW_PONGS", "1", 1);
  setenv("XAB_TEST_SLOW_PONG_MS", "100", 1);
  Monitor mon(vm.dir() + "/longturn.trace", {"--batch", "1"});
  unsetenv("XAB_TEST_SLOW_PONGS");
  unsetenv("XAB_TEST_SLOW_PONG_MS");
  setenv("XAB_TEST_CLOCK_SKEW", "0,-100000", 1);
  auto r = run({bin_dir() + "/xabt_wait", "0.1"});
  unsetenv("XAB_TEST_CLOCK_SKEW");
  int abmon_rc = -1;
  auto rs = mon.finish(&abmon_rc);
  CHECK(abmon_rc == 0);
  REQUIRE(r.exit_code == 0);

  int samples = 0;
  for (auto& rec : rs) {
    if (rec.event != "clock") continue;
    ++samples;
    INFO("exchange " << rec.get("rc") << " of phase " << rec.get("phase") << ": turn " << rec.get("turn_ns")
                     << " ns, round trip " << rec.get("rtt_ns") << " ns");
    CHECK(std::stoll(rec.get("turn_ns")) <= std::stoll(rec.get("rtt_ns")));
  }
  // The slow exchange is the start phase's first; the phase goes on.
  CHECK_FALSE(find(rs, "clock", {{"phase", "0"}, {"rc", "0"}}));
  CHECK(find(rs, "clock", {{"phase", "0"}, {"rc", "1"}}));
  CHECK(samples >= 16 + 15);
}
