#include "fixtures.h"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace xab;
using xab::test::loadFixture;
using xab::test::taskNamed;

namespace {
// The facts and their words (hang_text.h), as abstat and xabview show them.
struct Hang : HangReport {
  HangText text;
};
Hang diagnose(const Trace& t) {
  Hang h{diagnoseHang(t, matchMessages(t), analyzeBarriers(t)), {}};
  h.text = hangText(t, h);
  return h;
}
const std::string& explain(const Hang& h, const BlockedTask& b) {
  return h.text.explanations.at(static_cast<std::size_t>(&b - h.blocked.data()));
}
}  // namespace

TEST_CASE("the paper's hung Cholesky: host waits for 16040, nodes sent 16004") {
  auto trace = loadFixture("cholesky_hang.trace");
  Hang h = diagnose(*trace);
  REQUIRE(h.hung);
  REQUIRE(h.blocked.size() == 4);
  TaskIndex host = taskNamed(*trace, "cholhost", 0);
  const BlockedTask* hb = nullptr;
  for (const auto& b : h.blocked)
    if (b.task == host) hb = &b;
  REQUIRE(hb);
  CHECK(hb->state.state == TaskState::Receiving);
  CHECK(hb->state.b == 16040);
  REQUIRE(hb->pending.size() == 3);
  for (const auto& p : hb->pending) {
    CHECK(p.tag == 16004);
    CHECK_FALSE(p.matches);
  }
  CHECK_THAT(explain(h, *hb), Catch::Contains("(cholhost, 0) waits for tag 16040 from any task"));
  CHECK_THAT(explain(h, *hb),
             Catch::Contains("3 messages with tag 16004 from (cholnode, 0..2) are waiting for it"));
  CHECK(h.cycles.empty());
  CHECK_THAT(h.text.summary.front(), Catch::Contains("all 4 live tasks are blocked"));
}

TEST_CASE("a deadlock cycle is found") {
  auto trace = loadFixture("deadlock.trace");
  Hang h = diagnose(*trace);
  REQUIRE(h.hung);
  CHECK(h.blocked.size() == 2);  // idle has exited
  REQUIRE(h.cycles.size() == 1);
  CHECK(h.cycles[0].size() == 2);
  CHECK_THAT(h.text.summary.front(), Catch::Contains("deadlock: (ping, 0) waits for (pong, 0) waits for (ping, 0)"));
}

TEST_CASE("a barrier waiting for a task that has exited") {
  auto trace = loadFixture("barrier_hang.trace");
  Hang h = diagnose(*trace);
  REQUIRE(h.blocked.size() == 2);
  const BlockedTask& b = h.blocked[0];
  CHECK(b.state.state == TaskState::Barrier);
  REQUIRE(b.missing.size() == 1);
  CHECK(b.missing[0] == taskNamed(*trace, "worker", 2));
  CHECK(b.waitingWith.size() == 1);
  CHECK_THAT(explain(h, b), Catch::Contains("2 of 3 arrived; not arrived: (worker, 2)"));
  // What the missing member does: once, in the barrier's line.
  CHECK(std::count(h.text.summary.begin(), h.text.summary.end(),
                   "barrier 'w' (count 3): 2 of 3 arrived, (worker, 0,1) wait; (worker, 2) has exited.") == 1);
}

TEST_CASE("a trace where everyone finished is not hung") {
  auto trace = loadFixture("barrier.trace");
  Hang h = diagnose(*trace);
  CHECK_FALSE(h.hung);
  CHECK(h.blocked.empty());
  CHECK(h.text.summary.empty());
}

TEST_CASE("abmon's note of lost events does not end a blocked receive") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=a\n"
      "1.1 1.1 t1 recv.begin src=t2 tag=5\n"
      "1.2 1.2 t1 abmon.lost n=3\n"
      "1.3 1.3 t1 abmon.lost messages=2\n");
  REQUIRE(r.errorCount == 0);
  const Trace& t = *r.trace;
  CHECK(t.task(0).lost == 3);
  CHECK(t.task(0).lostMessages == 2);  // a gap in the task's message sequence
  StateInterval now = currentState(t, 0);
  CHECK(now.state == TaskState::Receiving);
  CHECK(now.b == 5);
  CHECK(stateAt(t, 0, 1'150'000'000).state == TaskState::Receiving);
  Hang h = diagnose(t);
  REQUIRE(h.blocked.size() == 1);
  CHECK_THAT(explain(h, h.blocked[0]), Catch::Contains("(a, 0) waits for tag 5 from t2"));
}

// Killing a hung program must not erase the diagnosis.  A
// real trace: the demo's --hang under abmon, the master ended by `timeout`
// while it waited for tag 16040 (its last records: recv.begin, task.exit);
// the workers still blocked when abmon stopped.
TEST_CASE("a task killed while blocked: what it waited for and what waited for it") {
  auto trace = loadFixture("demo_hang_killed.trace");
  TaskIndex master = taskNamed(*trace, "xabdemo", 0);
  REQUIRE(trace->task(master).exit == ExitHow::TaskExit);
  Hang h = diagnose(*trace);
  REQUIRE(h.hung);
  REQUIRE(h.blocked.size() == 4);
  const BlockedTask* mb = nullptr;
  for (const auto& b : h.blocked)
    if (b.task == master) mb = &b;
  REQUIRE(mb);
  CHECK(mb->ended);
  CHECK(mb->endedAt == trace->task(master).exitTime);
  CHECK(mb->state.state == TaskState::Receiving);
  CHECK(mb->state.a == kAnyTid);
  CHECK(mb->state.b == 16040);
  REQUIRE(mb->pending.size() == 3);
  for (const auto& p : mb->pending) CHECK(p.tag == 16004);
  CHECK_THAT(explain(h, *mb), Catch::Contains("(xabdemo, 0) waited for tag 16040 from any task") &&
                                  Catch::Contains("until it ended at") &&
                                  Catch::Contains("3 messages with tag 16004 from (xabdemo, 1..3) were waiting for it"));
  CHECK_THAT(h.text.summary.front(), Catch::Contains("1 task ended while blocked"));
  // The workers wait for work from the master, which is gone.
  for (const auto& b : h.blocked)
    if (b.task != master) {
      CHECK_FALSE(b.ended);
      CHECK_THAT(explain(h, b), Catch::Contains("(xabdemo, 0) was blocked in recv waiting for tag 16040"));
    }
}

TEST_CASE("every task killed while blocked: still hung, and a cycle is still a deadlock") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=ping\n"
      "1.1 1.1 t1 recv.begin src=t2 tag=1\n"
      "1.0 1.0 t2 mytid rc=t2 name=pong\n"
      "1.1 1.1 t2 recv.begin src=t1 tag=2\n"
      "1.2 1.2 t2 abmon.lost n=1\n"
      "9.0 9.0 t1 task.exit how=notify\n"
      "9.0 9.0 t2 task.exit how=notify\n");
  REQUIRE(r.errorCount == 0);
  Hang h = diagnose(*r.trace);
  REQUIRE(h.hung);
  REQUIRE(h.blocked.size() == 2);
  for (const auto& b : h.blocked) CHECK(b.ended);
  REQUIRE(h.cycles.size() == 1);
  CHECK_THAT(h.text.summary.front(), Catch::Contains("deadlock: (ping, 0) waits for (pong, 0)"));
}

TEST_CASE("a task that exited normally, or that the program itself killed, did not end blocked") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=master\n"
      "1.1 1.1 t1 kill tid=t2 rc=0\n"
      "1.2 1.2 t1 exit rc=0\n"
      "1.3 1.3 t1 task.exit how=notify\n"
      "1.0 1.0 t2 mytid rc=t2 name=worker\n"
      "1.05 1.05 t2 recv.begin src=t1 tag=7\n"   // waits for work; the master kills it
      "1.2 1.2 t2 task.exit how=notify\n"
      "1.0 1.0 t3 mytid rc=t3 name=other\n"
      "1.05 1.05 t3 recv.begin src=t1 tag=7\n"
      "1.06 1.06 t3 recv src=t1 tag=7 bytes=4 serial=0 rc=3\n"
      "1.2 1.2 t3 task.exit how=notify\n");
  REQUIRE(r.errorCount == 0);
  Hang h = diagnose(*r.trace);
  CHECK_FALSE(h.hung);
  CHECK(h.blocked.empty());
}

// A handler that runs inside a blocking receive does not end it: the task
// is still blocked after the handler's records (handler.trace, cut as if
// the tag-6 message never came).
TEST_CASE("a task whose handler ran inside its blocked receive is still blocked") {
  auto trace = loadFixture("handler_hang.trace");
  Hang h = diagnose(*trace);
  REQUIRE(h.hung);
  REQUIRE(h.blocked.size() == 1);
  const BlockedTask& b = h.blocked[0];
  CHECK(b.task == taskNamed(*trace, "mhf", 0));
  CHECK(b.state.state == TaskState::Receiving);
  CHECK(b.state.b == 6);
  CHECK(b.pending.empty());  // the handler took both tag-5 messages
  CHECK_THAT(explain(h, b), Catch::Contains("(mhf, 0) waits for tag 6 from any task"));
  CHECK_THAT(h.text.summary.front(), Catch::Contains("the only live task is blocked"));
}

// recvf_hang.trace: a matching function of the program's (pvm_recvf) calls
// pvm_bufinfo inside the receive and accepts nothing, so the receive never
// returns, though a message of the tag and source it asked for is there.
TEST_CASE("a task whose matching function refuses every message is still blocked in its receive") {
  auto trace = loadFixture("recvf_hang.trace");
  Hang h = diagnose(*trace);
  REQUIRE(h.hung);
  REQUIRE(h.blocked.size() == 1);
  const BlockedTask& b = h.blocked[0];
  CHECK(b.task == taskNamed(*trace, "recvfhang", 0));
  CHECK(b.state.state == TaskState::Receiving);
  CHECK(b.state.b == 1);
  CHECK(b.ownMatcher);
  REQUIRE(b.pending.size() == 1);
  CHECK_THAT(explain(h, b), Catch::Contains("own matching function (pvm_recvf) accepted none of them"));
  CHECK_THAT(explain(h, b), !Catch::Contains("were records lost"));
}

TEST_CASE("a task killed while blocked is not counted among the blocked: counts add up") {
  auto trace = loadFixture("demo_hang_killed.trace");
  Hang h = diagnose(*trace);
  REQUIRE(h.blocked.size() == 4);
  CHECK(h.stillBlocked == 3);
  CHECK(h.endedBlocked == 1);
  CHECK(h.text.headline == "3 tasks blocked, 1 ended while blocked");
  Hang plain = diagnose(*loadFixture("cholesky_hang.trace"));
  CHECK(plain.stillBlocked == 4);
  CHECK(plain.endedBlocked == 0);
  CHECK(plain.text.headline == "4 tasks blocked");
}

// Three members wait at barrier 'g' (count 4); the fourth waits for a
// message.  The barrier's line names each waiter once; a waiter's own text
// names who has not arrived, not the whole list of waiters again.
TEST_CASE("a barrier's waiters are named once, and what the missing member does once") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=w\n"
      "1.0 1.0 t1 joingroup group=g rc=0\n"
      "1.1 1.1 t1 barrier.begin group=g count=4\n"
      "1.0 1.0 t2 mytid rc=t2 name=w\n"
      "1.0 1.0 t2 joingroup group=g rc=1\n"
      "1.2 1.2 t2 barrier.begin group=g count=4\n"
      "1.0 1.0 t3 mytid rc=t3 name=w\n"
      "1.0 1.0 t3 joingroup group=g rc=2\n"
      "1.3 1.3 t3 barrier.begin group=g count=4\n"
      "1.0 1.0 t4 mytid rc=t4 name=w\n"
      "1.0 1.0 t4 joingroup group=g rc=3\n"
      "1.4 1.4 t4 recv.begin src=t9 tag=7\n");
  REQUIRE(r.errorCount == 0);
  Hang h = diagnose(*r.trace);
  REQUIRE(h.blocked.size() == 4);
  std::size_t barrierLines = 0, doingLines = 0;
  for (const std::string& s : h.text.summary) {
    barrierLines += s.rfind("barrier 'g'", 0) == 0;
    doingLines += s.find("(w, 3) is blocked in recv") != std::string::npos;
  }
  CHECK(barrierLines == 1);
  CHECK(doingLines == 1);  // once, in the barrier's line
  for (const std::string& s : h.text.summary)
    if (s.rfind("barrier 'g'", 0) == 0)
      CHECK(s == "barrier 'g' (count 4): 3 of 4 arrived, (w, 0..2) wait; (w, 3) is blocked in recv waiting for tag 7 from t9.");
  for (const BlockedTask& b : h.blocked) {
    if (b.state.state != TaskState::Barrier) continue;
    CHECK_THAT(explain(h, b), Catch::Contains("3 of 4 arrived; not arrived: (w, 3).") &&
                                  !Catch::Contains("(w, 0),") && !Catch::Contains("is blocked in"));
  }
}

// New tasks each round call the barrier once: numbered per task, every
// call would be the barrier's first use ("5 of 3 arrived").  PVM released
// the first three; the last two wait for a third.
TEST_CASE("a barrier's uses are cut by its count: tasks of later rounds wait at its next use") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=r\n"
      "1.1 1.1 t1 barrier.begin group=g count=3\n"
      "1.3 1.3 t1 barrier group=g count=3 rc=0\n"
      "1.0 1.0 t2 mytid rc=t2 name=r\n"
      "1.2 1.2 t2 barrier.begin group=g count=3\n"
      "1.3 1.3 t2 barrier group=g count=3 rc=0\n"
      "1.0 1.0 t3 mytid rc=t3 name=r\n"
      "1.25 1.25 t3 barrier.begin group=g count=3\n"
      "1.3 1.3 t3 barrier group=g count=3 rc=0\n"
      "2.0 2.0 t4 mytid rc=t4 name=r\n"
      "2.1 2.1 t4 barrier.begin group=g count=3\n"
      "2.0 2.0 t5 mytid rc=t5 name=r\n"
      "2.2 2.2 t5 barrier.begin group=g count=3\n");
  REQUIRE(r.errorCount == 0);
  BarrierAnalysis b = analyzeBarriers(*r.trace);
  REQUIRE(b.instances.size() == 2);
  CHECK(b.instances[0].visits.size() == 3);
  CHECK(b.instances[0].complete());
  CHECK(b.instances[1].visits.size() == 2);
  CHECK(b.instances[1].use == 1);
  Hang h = diagnose(*r.trace);
  REQUIRE(h.blocked.size() == 2);
  for (const BlockedTask& x : h.blocked) CHECK_THAT(explain(h, x), Catch::Contains("2 of 3 arrived"));
}

// The program abmon started died of SIGSEGV inside pvm_spawn (a public
// program reads past an array it passes to pvm_spawn): program.exit says
// so, and that is a crash, not a hang.
TEST_CASE("the program killed by a fault signal inside a blocking call crashed, it did not hang") {
  auto r = loadTraceText(
      "1.0 1.0 t40001 abmon.start version=2 batch=512 flush_ms=200\n"
      "1.1 1.1 t40003 mytid rc=t40003 name=sort parent=none lang=c\n"
      "1.2 1.2 t40003 spawn.begin file=quick flags=0 where=\"\" n=1\n"
      "1.3 1.3 t40003 task.exit how=notify\n"
      "1.4 1.4 t40001 program.exit tid=t40003 status=139 signal=11\n");
  REQUIRE(r.errorCount == 0);
  Hang h = diagnose(*r.trace);
  CHECK_FALSE(h.hung);
  CHECK(h.blocked.empty());
  REQUIRE(h.crashed.size() == 1);
  CHECK(h.crashed[0].signal == 11);
  CHECK(h.crashed[0].call == Kind::SPAWN);
  CHECK_THAT(h.text.crashed[0], Catch::Contains("(sort, 0) died of signal 11 (SIGSEGV) in spawn"));
  // Ended by SIGTERM (timeout, a user): still the hang it was.
  auto t = loadTraceText(
      "1.0 1.0 t40001 abmon.start version=2 batch=512 flush_ms=200\n"
      "1.1 1.1 t40003 mytid rc=t40003 name=sort parent=none lang=c\n"
      "1.2 1.2 t40003 recv.begin src=any tag=1\n"
      "1.3 1.3 t40003 task.exit how=notify\n"
      "1.4 1.4 t40001 program.exit tid=t40003 status=143 signal=15\n");
  REQUIRE(t.errorCount == 0);
  Hang k = diagnose(*t.trace);
  CHECK(k.hung);
  CHECK(k.crashed.empty());
}

// Tasks of a ring wait for a token with pvm_trecv and a 1 s timeout: when
// the trace ends they are waiting, at most a second, not blocked.
TEST_CASE("a task in a receive with a timeout is waiting, not blocked") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=nodo\n"
      "1.1 1.1 t1 trecv.begin src=any tag=1 timeout=1000000\n"
      "1.0 1.0 t2 mytid rc=t2 name=nodo\n"
      "1.2 1.2 t2 trecv.begin src=any tag=1 timeout=-1\n");  // no timeout: may wait for ever
  REQUIRE(r.errorCount == 0);
  Hang h = diagnose(*r.trace);
  REQUIRE(h.blocked.size() == 1);
  CHECK(h.blocked[0].task == taskNamed(*r.trace, "nodo", 1));
  REQUIRE(h.boundedWaits.size() == 1);
  CHECK(h.boundedWaits[0].timeoutUs == 1000000);
  CHECK_THAT(h.text.boundedWaits[0], Catch::Contains("(nodo, 0) is in trecv with a timeout of 1.000000 s"));
}

TEST_CASE("a parent waiting for any task names its child that ended without pvm_exit while working") {
  // The shape of a divide-and-conquer tree whose child crashed in its own
  // work: its parent waits for its answer forever.
  auto r = loadTraceText(
      "1.00 1.00 t1 mytid rc=t1 name=tree\n"
      "1.01 1.01 t1 spawn.begin file=tree where= flags=0 count=2\n"
      "1.02 1.02 t1 spawn file=tree count=2 tids=t2,t3 rc=2\n"
      "1.03 1.03 t1 recv.begin src=any tag=1\n"
      "1.10 1.10 t1 recv src=t2 tag=1 bytes=4 serial=1 rc=7\n"
      "1.11 1.11 t1 recv.begin src=any tag=1\n"
      "1.05 1.05 t2 parent rc=t1 name=tree parent=t1\n"
      "1.06 1.06 t2 send dst=t1 tag=1 bytes=4 serial=1 rc=0\n"
      "1.07 1.07 t2 exit rc=0\n"
      "1.05 1.05 t3 parent rc=t1 name=tree\n"  // its parent known from the spawn only
      "1.50 1.50 t3 task.exit how=notify\n");
  REQUIRE(r.trace);
  Hang h = diagnose(*r.trace);
  REQUIRE(h.blocked.size() == 1);
  const TaskIndex child = *r.trace->findTask(3);
  REQUIRE(h.blocked[0].goneChildren == std::vector<TaskIndex>{child});
  CHECK_THAT(explain(h, h.blocked[0]),
             Catch::Contains("(tree, 0) waits for tag 1 from any task") &&
                 Catch::Contains("its child (tree, 2) ended without pvm_exit while working (crashed or killed, at "
                                 "0.500000 s): what it was to send will never come"));
}
