// abstat on traces of real PVM programs in the shape of bugs the trace
// holds (abstat_pvm_prog.c): a psend of a double received by precv as an
// int, a psend to tid 0 and an upkint without a receive buffer, a token
// ring that takes a trecv timeout for a message.  Each runs under abmon in
// a private virtual machine.
#include "json.h"

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

#include <catch2/catch.hpp>

#include <fstream>

using namespace xab::test;

namespace {

// Runs the program under abmon until `tasks` tasks have exited; abstat --json
// of its trace (and the text report in *text).
Json traced(const std::vector<std::string>& args, std::size_t tasks, std::string* text = nullptr) {
  PrivateVm vm;
  std::string path = vm.dir() + "/run.trace";
  Monitor mon(path);
  std::vector<std::string> argv{bin_dir() + "/abstat_pvm_prog"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run(argv, {}, 120s);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(mon.wait_exits(tasks));
  mon.finish();
  if (text) *text = run({bin_dir() + "/abstat", path}, {}, 60s).out;
  auto j = run({bin_dir() + "/abstat", "--json", path}, {}, 60s);
  INFO(j.err);
  return parseJson(j.out);
}

}  // namespace

TEST_CASE("abstat on a real psend of a double received by precv as an int: a mismatch", "[pvm][abmon]") {
  std::string text;
  Json j = traced({"precvint"}, 2, &text);
  CHECK(j["exitStatus"].num() == 3);
  const Json& m = j["mismatch"];
  CHECK(m["checked"].num() == 1);  // the precv; the child's empty "done" has nothing to compare
  REQUIRE(m["mismatches"].arr().size() == 1);
  CHECK(m["mismatches"][0]["explanation"].str() == "pvm_precv receives int x1 where double x1 was sent");
  CHECK_THAT(text, Catch::Contains("1 mismatched"));
}

TEST_CASE("abstat on a real psend to tid 0 and upkint without a buffer: failed calls by name", "[pvm][abmon]") {
  std::string text;
  Json j = traced({"badcalls"}, 1, &text);
  const Json& f = j["failures"];
  REQUIRE(f["calls"].arr().size() == 2);
  CHECK(f["calls"][0]["call"].str() == "psend");
  CHECK(f["calls"][0]["error"].str() == "PvmBadParam");
  CHECK(f["calls"][1]["call"].str() == "upkint");
  CHECK(f["calls"][1]["error"].str() == "PvmNoBuf");
  CHECK_THAT(text, Catch::Contains("(abstat_pvm_prog, 0): pvm_psend failed once with PvmBadParam (-2)") &&
                       Catch::Contains("(abstat_pvm_prog, 0): pvm_upkint failed once with PvmNoBuf (-15)"));
}

TEST_CASE("abstat on a real token ring whose tasks take a trecv timeout for a message", "[pvm][abmon]") {
  std::string text;
  Json j = traced({"ring", "4"}, 4, &text);
  const Json& f = j["failures"];
  CHECK(f["timeouts"].arr().size() == 4);  // every task of the ring
  for (const Json& t : f["timeouts"].arr()) {
    CHECK(t["call"].str() == "trecv");
    CHECK(t["unpacks"].num() == 1);
    CHECK(t["rc"].num() == -15);
  }
  CHECK(j["messages"]["neverReceived"].num() == 0);
  CHECK(j["mismatch"]["mismatches"].arr().empty());  // the failed unpacks are not the token's
  CHECK(j["exitStatus"].num() == 0);
  CHECK_FALSE(j["hang"]["hung"].boolean());
  CHECK_THAT(text, Catch::Contains("took a timeout for a message: pvm_trecv timed out (rc=0)"));
  CHECK(f["timedOut"].arr().size() == 4);  // and each task's timeout listed as one
  CHECK(f["timedOutCount"].num() >= 4);
}

// Unmodified, under abrun: PVM's own trace events carry no pack types or
// counts, so nothing can be checked, and abstat says so; the failed calls
// and the timeouts are in those events all the same.
TEST_CASE("abstat on the token ring run unmodified under abrun: no pack records, the timeouts named", "[pvm][abmon]") {
  PrivateVm vm;
  std::string path = vm.dir() + "/abrun.trace";
  auto r = run({bin_dir() + "/abrun", "-o", path, bin_dir() + "/abstat_pvm_prog_plain", "ring", "4"}, {}, 120s);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto text = run({bin_dir() + "/abstat", "--mismatch", "--failures", path}, {}, 60s).out;
  CHECK_THAT(text, Catch::Contains("not checked: no pack records") && !Catch::Contains("receives checked"));
  Json j = parseJson(run({bin_dir() + "/abstat", "--json", path}, {}, 60s).out);
  CHECK(j["mismatch"]["status"].str() == "no pack records");
  CHECK(j["failures"]["timeouts"].arr().size() == 4);
}

// A parent that takes its children's answers from any task and assumes
// which comes first: a message race, named whichever order this run took.
TEST_CASE("abstat on a real parent that takes two children's answers from any task: a message race", "[pvm][abmon]") {
  std::string text;
  Json j = traced({"halves"}, 3, &text);
  const Json& r = j["races"];
  CHECK(r["checked"].boolean());
  CHECK(r["anySource"].num() == 4);
  CHECK(r["racy"].num() == 1);  // the first; the second and the one-at-a-time asks cannot race
  REQUIRE(r["groups"].arr().size() == 1);
  const Json& g = r["groups"][0];
  CHECK(g["task"]["label"].str() == "(abstat_pvm_prog, 0)");
  CHECK(g["tag"].num() == 7);
  CHECK(g["receives"].num() == 4);
  CHECK(g["first"]["took"]["label"].str() != g["first"]["couldHaveTaken"]["label"].str());
  CHECK(j["exitStatus"].num() == 0);  // a race is not an error of the run
  CHECK_THAT(text, Catch::Contains("(abstat_pvm_prog, 0) receives tag 7 from any task: 1 of 4 receives are message races"));
}
