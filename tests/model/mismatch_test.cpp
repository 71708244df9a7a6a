#include "fixtures.h"

#include <catch2/catch.hpp>

using namespace xab;
using xab::test::loadFixture;

TEST_CASE("pack/unpack mismatch: both sequences and where they part") {
  auto trace = loadFixture("mismatch.trace");
  MessageTable m = matchMessages(*trace);
  MismatchReport r = findPackMismatches(*trace, m);
  CHECK(r.checked == 2);
  REQUIRE(r.mismatches.size() == 1);
  const PackMismatch& x = r.mismatches[0];
  CHECK(x.message == 0);
  CHECK(formatPackItems(x.packed) == "int x4, double x2");
  CHECK(formatPackItems(x.unpacked) == "int x4, int x2");
  CHECK(x.partsAt == 1);
  CHECK(mismatchText(x) == "unpacks int x2 where double x2 was packed");
}

TEST_CASE("no mismatch for split unpacks, strings, and fewer items than packed") {
  auto trace = loadFixture("cholesky_hang.trace");  // (cholnode, 2) unpacks 4 + 4 of 8
  MessageTable m = matchMessages(*trace);
  MismatchReport r = findPackMismatches(*trace, m);
  CHECK(r.checked == 3);
  CHECK(r.mismatches.empty());
  auto mc = loadFixture("mcast.trace");
  MessageTable mm = matchMessages(*mc);
  CHECK(findPackMismatches(*mc, mm).mismatches.empty());
}

TEST_CASE("unpacking past the end is a mismatch") {
  auto r = loadTraceText(
      "1.0 1.0 t1 initsend enc=0 rc=1\n"
      "1.1 1.1 t1 pkint type=int n=2 stride=1 rc=0\n"
      "1.2 1.2 t1 send dst=t2 tag=1 bytes=8 serial=1 rc=0\n"
      "1.3 1.3 t2 recv src=t1 tag=1 bytes=8 serial=1 rc=3\n"
      "1.4 1.4 t2 upkint type=int n=3 stride=1 rc=0\n");
  MessageTable m = matchMessages(*r.trace);
  MismatchReport x = findPackMismatches(*r.trace, m);
  REQUIRE(x.mismatches.size() == 1);
  CHECK_THAT(mismatchText(x.mismatches[0]), Catch::Contains("past the end"));
}

TEST_CASE("psend and precv are checked: their records name type and count") {
  // psend of one double, received by precv as one int: the wrong half of it.
  auto r = loadTraceText(
      "1.0 1.0 t1 psend dst=t2 tag=1 bytes=8 serial=1 type=double n=1 rc=0\n"
      "1.1 1.1 t2 precv.begin src=t1 tag=1 type=int n=1 rc=0\n"
      "1.2 1.2 t2 precv src=t1 tag=1 bytes=8 serial=1 type=int n=1 rc=0\n");
  MessageTable m = matchMessages(*r.trace);
  MismatchReport x = findPackMismatches(*r.trace, m);
  CHECK(x.checked == 1);
  REQUIRE(x.mismatches.size() == 1);
  CHECK(mismatchText(x.mismatches[0]) == "pvm_precv receives int x1 where double x1 was sent");
  CHECK(formatPackItems(x.mismatches[0].packed) == "double x1");
  CHECK(formatPackItems(x.mismatches[0].unpacked) == "int x1");
}

TEST_CASE("send -> precv, mcast -> precv and psend -> recv + unpacks are checked") {
  auto r = loadTraceText(
      "1.0 1.0 t1 initsend enc=0 rc=1\n"
      "1.1 1.1 t1 pkdouble type=double n=4 stride=1 rc=0\n"
      "1.2 1.2 t1 send dst=t2 tag=1 bytes=32 serial=1 rc=0\n"
      "1.3 1.3 t1 mcast dst=t2,t3 tag=2 bytes=32 serial=2 rc=0\n"
      "1.4 1.4 t1 psend dst=t3 tag=3 bytes=16 serial=3 type=int n=4 rc=0\n"
      "1.5 1.5 t2 precv src=t1 tag=1 bytes=32 serial=1 type=double n=10 rc=0\n"  // fewer sent: fine
      "1.6 1.6 t2 precv src=t1 tag=2 bytes=32 serial=2 type=float n=8 rc=0\n"    // wrong type
      "1.7 1.7 t3 precv src=t1 tag=2 bytes=32 serial=2 type=double n=4 rc=0\n"
      "1.8 1.8 t3 recv src=t1 tag=3 bytes=16 serial=3 rc=5\n"
      "1.9 1.9 t3 upkint type=int n=2 stride=1 rc=0\n"
      "2.0 2.0 t3 upkdouble type=double n=1 stride=1 rc=0\n");
  MessageTable m = matchMessages(*r.trace);
  MismatchReport x = findPackMismatches(*r.trace, m);
  CHECK(x.checked == 4);
  REQUIRE(x.mismatches.size() == 2);
  CHECK(mismatchText(x.mismatches[0]) == "pvm_precv receives float x8 where double x4 was sent");
  CHECK(mismatchText(x.mismatches[1]) == "unpacks double x1 where int x4 was packed");
  CHECK(x.mismatches[1].partsAt == 1);
}

TEST_CASE("a trace without pack records is not counted as checked") {
  // As abrun writes it: sends and receives, no packs or unpacks.
  auto r = loadTraceText(
      "1.0 1.0 t1 initsend enc=0 rc=1\n"
      "1.1 1.1 t1 send dst=t2 tag=1 bytes=8 serial=1 rc=0\n"
      "1.2 1.2 t2 recv src=t1 tag=1 bytes=8 serial=1 rc=3\n"
      "1.3 1.3 t1 send dst=t2 tag=1 bytes=8 serial=2 rc=0\n"
      "1.4 1.4 t2 recv src=t1 tag=1 bytes=8 serial=2 rc=3\n");
  MessageTable m = matchMessages(*r.trace);
  MismatchReport x = findPackMismatches(*r.trace, m);
  CHECK(x.records == 0);
  CHECK(x.checked == 0);
  CHECK(x.mismatches.empty());
}

TEST_CASE("unpacks after a trecv that timed out are not the last message's") {
  // A token ring: the token is received and unpacked; the next trecv times
  // out and the program unpacks anyway (PvmNoBuf).  Not a pack mismatch of
  // the token (the failed call is reported as such, failures.h).
  auto r = loadTraceText(
      "1.0 1.0 t1 initsend enc=0 rc=1\n"
      "1.1 1.1 t1 pkint type=int n=1 stride=1 rc=0\n"
      "1.2 1.2 t1 send dst=t2 tag=5 bytes=4 serial=1 rc=0\n"
      "1.3 1.3 t2 recv src=t1 tag=5 bytes=4 serial=1 rc=3\n"
      "1.4 1.4 t2 upkint type=int n=1 stride=1 rc=0\n"
      "1.5 1.5 t2 trecv src=any tag=5 bytes=0 serial=0 rc=0\n"
      "1.6 1.6 t2 upkint type=int n=1 stride=1 rc=-15\n");
  MessageTable m = matchMessages(*r.trace);
  MismatchReport x = findPackMismatches(*r.trace, m);
  CHECK(x.checked == 1);
  CHECK(x.mismatches.empty());
}

TEST_CASE("pack records without type and count (PVM's own trace events, abrun) are not checked") {
  auto r = loadTraceText(
      "1.0 1.0 t1 initsend rc=1\n"
      "1.1 1.1 t1 pkint rc=0\n"
      "1.2 1.2 t1 send dst=t2 tag=1 bytes=4 serial=1 rc=0\n"
      "1.3 1.3 t2 recv src=t1 tag=1 bytes=4 serial=1 rc=3\n"
      "1.4 1.4 t2 upkint rc=0\n"
      "1.5 1.5 t2 upkint rc=0\n");
  MessageTable m = matchMessages(*r.trace);
  MismatchReport x = findPackMismatches(*r.trace, m);
  CHECK(x.records == 0);
  CHECK(x.checked == 0);
  CHECK(x.mismatches.empty());
}

TEST_CASE("a filter changed mid-run: messages with filtered packs or unpacks are not checked, the others are") {
  // t1 sends 3 messages; its packs are filtered from before the second
  // (no false "unpacked past the end"); t2's unpacks are filtered from
  // inside the third's receive (not checked either, though t1 packed
  // nothing).  The first is checked in full.
  auto r = loadTraceText(
      "1.0 1.0 t1 initsend enc=0 rc=1\n"
      "1.1 1.1 t1 pkint type=int n=2 stride=1 rc=0\n"
      "1.2 1.2 t1 send dst=t2 tag=1 bytes=8 serial=1 rc=0\n"
      "1.3 1.3 t2 recv src=t1 tag=1 bytes=8 serial=1 rc=3\n"
      "1.4 1.4 t2 upkint type=int n=3 stride=1 rc=0\n"
      "2.0 2.0 t1 filter omit=1 rc=0\n"
      "2.1 2.1 t1 initsend enc=0 rc=1\n"
      "2.2 2.2 t1 send dst=t2 tag=1 bytes=8 serial=2 rc=0\n"
      "2.3 2.3 t2 recv src=t1 tag=1 bytes=8 serial=2 rc=3\n"
      "2.4 2.4 t2 upkint type=int n=2 stride=1 rc=0\n"
      "3.0 3.0 t1 filter omit=0 rc=0\n"
      "3.1 3.1 t1 initsend enc=0 rc=1\n"
      "3.2 3.2 t1 pkint type=int n=2 stride=1 rc=0\n"
      "3.3 3.3 t1 send dst=t2 tag=1 bytes=8 serial=3 rc=0\n"
      "3.4 3.4 t2 filter omit=1 rc=0\n"
      "3.5 3.5 t2 recv src=t1 tag=1 bytes=8 serial=3 rc=3\n"
      "4.0 4.0 t1 initsend enc=0 rc=1\n"
      "4.1 4.1 t1 pkint type=int n=1 stride=1 rc=0\n"
      "4.2 4.2 t1 send dst=t2 tag=1 bytes=4 serial=4 rc=0\n"
      "4.3 4.3 t2 filter omit=0 rc=0\n"
      "4.4 4.4 t2 recv src=t1 tag=1 bytes=4 serial=4 rc=3\n"
      "4.5 4.5 t2 upkint type=int n=1 stride=1 rc=0\n");
  MessageTable m = matchMessages(*r.trace);
  MismatchReport x = findPackMismatches(*r.trace, m);
  CHECK(x.packFiltered);
  CHECK(x.filteredReceives == 2);  // serial 2 (packs filtered), serial 3 (unpacks filtered)
  CHECK(x.checked == 2);           // serials 1 and 4
  REQUIRE(x.mismatches.size() == 1);  // serial 1 unpacks 3 of 2: the real one
  CHECK(m.messages[x.mismatches[0].message].serial == 1);
}
