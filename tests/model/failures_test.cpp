#include <xab/model/model.h>

#include <catch2/catch.hpp>

using namespace xab;

TEST_CASE("every call that returned an error, by task, call and error") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=prog\n"
      "1.1 1.1 t1 parent rc=-23\n"  // the usual answer of a task nobody spawned
      "1.2 1.2 t1 psend dst=none tag=1 bytes=8 serial=0 type=double n=1 rc=-2\n"
      "1.3 1.3 t1 upkint type=int n=1 stride=1 rc=-15\n"
      "1.4 1.4 t1 upkint type=int n=1 stride=1 rc=-15\n"
      "1.5 1.5 t1 clock ref=t9 ref_s=1 ref_ns=0 turn_ns=0 rtt_ns=0 phase=1 rc=-1\n"  // not a call
      "1.6 1.6 t1 send dst=t2 tag=1 bytes=0 serial=1 rc=-99\n");
  REQUIRE(r.trace);
  FailureReport f = findFailedCalls(*r.trace);
  CHECK(f.failed == 4);
  REQUIRE(f.calls.size() == 3);
  CHECK(f.calls[0].call == Kind::PSEND);
  CHECK(f.calls[0].rc == -2);
  CHECK(f.calls[0].count == 1);
  CHECK(f.calls[1].call == Kind::UPKINT);
  CHECK(f.calls[1].count == 2);
  CHECK(f.calls[1].first.index == 3);
  CHECK(describe(*r.trace, f.calls[0]) == "(prog, 0): pvm_psend failed once with PvmBadParam (-2), at 0.200000 s");
  CHECK(describe(*r.trace, f.calls[1]) == "(prog, 0): pvm_upkint failed 2 times with PvmNoBuf (-15), first at 0.300000 s");
  CHECK(describe(*r.trace, f.calls[2]) == "(prog, 0): pvm_send failed once with error -99, at 0.600000 s");
  CHECK(f.timeouts.empty());  // no receive came before those unpacks
}

TEST_CASE("a trecv that timed out, then unpacks that fail: a timeout taken for a message") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=ring\n"
      "1.0 1.0 t1 trecv.begin src=any tag=5 timeout=100000 rc=0\n"
      "1.1 1.1 t1 trecv src=any tag=5 bytes=0 serial=0 rc=0\n"
      "1.2 1.2 t1 upkint type=int n=1 stride=1 rc=-15\n"
      "1.3 1.3 t1 upkint type=int n=1 stride=1 rc=-15\n"
      "1.4 1.4 t1 trecv.begin src=any tag=5 timeout=100000 rc=0\n"
      "1.5 1.5 t1 trecv src=t2 tag=5 bytes=4 serial=1 rc=7\n"
      "1.6 1.6 t1 upkint type=int n=1 stride=1 rc=0\n"
      "1.7 1.7 t1 upkint type=int n=1 stride=1 rc=-5\n");  // after a message: a plain failure
  REQUIRE(r.trace);
  FailureReport f = findFailedCalls(*r.trace);
  REQUIRE(f.timeouts.size() == 1);
  CHECK(f.timeouts[0].receive.index == 2);
  CHECK(f.timeouts[0].firstUnpack.index == 3);
  CHECK(f.timeouts[0].unpacks == 2);
  CHECK(describe(*r.trace, f.timeouts[0]) ==
        "(ring, 0) took a timeout for a message: pvm_trecv timed out (rc=0) at 0.100000 s, then 2 unpacks failed "
        "with PvmNoBuf (-15) (there was no message to unpack)");
  REQUIRE(f.calls.size() == 2);
  CHECK(f.calls[0].count == 2);
  CHECK(f.calls[1].rc == -5);
  CHECK(errorWords(-5) == "PvmNoData (-5)");
}

TEST_CASE("a trecv that timed out is listed apart, and every failed or timed-out record is marked") {
  auto r = loadTraceText(
      "1.0 1.0 t1 mytid rc=t1 name=ring\n"
      "1.0 1.0 t1 trecv.begin src=any tag=5 timeout=2000000 rc=0\n"
      "3.0 3.0 t1 trecv src=any tag=5 bytes=0 serial=0 rc=0\n"     // timed out after 2 s
      "3.1 3.1 t1 nrecv src=any tag=5 bytes=0 serial=0 rc=0\n"      // polling: nothing to list
      "3.2 3.2 t1 trecv.begin src=any tag=5 timeout=500000 rc=0\n"
      "3.7 3.7 t1 trecv src=any tag=5 bytes=0 serial=0 rc=0\n"     // timed out after 0.5 s
      "3.8 3.8 t1 upkint type=int n=1 stride=1 rc=-15\n"
      "3.9 3.9 t1 trecv.begin src=any tag=5 timeout=500000 rc=0\n"
      "4.0 4.0 t1 trecv src=t2 tag=5 bytes=4 serial=1 rc=7\n"      // got one
      "4.0 4.0 t2 mytid rc=t2 name=quiet\n"
      "4.1 4.1 t2 parent rc=-23\n");                               // the usual answer: not marked
  REQUIRE(r.trace);
  FailureReport f = findFailedCalls(*r.trace);
  CHECK(f.any());
  CHECK(f.failed == 1);
  CHECK(f.timedOutCount == 2);
  REQUIRE(f.timedOut.size() == 1);
  CHECK(f.timedOut[0].count == 2);
  CHECK(f.timedOut[0].first.index == 2);
  CHECK(f.timedOut[0].waited == 2'500'000'000);
  CHECK(describe(*r.trace, f.timedOut[0]) ==
        "(ring, 0): pvm_trecv timed out 2 times, waiting 2.500000 s in all, first at 2.000000 s");
  REQUIRE(f.marked.size() == 2);
  CHECK(f.marked[0] == std::vector<std::uint32_t>{2, 5, 6});
  CHECK(f.marked[1].empty());
  const auto& ev = r.trace->events(0);
  CHECK(outcomeOf(ev[2]) == CallOutcome::TimedOut);
  CHECK(outcomeOf(ev[3]) == CallOutcome::Ok);
  CHECK(outcomeOf(ev[6]) == CallOutcome::Failed);
  CHECK(outcomeOf(ev[1]) == CallOutcome::Ok);  // a begin says nothing of the outcome
  CHECK(outcomeOf(r.trace->events(1)[1]) == CallOutcome::Ok);
}

TEST_CASE("a trace without failures or timeouts marks nothing") {
  auto r = loadTraceText("1.0 1.0 t1 mytid rc=t1 name=ok\n1.1 1.1 t1 initsend enc=0 rc=1\n");
  REQUIRE(r.trace);
  FailureReport f = findFailedCalls(*r.trace);
  CHECK_FALSE(f.any());
  CHECK(f.marked.empty());
}
