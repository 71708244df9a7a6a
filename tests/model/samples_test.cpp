// The clock-driven samples in the model (xab/model/samples.h).
#include "fixtures.h"

#include <xab/model/why_text.h>

#include <catch2/catch.hpp>

using namespace xab;
using xab::test::loadFixture;

namespace {
constexpr TimeNs kT0 = 1763680000LL * 1'000'000'000;
constexpr TimeNs kMs = 1'000'000;
}  // namespace

TEST_CASE("samples: a task's CPU and runnable time over any interval, a host's load over time") {
  auto trace = loadFixture("samples.trace");
  REQUIRE(trace->taskCount() == 1);  // samples are no task's events
  CHECK(trace->eventCount() == 2);
  SampleReport s = samples(*trace);
  TaskIndex t = *trace->findTask(0x40002);
  REQUIRE(s.tasks.at(t).at.size() == 2);
  CHECK(s.anyTask);
  // Between its two samples: the difference.
  CpuTime mid = s.between(*trace, t, kT0 + 200 * kMs, kT0 + 300 * kMs);
  CHECK(mid.cpu == 50 * kMs);
  CHECK(mid.runnable == 50 * kMs);
  // Half of that interval: half of it (a straight line between samples).
  CHECK(s.between(*trace, t, kT0 + 250 * kMs, kT0 + 300 * kMs).cpu == 25 * kMs);
  // Before the first sample: from 0 at the task's first record (100 ms).
  CHECK(s.between(*trace, t, kT0 + 100 * kMs, kT0 + 150 * kMs).cpu == 25 * kMs);
  // After the last: nothing more.
  CHECK(s.between(*trace, t, kT0 + 300 * kMs, kT0 + 400 * kMs).cpu == 0);
  CpuTime all = s.whole(*trace, t);
  CHECK(all.cpu == 100 * kMs);
  CHECK(all.runnable == 90 * kMs);
  REQUIRE(s.hosts.size() == 1);
  const HostLoad* vm = s.host("vm");
  REQUIRE(vm);
  REQUIRE(vm->points.size() == 2);
  CHECK(vm->points[0].load == 1.0);
  CHECK(vm->points[0].busyPermille == -1);
  CHECK(vm->points[1].load == 3.0);
  CHECK(vm->points[1].cpus == 2);
  CHECK(vm->points[1].busyPermille == 1000);
  // The load at a time: the last point there.
  CHECK(vm->at(vm->points[0].at - 1) == nullptr);
  CHECK(vm->at(vm->points[0].at) == &vm->points[0]);
  CHECK(vm->at(vm->points[1].at - 1) == &vm->points[0]);
  CHECK(vm->at(vm->points[1].at + kMs) == &vm->points[1]);
  // analyse() carries them.
  Analysis a = analyse(trace);
  CHECK(a.samples.whole(*trace, t).cpu == 100 * kMs);
}

TEST_CASE("samples: why-slow names the overloaded host of a cause that waited for a CPU") {
  auto trace = loadFixture("why_overload.trace");
  AnalyseOptions o;
  o.why = true;
  Analysis a = analyse(trace, o);
  TaskIndex busy = *trace->findTask(0x80002), quiet = *trace->findTask(0x40003);
  // Its 2.3 s runnable without a CPU over its 3.0 s of life.
  CHECK(a.why.perTask[busy].cpuWait == 2300 * kMs);
  CHECK(a.why.perTask[busy].hostOverloaded());
  CHECK(a.why.perTask[quiet].cpuWait == 10 * kMs);
  CHECK_FALSE(a.why.perTask[quiet].hostOverloaded());
  CHECK(a.why.perTask[*trace->findTask(0x40002)].hostOverload < 0);  // never sampled
  WhyText w = whyText(a);
  REQUIRE(w.causes.size() == 2);
  std::string node1 = w.causes[0], vm = w.causes[1];
  INFO(node1 << "\n" << vm);
  CHECK(node1.find("host node1 overloaded (load 3.1 on 1 CPU): " + trace->label(busy) +
                   " waited 2.300 s for a CPU (76.7 % of its time);") != std::string::npos);
  CHECK(vm.find("overloaded") == std::string::npos);
}
