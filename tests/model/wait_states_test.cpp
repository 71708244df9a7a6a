// Wait states, their root causes and the critical path
// (xab/model/wait_states.h) on small traces whose truth is known: each
// pattern alone, chains of two and three causes, the collectives, a
// program that never waits.
#include "fixtures.h"

#include <xab/model/why_text.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

using namespace xab;
using xab::test::loadFixture;
using xab::test::taskNamed;

namespace {

constexpr TimeNs kMs = 1'000'000;

// A trace line at `ms` milliseconds after 1000 s, abmon's time and the
// task's the same (global time needs no fit).
std::string at(int ms, int task, const std::string& rest) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d.%09d", 1000 + ms / 1000, (ms % 1000) * 1'000'000);
  return std::string(buf) + " " + buf + " t" + std::to_string(40000 + task) + " " + rest + "\n";
}
std::string tid(int task) { return "t" + std::to_string(40000 + task); }
std::string hello(int ms, int task, const std::string& name, int parent = 0) {
  return at(ms, task, "mytid rc=" + tid(task) + " name=" + name + " host=vm parent=" +
                          (parent ? tid(parent) : std::string("none")) + " lang=c pid=" + std::to_string(100 + task));
}
std::string send(int ms, int from, int to, int tag, int serial) {
  return at(ms, from, "send dst=" + tid(to) + " tag=" + std::to_string(tag) + " bytes=4 serial=" + std::to_string(serial) + " rc=0");
}
// A blocking receive from `from` that began at `begin` and ended at `end`.
std::string recv(int begin, int end, int task, int from, int tag, int serial) {
  return at(begin, task, "recv.begin src=" + tid(from) + " tag=" + std::to_string(tag)) +
         at(end, task, "recv src=" + tid(from) + " tag=" + std::to_string(tag) + " bytes=4 serial=" +
                           std::to_string(serial) + " rc=1");
}
std::string exitAt(int ms, int task) { return at(ms, task, "exit rc=0"); }

std::shared_ptr<const Trace> load(const std::string& body) {
  TraceReader r;
  r.feed("#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.000000000\n" + body);
  r.finish();
  REQUIRE(r.errorCount() == 0);
  return r.snapshot();
}

WhyReport why(const Trace& t) { return analyseWaits(t, matchMessages(t)); }

// Every nanosecond of waiting goes to exactly one root cause.
void checkExact(const WhyReport& w) {
  TimeNs roots = 0, causes = 0;
  for (const TaskWaiting& p : w.perTask) roots += p.rootCost;
  for (const WaitCause& c : w.causes) causes += c.cost;
  CHECK(roots == w.totalWait);
  CHECK(causes == w.totalWait);
  TimeNs path = 0;
  for (const CriticalStep& s : w.criticalPath) path += s.to - s.from;
  CHECK(path == w.criticalLength);
}

const WaitCause* causeOf(const WhyReport& w, TaskIndex t, WaitPattern p) {
  for (const WaitCause& c : w.causes)
    if (c.task == t && c.pattern == p) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("why: a late sender is charged to the sender's work") {
  // (a) waits in recv from 1.0 s; (b) computes until 3.0 s and sends.
  auto t = load(hello(0, 2, "a") + hello(0, 3, "b") + recv(1000, 3000, 2, 3, 7, 1) + exitAt(3500, 2) +
                send(3000, 3, 2, 7, 1) + exitAt(3600, 3));
  WhyReport w = why(*t);
  REQUIRE(w.waits.size() == 1);
  const WaitState& s = w.waits[0];
  CHECK(s.pattern == WaitPattern::LateSender);
  CHECK(s.task == taskNamed(*t, "a", 0));
  CHECK(s.cause == taskNamed(*t, "b", 0));
  CHECK(s.wait() == 2000 * kMs);
  CHECK(s.call == Kind::RECV);
  REQUIRE(w.causes.size() == 1);
  CHECK(w.causes[0].task == taskNamed(*t, "b", 0));
  CHECK(w.causes[0].cost == 2000 * kMs);
  CHECK(w.causes[0].share == 1.0);
  CHECK(w.causes[0].instances == 1);
  CHECK(w.perTask[taskNamed(*t, "b", 0)].rootCause());
  CHECK_FALSE(w.perTask[taskNamed(*t, "b", 0)].symptom());
  checkExact(w);
  // The path: (b)'s work until its send, then (a) to its end... and (b)'s
  // end after it: (b) ends last, so the path is (b) alone.
  CHECK(w.perTask[taskNamed(*t, "b", 0)].critical == 3600 * kMs);
  CHECK(w.perTask[taskNamed(*t, "a", 0)].slack == 2000 * kMs + 100 * kMs);
}

TEST_CASE("why: the critical path crosses from a waiter to its late sender") {
  auto t = load(hello(0, 2, "a") + hello(0, 3, "b") + recv(1000, 3000, 2, 3, 7, 1) + exitAt(4000, 2) +
                send(3000, 3, 2, 7, 1) + exitAt(3100, 3));
  WhyReport w = why(*t);
  REQUIRE(w.criticalPath.size() == 2);
  CHECK(w.criticalPath[0].task == taskNamed(*t, "b", 0));
  CHECK(w.criticalPath[0].to == t->task(taskNamed(*t, "b", 0)).firstTime + 3000 * kMs);
  CHECK(w.criticalPath[1].task == taskNamed(*t, "a", 0));
  CHECK(w.perTask[taskNamed(*t, "a", 0)].critical == 1000 * kMs);
  CHECK(w.perTask[taskNamed(*t, "b", 0)].critical == 3000 * kMs);
  CHECK(w.criticalLength == 4000 * kMs);
  checkExact(w);
}

TEST_CASE("why: a program that never waits has nothing to report") {
  auto t = load(hello(0, 2, "a") + hello(0, 3, "b") + send(100, 3, 2, 7, 1) + recv(500, 501, 2, 3, 7, 1) +
                exitAt(600, 2) + exitAt(700, 3));
  WhyReport w = why(*t);
  CHECK(w.waits.empty());
  CHECK(w.causes.empty());
  CHECK(w.totalWait == 0);
  checkExact(w);
}

TEST_CASE("why: wrong order, waiting for one message with another at hand") {
  // (a) receives from (b) first, but (c)'s message, taken next, was sent at 0.5 s.
  auto t = load(hello(0, 2, "a") + hello(0, 3, "b") + hello(0, 4, "c") + recv(1000, 2000, 2, 3, 7, 1) +
                recv(2100, 2101, 2, 4, 7, 1) + exitAt(2200, 2) + send(2000, 3, 2, 7, 1) + exitAt(2200, 3) +
                send(500, 4, 2, 7, 1) + exitAt(600, 4));
  WhyReport w = why(*t);
  REQUIRE(w.waits.size() == 1);
  CHECK(w.waits[0].pattern == WaitPattern::WrongOrder);
  CHECK(w.waits[0].cause == taskNamed(*t, "b", 0));
  CHECK(w.waits[0].other == t->task(taskNamed(*t, "c", 0)).tid);
  CHECK(w.waits[0].wait() == 1000 * kMs);
  checkExact(w);
}

TEST_CASE("why: a probe loop waits from its first probe") {
  auto t = load(hello(0, 2, "a") + hello(0, 3, "b") + at(1000, 2, "probe src=" + tid(3) + " tag=7 rc=0") +
                at(1100, 2, "probe src=" + tid(3) + " tag=7 rc=0") + at(1200, 2, "probe src=" + tid(3) + " tag=7 rc=0") +
                at(2100, 2, "probe src=" + tid(3) + " tag=7 rc=2") + recv(2100, 2101, 2, 3, 7, 1) + exitAt(2200, 2) +
                send(2000, 3, 2, 7, 1) + exitAt(2200, 3));
  WhyReport w = why(*t);
  REQUIRE(w.waits.size() == 1);
  CHECK(w.waits[0].pattern == WaitPattern::LateSender);
  CHECK(w.waits[0].begin == t->task(0).firstTime + 1000 * kMs);
  CHECK(w.waits[0].wait() == 1000 * kMs);
  checkExact(w);
}

TEST_CASE("why: barrier waits are caused by the last to arrive") {
  auto t = loadFixture("barrier.trace");
  WhyReport w = why(*t);
  TaskIndex late = taskNamed(*t, "worker", 2);
  REQUIRE(w.waits.size() == 4);
  for (const WaitState& s : w.waits) {
    CHECK(s.pattern == WaitPattern::Barrier);
    CHECK(s.cause == late);
    CHECK(t->str(s.group) == "w");
  }
  // 0.5 + 0.4 in the first use, 0.09 + 0.04 in the second.
  CHECK(w.totalWait == 1030 * kMs);
  REQUIRE(w.causes.size() == 1);
  CHECK(w.causes[0].task == late);
  CHECK(w.causes[0].instances == 4);
  CHECK(w.causes[0].waiters.size() == 2);
  checkExact(w);
}

TEST_CASE("why: a chain of two, the cost goes back to the first cause") {
  // (c) computes until 3.0 s and sends to (b); (b), kept waiting from 1.0 s,
  // works 0.5 s and sends to (a), who waited from 1.0 s to 3.5 s.
  auto t = load(hello(0, 2, "a") + hello(0, 3, "b") + hello(0, 4, "c") + recv(1000, 3500, 2, 3, 7, 1) +
                exitAt(3600, 2) + recv(1000, 3000, 3, 4, 7, 1) + send(3500, 3, 2, 7, 1) + exitAt(3600, 3) +
                send(3000, 4, 3, 7, 1) + exitAt(3100, 4));
  WhyReport w = why(*t);
  TaskIndex a = taskNamed(*t, "a", 0), b = taskNamed(*t, "b", 0), c = taskNamed(*t, "c", 0);
  REQUIRE(w.waits.size() == 2);
  CHECK(w.totalWait == 4500 * kMs);
  CHECK(w.perTask[c].rootCost == 4000 * kMs);  // its 2 s, and 2 of (a)'s 2.5 s
  CHECK(w.perTask[b].rootCost == 500 * kMs);   // its own 0.5 s of work
  CHECK(w.perTask[b].caused == 2500 * kMs);
  CHECK(w.perTask[b].passedOn == 2000 * kMs);
  CHECK(w.perTask[b].symptom());
  CHECK_FALSE(w.perTask[c].symptom());
  CHECK(w.perTask[a].rootCost == 0);
  REQUIRE(w.causes.size() == 2);
  CHECK(w.causes[0].task == c);
  CHECK(w.causes[0].instances == 2);
  CHECK(w.causes[1].task == b);
  // The path: (c) to its send at 3.0, (b) to 3.5, (a) to its end at 3.6.
  CHECK(w.perTask[c].critical == 3000 * kMs);
  CHECK(w.perTask[b].critical == 500 * kMs);
  CHECK(w.perTask[a].critical == 100 * kMs);
  checkExact(w);
}

TEST_CASE("why: a chain of three") {
  // (d) late by 2 s -> (c) waits, works 0.2 s -> (b) waits, works 0.3 s -> (a) waits.
  auto t = load(hello(0, 2, "a") + hello(0, 3, "b") + hello(0, 4, "c") + hello(0, 5, "d") +
                recv(1000, 3500, 2, 3, 7, 1) + exitAt(3600, 2) + recv(1000, 3200, 3, 4, 7, 1) + send(3500, 3, 2, 7, 1) +
                exitAt(3600, 3) + recv(1000, 3000, 4, 5, 7, 1) + send(3200, 4, 3, 7, 1) + exitAt(3600, 4) +
                send(3000, 5, 4, 7, 1) + exitAt(3100, 5));
  WhyReport w = why(*t);
  TaskIndex b = taskNamed(*t, "b", 0), c = taskNamed(*t, "c", 0), d = taskNamed(*t, "d", 0);
  REQUIRE(w.waits.size() == 3);
  CHECK(w.totalWait == (2500 + 2200 + 2000) * kMs);
  CHECK(w.perTask[d].rootCost == 3 * 2000 * kMs);
  CHECK(w.perTask[c].rootCost == 2 * 200 * kMs);
  CHECK(w.perTask[b].rootCost == 300 * kMs);
  CHECK(w.perTask[c].symptom());
  CHECK(w.perTask[b].symptom());
  CHECK(w.causes[0].task == d);
  CHECK(w.causes[0].instances == 3);
  checkExact(w);
}

namespace {
// Three members of group g (instances 0, 1, 2: tasks 2, 3, 4) in one
// collective; `call` with root 0; arrivals at the given times, all leave at `leave`.
std::string collective(const std::string& call, int a0, int a1, int a2, int leave) {
  std::string fields = "group=g tag=1 root=0 type=int n=1";
  if (call == "reduce") fields += " op=sum";
  std::string out;
  int arrive[3] = {a0, a1, a2};
  for (int k = 0; k < 3; ++k) {
    out += hello(0, 2 + k, "m") + at(10, 2 + k, "joingroup group=g rc=" + std::to_string(k));
    out += at(arrive[k], 2 + k, call + ".begin " + fields);
    // Members that wait for nobody leave at once.
    bool waits = (call == "scatter") != (k == 0);
    out += at(waits ? leave : arrive[k] + 1, 2 + k, call + " " + fields + " rc=0") + exitAt(leave + 100, 2 + k);
  }
  return out;
}
}  // namespace

TEST_CASE("why: a reduce's and a gather's root wait for the last member") {
  for (std::string call : {"reduce", "gather"}) {
    auto t = load(collective(call, 1000, 1500, 2500, 2500));
    WhyReport w = why(*t);
    REQUIRE(w.waits.size() == 1);
    CHECK(w.waits[0].pattern == WaitPattern::Collective);
    CHECK(w.waits[0].call == kindFromName(call));
    CHECK(w.waits[0].task == taskNamed(*t, "m", 0));
    CHECK(w.waits[0].cause == taskNamed(*t, "m", 2));
    CHECK(w.waits[0].wait() == 1500 * kMs);
    checkExact(w);
  }
}

TEST_CASE("why: a scatter's members wait for the root") {
  auto t = load(collective("scatter", 3000, 1000, 2000, 3000));
  WhyReport w = why(*t);
  REQUIRE(w.waits.size() == 2);
  for (const WaitState& s : w.waits) CHECK(s.cause == taskNamed(*t, "m", 0));
  CHECK(w.totalWait == (2000 + 1000) * kMs);
  checkExact(w);
}

TEST_CASE("why: a wait longer than a clock period is found, libab's clock records inside it") {
  // (a) arrives at the barrier at 1.0 s, (b) at 3.0 s; while (a) waits,
  // libab records a clock exchange (16 records) and a flush.
  std::string clocks;
  for (int k = 0; k < 16; ++k)
    clocks += at(2000, 2, "clock ref=t40001 ref_s=1002 ref_ns=0 turn_ns=50 rtt_ns=7000 phase=1 rc=" + std::to_string(k));
  clocks += at(2000, 2, "flush dur_ns=3000 blocked=1 own_ns=0 own_calls=0 rc=16");
  auto t = load(hello(0, 2, "a") + at(5, 2, "joingroup group=g rc=0") + at(1000, 2, "barrier.begin group=g count=2") +
                clocks + at(3000, 2, "barrier group=g count=2 rc=0") + exitAt(3100, 2) + hello(0, 3, "b") +
                at(5, 3, "joingroup group=g rc=1") + at(3000, 3, "barrier.begin group=g count=2") +
                at(3000, 3, "barrier group=g count=2 rc=0") + exitAt(3100, 3));
  WhyReport w = why(*t);
  REQUIRE(w.waits.size() == 1);
  CHECK(w.waits[0].pattern == WaitPattern::Barrier);
  CHECK(w.waits[0].task == taskNamed(*t, "a", 0));
  CHECK(w.waits[0].wait() == 2000 * kMs);
  checkExact(w);
}

TEST_CASE("why: waiting for a task spawned late is charged to its spawner") {
  // (a) waits for (b) from 1.0 s; (c) computes until 2.0 s, then spawns (b),
  // which starts at 2.2 s and sends at 2.5 s.
  auto t = load(hello(0, 2, "a") + hello(0, 4, "c") + recv(1000, 2500, 2, 3, 7, 1) + exitAt(2600, 2) +
                at(2000, 4, "spawn.begin file=b where=vm flags=0 count=1") +
                at(2100, 4, "spawn file=b count=1 tids=" + tid(3) + " rc=1") + exitAt(2600, 4) +
                hello(2200, 3, "b", 4) + send(2500, 3, 2, 7, 1) + exitAt(2600, 3));
  WhyReport w = why(*t);
  TaskIndex a = taskNamed(*t, "a", 0), b = taskNamed(*t, "b", 0), c = taskNamed(*t, "c", 0);
  REQUIRE(w.waits.size() == 2);
  CHECK(w.waits[0].pattern == WaitPattern::Spawn);
  CHECK(w.waits[0].task == a);
  CHECK(w.waits[0].cause == c);
  CHECK(w.waits[0].awaited == b);
  CHECK(w.waits[0].wait() == 1200 * kMs);
  CHECK(w.waits[1].pattern == WaitPattern::LateSender);
  CHECK(w.waits[1].wait() == 300 * kMs);
  // (c)'s work until its spawn began: 1.0 s; the spawn and (b)'s start: 0.2 s, (b)'s.
  const WaitCause* late = causeOf(w, c, WaitPattern::Spawn);
  REQUIRE(late);
  CHECK(late->cost == 1000 * kMs);
  CHECK(w.perTask[b].rootCost == (200 + 300) * kMs);
  checkExact(w);
}

TEST_CASE("why: waiting for a task one spawned itself is its start-up, in words that fit") {
  // (a) spawns (b) at 1.0 s and waits for it from 1.1 s; (b) starts at
  // 1.5 s and sends at 2.0 s.
  auto t = load(hello(0, 2, "a") + at(1000, 2, "spawn.begin file=b where=vm flags=0 count=1") +
                at(1050, 2, "spawn file=b count=1 tids=" + tid(3) + " rc=1") + recv(1100, 2000, 2, 3, 7, 1) +
                exitAt(2100, 2) + hello(1500, 3, "b", 2) + send(2000, 3, 2, 7, 1) + exitAt(2100, 3));
  AnalyseOptions o;
  o.why = true;
  Analysis a = analyse(t, o);
  TaskIndex b = taskNamed(*t, "b", 0);
  REQUIRE_FALSE(a.why.waits.empty());
  CHECK(a.why.waits[0].pattern == WaitPattern::Spawn);
  CHECK(a.why.waits[0].cause == b);  // not the waiter: it had spawned b already
  WhyText words = whyText(a);
  REQUIRE_FALSE(words.causes.empty());
  INFO(words.causes[0]);
  CHECK(words.causes[0].find("waiting for a task that had not started yet (spawn)") != std::string::npos);
  CHECK(words.causes[0].find("not spawned") == std::string::npos);
  checkExact(a.why);
}

TEST_CASE("why: gettid in a loop waits for the task to join") {
  auto t = load(hello(0, 2, "a") + at(5, 2, "joingroup group=g rc=0") +
                at(1000, 2, "gettid group=g inst=1 rc=-21") + at(1100, 2, "gettid group=g inst=1 rc=-21") +
                at(1550, 2, "gettid group=g inst=1 rc=" + tid(3)) + exitAt(1600, 2) + hello(0, 3, "b") +
                at(1500, 3, "joingroup group=g rc=1") + exitAt(1600, 3));
  WhyReport w = why(*t);
  REQUIRE(w.waits.size() == 1);
  CHECK(w.waits[0].pattern == WaitPattern::Join);
  CHECK(w.waits[0].cause == taskNamed(*t, "b", 0));
  CHECK(w.waits[0].wait() == 500 * kMs);
  CHECK(t->str(w.waits[0].group) == "g");
  checkExact(w);
}
