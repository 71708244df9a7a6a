// Fortran strings: libf2x trims, refuses and pads exactly as libfpvm3.
// f2xt_strings runs PVM's ftocstr/ctofstr on a table of cases; the build
// linked with libfpvm3 and the one linked with libf2x must print the same.
#include <catch2/catch.hpp>

#include <string>

#include "xab/test/process.h"

using namespace xab::test;
using Catch::Matchers::Contains;

TEST_CASE("Fortran string conversion matches libfpvm3 case by case", "[f2x][unit]") {
  auto pvm = run({bin_dir() + "/f2xt_strings_fpvm3"});
  auto f2x = run({bin_dir() + "/f2xt_strings_f2x"});
  REQUIRE(pvm.exit_code == 0);
  REQUIRE(f2x.exit_code == 0);
  CHECK(f2x.out == pvm.out);
  // And what that is, so the comparison is not between two empty outputs.
  CHECK_THAT(f2x.out, Contains("ftoc 1 rc=0 [group]\n"));        // trailing blanks go
  CHECK_THAT(f2x.out, Contains("ftoc 4 rc=0 [ lead]\n"));        // leading ones stay
  CHECK_THAT(f2x.out, Contains("ftoc 6 rc=0 [abc]\n"));          // a NUL ends the text
  CHECK_THAT(f2x.out, Contains("ftoc 7 rc=0 [1234567890123456789012345678901]\n"));
  CHECK_THAT(f2x.out, Contains("ftoc 8 rc=1 []\n"));             // 32 chars: too long for a group
  CHECK_THAT(f2x.out, Contains("ftoc 9 rc=1 []\n"));
  CHECK_THAT(f2x.out, Contains("ctof 0 rc=0 [host    ########]\n"));  // blank-padded
  CHECK_THAT(f2x.out, Contains("ctof 2 rc=0 [longer##########]\n"));  // cut
}
