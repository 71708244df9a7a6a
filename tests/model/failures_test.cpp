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
