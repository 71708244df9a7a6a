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
  CHECK(x.explanation == "unpacks int x2 where double x2 was packed");
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
  CHECK_THAT(x.mismatches[0].explanation, Catch::Contains("past the end"));
}
