// abstat's words for what a trace already knows: pack checks of psend and
// precv, failed calls, hang counts, and the clock table only when asked
// for or when the fit is poor.  Each trace is written here, its truth known.
#include "json.h"
#include <xab/test/process.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

using xab::test::Json;
using xab::test::parseJson;
using xab::test::run;

namespace {

std::string data(const std::string& name) { return std::string(XAB_MODEL_DATA) + "/" + name; }

std::string write(const std::string& name, const std::string& text) {
  std::string path = std::string(XAB_ABSTAT_TMP) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

xab::test::RunResult abstat(std::vector<std::string> args) {
  args.insert(args.begin(), XAB_ABSTAT);
  return run(args, {}, std::chrono::seconds(120));
}

Json jsonOf(const xab::test::RunResult& r) {
  INFO(r.err);
  return parseJson(r.out);
}

// One task's clock records: 16 exchanges of 30 us at 0 s, 5 s and 10 s;
// its clock `jumpNs` off in the middle block (a clock that jumped back).
std::string clockTrace(long long jumpNs) {
  const long long t0 = 1'700'000'000'000'000'000LL;
  auto s = [](long long t) {
    char b[40];
    std::snprintf(b, sizeof b, "%lld.%09lld", t / 1'000'000'000, t % 1'000'000'000);
    return std::string(b);
  };
  std::string text = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=" + s(t0) + "\n";
  text += s(t0) + " " + s(t0) + " t40002 mytid rc=t40002 name=a\n";
  for (int phase = 0; phase < 3; ++phase)
    for (int k = 0; k < 16; ++k) {
      long long t = t0 + phase * 5'000'000'000LL + k * 100'000, t2 = t + 15'000, t3 = t2 + 2'000;
      text += s(t3) + " " + s(t + (phase == 1 ? jumpNs : 0)) + " t40002 clock ref=t40001 ref_s=" +
              std::to_string(t2 / 1'000'000'000) + " ref_ns=" + std::to_string(t2 % 1'000'000'000) +
              " turn_ns=2000 rtt_ns=32000 phase=" + std::to_string(phase) + " rc=" + std::to_string(k) + "\n";
    }
  text += s(t0 + 11'000'000'000LL) + " " + s(t0 + 11'000'000'000LL) + " t40002 exit rc=0\n";
  return text;
}

}  // namespace

TEST_CASE("abstat: a psend of a double taken by precv as an int is a mismatch") {
  auto path = write("psend_precv_int.trace",
                    "1.0 1.0 t1 mytid rc=t1 name=snd\n"
                    "1.1 1.1 t1 psend dst=t2 tag=1 bytes=8 serial=1 type=double n=1 rc=0\n"
                    "1.0 1.0 t2 mytid rc=t2 name=rcv\n"
                    "1.2 1.2 t2 precv.begin src=t1 tag=1 type=int n=1 rc=0\n"
                    "1.3 1.3 t2 precv src=t1 tag=1 bytes=8 serial=1 type=int n=1 rc=0\n");
  auto r = abstat({"--mismatch", path});
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.out, Catch::Contains("1 receives checked, 1 mismatched"));
  CHECK_THAT(r.out, Catch::Contains("(snd, 0) -> (rcv, 0) tag 1 serial 1: pvm_precv receives int x1 where double x1 was sent"));
  Json j = jsonOf(abstat({"--json", path}));
  CHECK(j["mismatch"]["checked"].num() == 1);
  CHECK(j["mismatch"]["status"].str() == "checked");
  REQUIRE(j["mismatch"]["mismatches"].arr().size() == 1);
  CHECK(j["mismatch"]["mismatches"][0]["unpacked"][0]["type"].str() == "int");
}

TEST_CASE("abstat: a trace without pack records says it was not checked") {
  auto path = write("no_packs.trace",
                    "1.0 1.0 t1 mytid rc=t1 name=snd\n"
                    "1.1 1.1 t1 initsend enc=0 rc=1\n"
                    "1.2 1.2 t1 send dst=t2 tag=1 bytes=8 serial=1 rc=0\n"
                    "1.0 1.0 t2 mytid rc=t2 name=rcv\n"
                    "1.3 1.3 t2 recv src=t1 tag=1 bytes=8 serial=1 rc=3\n");
  auto r = abstat({"--mismatch", path});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("not checked: no pack records"));
  CHECK_THAT(r.out, !Catch::Contains("receives checked"));
  Json j = jsonOf(abstat({"--json", path}));
  CHECK(j["mismatch"]["status"].str() == "no pack records");
  CHECK(j["mismatch"]["records"].num() == 0);
  CHECK(j["mismatch"]["checked"].num() == 0);
}

TEST_CASE("abstat: every failed call, with PVM's error name, and a timeout taken for a message") {
  auto path = write("failed_calls.trace",
                    "1.0 1.0 t1 mytid rc=t1 name=ring\n"
                    "1.1 1.1 t1 psend dst=none tag=1 bytes=8 serial=0 type=double n=1 rc=-2\n"
                    "1.2 1.2 t1 trecv.begin src=any tag=5 timeout=100000 rc=0\n"
                    "1.3 1.3 t1 trecv src=any tag=5 bytes=0 serial=0 rc=0\n"
                    "1.4 1.4 t1 upkint type=int n=1 stride=1 rc=-15\n"
                    "1.5 1.5 t1 upkint type=int n=1 stride=1 rc=-15\n");
  auto r = abstat({path});
  CHECK(r.exit_code == 0);  // failures are reported, they do not change the status
  CHECK_THAT(r.out, Catch::Contains("Failed calls (3)"));
  CHECK_THAT(r.out, Catch::Contains("(ring, 0): pvm_psend failed once with PvmBadParam (-2), at 0.100000 s"));
  CHECK_THAT(r.out, Catch::Contains("(ring, 0): pvm_upkint failed 2 times with PvmNoBuf (-15), first at 0.400000 s"));
  CHECK_THAT(r.out, Catch::Contains("(ring, 0) took a timeout for a message: pvm_trecv timed out (rc=0) at 0.300000 s"));
  auto only = abstat({"--failures", path});
  CHECK_THAT(only.out, Catch::Contains("Failed calls (3)") && !Catch::Contains("Messages"));
  Json j = jsonOf(abstat({"--json", path}));
  const Json& f = j["failures"];
  CHECK(f["failed"].num() == 3);
  REQUIRE(f["calls"].arr().size() == 2);
  CHECK(f["calls"][0]["call"].str() == "psend");
  CHECK(f["calls"][0]["error"].str() == "PvmBadParam");
  CHECK(f["calls"][0]["rc"].num() == -2);
  CHECK(f["calls"][1]["error"].str() == "PvmNoBuf");
  CHECK(f["calls"][1]["count"].num() == 2);
  CHECK(f["calls"][1]["record"].num() == 4);
  REQUIRE(f["timeouts"].arr().size() == 1);
  CHECK(f["timeouts"][0]["call"].str() == "trecv");
  CHECK(f["timeouts"][0]["unpacks"].num() == 2);
  // The timeout itself is listed too, with the time it waited.
  CHECK_THAT(r.out, Catch::Contains("Receives that timed out (1)\n  (ring, 0): pvm_trecv timed out once, waiting 0.100000 s, at 0.300000 s"));
  CHECK(f["timedOutCount"].num() == 1);
  REQUIRE(f["timedOut"].arr().size() == 1);
  CHECK(f["timedOut"][0]["count"].num() == 1);
  CHECK(f["timedOut"][0]["record"].num() == 3);
  CHECK(f["timedOut"][0]["waited"].num() == Approx(0.1));
}

TEST_CASE("abstat: a task killed while blocked is not counted among the blocked") {
  auto r = abstat({"--hang", data("demo_hang_killed.trace")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("Hang: 3 tasks blocked, 1 ended while blocked"));
  Json j = jsonOf(abstat({"--json", data("demo_hang_killed.trace")}));
  CHECK(j["hang"]["stillBlocked"].num() == 3);
  CHECK(j["hang"]["endedBlocked"].num() == 1);
  CHECK(j["hang"]["blocked"].arr().size() == 4);
  CHECK(j["hang"]["headline"].str() == "3 tasks blocked, 1 ended while blocked");
}

TEST_CASE("abstat: the clock table by default only when the fit is poor, with --clocks always") {
  auto good = write("clock_good.trace", clockTrace(0));
  auto poor = write("clock_poor.trace", clockTrace(3'000'000));
  auto g = abstat({good});
  CHECK(g.exit_code == 0);
  CHECK_THAT(g.out, !Catch::Contains("Clocks ("));
  auto gc = abstat({"--clocks", good});
  CHECK_THAT(gc.out, Catch::Contains("Clocks (") && !Catch::Contains("the fit is poor") && !Catch::Contains("Tasks\n"));
  auto p = abstat({poor});
  CHECK_THAT(p.out, Catch::Contains("Clocks (") &&
                        Catch::Contains("the fit is poor (1 task: (a, 0): a sample 2000.0 us off the fitted line"));
  Json jg = jsonOf(abstat({"--json", good}));
  CHECK_FALSE(jg["clock"]["poor"].boolean());
  Json jp = jsonOf(abstat({"--json", poor}));
  CHECK(jp["clock"]["poor"].boolean());
  CHECK(jp["clock"]["tasks"][0]["poor"].boolean());
}

TEST_CASE("abstat: JSON strings escape control characters and keep DEL (0x7f) as it is") {
  // A task name and a mark's text with DEL, tab, line feed, carriage return
  // (the trace %-escapes them): RFC 8259 escapes U+0000..U+001F, not DEL.
  auto path = write("control_bytes.trace",
                    "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1700000000.000000000\n"
                    "1700000000.000000000 1700000000.000000000 t40002 mytid rc=t40002 name=w%7fx%0ay%09z%0d "
                    "host=vm parent=none lang=c pid=300\n"
                    "1700000001.000000000 1700000001.000000000 t40002 exit rc=0\n");
  auto r = abstat({"--json", path});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"name\": \"w\x7fx\\ny\\tz\\r\"") && !Catch::Contains("\\u007f"));
  CHECK(jsonOf(r)["tasks"][0]["name"].str() == "w\x7fx\ny\tz\r");
}
