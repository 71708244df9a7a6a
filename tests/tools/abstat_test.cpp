#include "json.h"
#include <xab/test/process.h>

#include <catch2/catch.hpp>

#include <fstream>


using xab::test::Json;
using xab::test::parseJson;
using xab::test::run;

namespace {

std::string data(const std::string& name) { return std::string(XAB_MODEL_DATA) + "/" + name; }

xab::test::RunResult abstat(std::vector<std::string> args, const std::string* input = nullptr) {
  args.insert(args.begin(), XAB_ABSTAT);
  return run(args, {}, std::chrono::seconds(120), input ? *input : std::string());
}

Json jsonOf(const xab::test::RunResult& r) {
  INFO(r.err);
  return parseJson(r.out);
}

}  // namespace

TEST_CASE("hung Cholesky: exit 2, host waits for 16040, three 16004 pending") {
  auto r = abstat({"--json", data("cholesky_hang.trace")});
  CHECK(r.exit_code == 2);
  Json j = jsonOf(r);
  CHECK(j["exitStatus"].num() == 2);
  CHECK(j["tasks"].arr().size() == 4);
  CHECK(j["tasks"][0]["label"].str() == "(cholhost, 0)");
  CHECK(j["tasks"][3]["instance"].num() == 2);
  const Json& hang = j["hang"];
  CHECK(hang["hung"].boolean());
  REQUIRE(hang["blocked"].arr().size() == 4);
  const Json& host = hang["blocked"][0];
  CHECK(host["task"]["label"].str() == "(cholhost, 0)");
  CHECK(host["tag"].str() == "16040");
  CHECK(host["src"]["tid"].str() == "any");
  REQUIRE(host["pending"].arr().size() == 3);
  for (const Json& p : host["pending"].arr()) {
    CHECK(p["tag"].num() == 16004);
    CHECK_FALSE(p["matches"].boolean());
  }
  CHECK_THAT(host["explanation"].str(),
             Catch::Contains("3 messages with tag 16004 from (cholnode, 0..2) are waiting for it"));
  CHECK(j["messages"]["neverReceived"].num() == 3);
  CHECK(j["messages"]["matched"].num() == 3);
  CHECK(j["mismatch"]["mismatches"].arr().empty());
}

TEST_CASE("the readable report names the hang in plain words") {
  auto r = abstat({data("cholesky_hang.trace")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("(cholhost, 0) waits for tag 16040 from any task"));
  CHECK_THAT(r.out, Catch::Contains("Time breakdown"));
  CHECK_THAT(r.out, Catch::Contains("never received: (cholnode, 0) send tag 16004"));
}

TEST_CASE("pack mismatch: exit 3, both sequences in the JSON") {
  auto r = abstat({"--json", "--mismatch", data("mismatch.trace")});
  CHECK(r.exit_code == 3);
  Json j = jsonOf(r);
  CHECK_FALSE(j.has("tasks"));  // only the sections asked for
  CHECK_FALSE(j.has("hang"));
  REQUIRE(j["mismatch"]["mismatches"].arr().size() == 1);
  const Json& m = j["mismatch"]["mismatches"][0];
  CHECK(m["packed"][1]["type"].str() == "double");
  CHECK(m["unpacked"][1]["type"].str() == "int");
  CHECK(m["partsAt"].num() == 1);
  CHECK(m["tag"].num() == 7);
}

TEST_CASE("hang and mismatch together: exit 4") {
  std::string text = xab::test::read_file(data("mismatch.trace"));
  text += "1763680000.200000000 1763680000.200000000 t40009 mytid rc=t40009 name=stuck\n"
          "1763680000.201000000 1763680000.201000000 t40009 recv.begin src=any tag=99\n";
  auto r = abstat({"--json", "-"}, &text);
  CHECK(r.exit_code == 4);
  CHECK(jsonOf(r)["exitStatus"].num() == 4);
}

TEST_CASE("barriers: the late task and its lateness and exit 0") {
  auto r = abstat({"--json", "--barriers", "--breakdown", data("barrier.trace")});
  CHECK(r.exit_code == 0);
  Json j = jsonOf(r);
  const Json& first = j["barriers"]["instances"][0];
  CHECK(first["group"].str() == "w");
  CHECK(first["lastArrival"]["label"].str() == "(worker, 2)");
  CHECK(first["lateBy"].num() == Approx(0.5));
  CHECK(j["barriers"]["totalWait"].num() == Approx(1.36));
  CHECK(j["breakdown"]["total"]["barrier"].num() == Approx(1.36));
  CHECK(j["barriers"]["perTask"][0]["share"].num() == Approx(0.7 / 3.0));
}

TEST_CASE("deadlock cycle in the JSON") {
  auto r = abstat({"--json", "--hang", data("deadlock.trace")});
  CHECK(r.exit_code == 2);
  Json j = jsonOf(r);
  REQUIRE(j["hang"]["cycles"].arr().size() == 1);
  CHECK(j["hang"]["cycles"][0].arr().size() == 2);
}

TEST_CASE("mcast and bcast: unreceived destinations, unknown bcast destinations") {
  auto r = abstat({"--json", "--messages", data("mcast.trace")});
  CHECK(r.exit_code == 0);
  Json j = jsonOf(r);
  const Json& un = j["messages"]["unreceived"];
  REQUIRE(un.arr().size() == 1);
  CHECK(un[0]["kind"].str() == "mcast");
  CHECK(un[0]["to"][0]["label"].str() == "(leaf, 2)");
  CHECK(j["messages"]["matched"].num() == 3);
}

TEST_CASE("malformed lines go to stderr with their numbers and --strict stops with 1") {
  auto r = abstat({"--tasks", data("malformed.trace")});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("malformed.trace:3: bad receive time"));
  CHECK_THAT(r.err, Catch::Contains("malformed.trace:4: bad value for tag"));
  auto j = jsonOf(abstat({"--json", "--tasks", data("malformed.trace")}));
  CHECK(j["errors"]["count"].num() == 2);
  CHECK(j["errors"]["lines"][0]["line"].num() == 3);
  auto strict = abstat({"--strict", data("malformed.trace")});
  CHECK(strict.exit_code == 1);
  CHECK_THAT(strict.err, Catch::Contains("line 3"));
}

// An input that is not a trace at all (nothing, or every
// line malformed) is an error, not a report of "0 events" with status 0.
// A header alone is a trace of nothing and still reports.
TEST_CASE("an input with neither a header nor a record: exit 1 and a clear message") {
  std::string garbage = "garbage line one\nmore garbage\n", empty, header = "#xab-trace 1 abmon=t40001\n";
  auto bad = abstat({}, &garbage);
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("no records read (2 malformed lines): is it an xab trace?"));
  CHECK(bad.out.empty());
  auto none = abstat({"--json"}, &empty);
  CHECK(none.exit_code == 1);
  CHECK_THAT(none.err, Catch::Contains("no records read (the input is empty)"));
  auto onlyHeader = abstat({"--json"}, &header);
  CHECK(onlyHeader.exit_code == 0);
  CHECK(jsonOf(onlyHeader)["trace"]["events"].num() == 0);
}

TEST_CASE("a newer format version is refused: exit 1 and a clear message") {
  auto r = abstat({data("newer_version.trace")});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("version 2 is newer"));
  CHECK(r.out.empty());
}

TEST_CASE("standard input, usage errors, --help") {
  std::string text = xab::test::read_file(data("barrier.trace"));
  auto r = abstat({"--json", "--tasks"}, &text);
  CHECK(r.exit_code == 0);
  CHECK(jsonOf(r)["tasks"].arr().size() == 3);
  CHECK(abstat({"--no-such-option"}).exit_code == 1);
  CHECK(abstat({data("a"), data("b")}).exit_code == 1);
  CHECK(abstat({"--stall"}).exit_code == 1);
  CHECK(abstat({"/nonexistent/trace"}).exit_code == 1);
  auto h = abstat({"--help"});
  CHECK(h.exit_code == 0);
  CHECK_THAT(h.out, Catch::Contains("Usage: abstat"));
  CHECK_THAT(h.out, Catch::Contains("Exit status"));
}

// A real trace of the demo's --hang whose master `timeout`
// killed while it waited: the diagnosis and the hang status survive.
TEST_CASE("a hung program killed mid-hang: exit 2, the killed master's wait and its pending messages") {
  auto r = abstat({"--json", data("demo_hang_killed.trace")});
  CHECK(r.exit_code == 2);
  Json j = jsonOf(r);
  const Json* master = nullptr;
  for (const Json& b : j["hang"]["blocked"].arr())
    if (b["task"]["label"].str() == "(xabdemo, 0)") master = &b;
  REQUIRE(master);
  CHECK((*master)["ended"].boolean());
  CHECK((*master)["endedAt"].num() > (*master)["since"].num());
  CHECK((*master)["tag"].str() == "16040");
  CHECK((*master)["pending"].arr().size() == 3);
  CHECK_THAT((*master)["explanation"].str(), Catch::Contains("3 messages with tag 16004 from (xabdemo, 1..3) were waiting for it"));
  auto text = abstat({data("demo_hang_killed.trace")});
  CHECK(text.exit_code == 2);
  CHECK_THAT(text.out, Catch::Contains("1 task ended while blocked") &&
                           Catch::Contains("(xabdemo, 0) waited for tag 16040 from any task"));
  CHECK_THAT(text.out, !Catch::Contains("no task is blocked"));
}

// A 1.4 MB line (a 700 KB mark) was read by `abstat FILE`
// and skipped by `cat FILE | abstat -`.  Every input path reads it.
TEST_CASE("a 700 KB mark is read from a file and from a pipe alike") {
  std::string text = "1.0 1.0 t1 mytid rc=t1 name=big\n1.5 1.5 t1 mark text=";
  for (int i = 0; i < 700'000; ++i) text += (i % 2) ? "%20" : "x";
  text += " rc=0\n2.0 2.0 t1 exit rc=0\n";
  std::string path = std::string(XAB_ABSTAT_TMP) + "/big_mark.trace";
  std::ofstream(path) << text;
  auto fromFile = abstat({"--json", path});
  auto fromPipe = abstat({"--json", "-"}, &text);
  for (auto* r : {&fromFile, &fromPipe}) {
    CHECK(r->exit_code == 0);
    Json j = jsonOf(*r);
    CHECK(j["errors"]["count"].num() == 0);
    CHECK(j["trace"]["events"].num() == 3);
  }
}

// Repeated serials gave contradictory totals and no
// warning; and "31 sent, 33 received" for a run with an
// mcast: sends and messages are now told apart, so the numbers add up.
TEST_CASE("a trace read twice: a warning on stderr, in the text and the JSON, and totals that add up") {
  std::string once = xab::test::read_file(data("psend_precv.trace"));
  std::string twice = once + once.substr(once.find('\n') + 1);
  auto j = abstat({"--json", "-"}, &twice);
  CHECK_THAT(j.err, Catch::Contains("warning: inconsistent input: 6 sends repeat a serial"));
  Json m = jsonOf(j)["messages"];
  CHECK(m["duplicateSerials"].num() == 6);
  CHECK(m["duplicateReceives"].num() == 0);
  CHECK_FALSE(m["consistent"].boolean());
  CHECK(m["sent"].num() == 12);
  CHECK(m["matched"].num() == 12);
  CHECK(m["neverReceived"].num() == 0);
  auto t = abstat({"-"}, &twice);
  CHECK_THAT(t.out, Catch::Contains("12 sends, 12 messages (one per destination): 12 received and matched, 0 never received") &&
                        Catch::Contains("  warning: inconsistent input"));
  auto clean = abstat({data("psend_precv.trace")});
  CHECK(clean.err.empty());
  CHECK_THAT(clean.out, !Catch::Contains("warning"));
}

TEST_CASE("an mcast: sends and messages are counted apart, so the numbers add up") {
  auto t = abstat({data("mcast.trace")});
  CHECK_THAT(t.out, Catch::Contains("2 sends, 4 messages (one per destination): 3 received and matched, 1 never received;"));
  Json m = jsonOf(abstat({"--json", data("mcast.trace")}))["messages"];
  CHECK(m["messages"].num() == m["matched"].num() + m["unreceivedMessages"].num());
}

// abstat named standard input "-" in its messages ("-:3: ...")
// where the translators say "<stdin>:3: ..."; both now take FILE from the
// model's TraceSource.  The report itself still names its source "-".
TEST_CASE("standard input is <stdin> in every message, as in the translators'") {
  std::string malformed = xab::test::read_file(data("malformed.trace"));
  auto r = abstat({"--tasks", "-"}, &malformed);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("abstat: <stdin>:3: bad receive time"));
  CHECK_THAT(r.err, Catch::Contains("abstat: <stdin>:4: bad value for tag"));
  CHECK_THAT(r.out, Catch::StartsWith("trace -: "));
  auto strict = abstat({"--strict"}, &malformed);
  CHECK(strict.exit_code == 1);
  CHECK_THAT(strict.err, Catch::Contains("abstat: <stdin>: line 3: bad receive time"));
  std::string garbage = "garbage\n";
  CHECK_THAT(abstat({}, &garbage).err, Catch::Contains("abstat: <stdin>: no records read (1 malformed line)"));
}
