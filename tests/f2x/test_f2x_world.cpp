// What a Fortran program sees of the virtual machine and of PVM, linked
// with libfpvm3 or with libf2x under abmon (f2xt_world.f): pvmftasks lists
// no task of xab's, libpvm's error lines are the same, and an in-place
// message is recorded with the bytes it is sent with.  And a Fortran
// program's lines land in a file in the order they land without abmon
// (f2xt_stdio.f: gfortran buffers by the kind of file).
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;

TEST_CASE("a Fortran program sees the machine's tasks and PVM's errors as without xab", "[f2x][pvm]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({bin_dir() + "/f2xt_world_fpvm3"}, {}, 60s);
  INFO(plain.out << plain.err);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(plain.out == "spawned  1\ntasks  2 others  0\nin place, bytes  64\npsend to nobody  -2\n");
  Monitor mon(vm.dir() + "/world.trace");
  auto r = run({bin_dir() + "/f2xt_world_f2x"}, {}, 60s);
  REQUIRE(mon.wait_exits(2));
  auto rs = mon.finish();
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);
  auto without_tids = [](const std::string& text) {
    return std::regex_replace(text, std::regex(R"(\[t[0-9a-f]+\])"), "[tid]");
  };
  CHECK(without_tids(r.err) == without_tids(plain.err));  // pvm_send's line, then pvm_psend's
  CHECK(plain.err.find("pvm_psend(): Bad parameter") != std::string::npos);
  std::string me;
  for (auto& rec : rs)
    if (rec.event == "mytid" && rec.has("parent", "none")) me = rec.tid;
  REQUIRE_FALSE(me.empty());
  CHECK(count(rs, "send", {{"dst", me}, {"tag", "5"}, {"bytes", "64"}}) == 1);
  CHECK(count(rs, "recv", {{"src", me}, {"tag", "5"}, {"bytes", "64"}}) == 1);
  CHECK(count(rs, "tasks", {{"ntask", "2"}}) == 1);
}

TEST_CASE("a Fortran program's stdout and stderr lines land in one file in the plain order under abmon", "[f2x][pvm]") {
  auto& vm = PrivateVm::shared();
  const std::string script = "\"$@\" > \"$0\" 2>&1";
  auto plain = run({"sh", "-c", script, vm.dir() + "/stdio.plain", bin_dir() + "/f2xt_stdio"}, {}, 60s);
  auto r = run({"sh", "-c", script, vm.dir() + "/stdio.abmon", bin_dir() + "/abmon", "-q", "-o",
                vm.dir() + "/stdio.trace", "--", bin_dir() + "/f2xt_stdio"},
               {}, 60s);
  REQUIRE(plain.exit_code == 0);
  CHECK(r.exit_code == 0);
  std::string want = read_file(vm.dir() + "/stdio.plain");
  REQUIRE(want.size() == 6 * 12);  // six lines of "to stdout  1"
  CHECK(read_file(vm.dir() + "/stdio.abmon") == want);
}
