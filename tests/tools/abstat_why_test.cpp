// abstat --why on traces whose truth is known: the causes ranked, in words
// and in JSON, the root cause of a chain before its symptom, the critical
// path, and nothing to say for a run without waiting.
#include "json.h"
#include <xab/test/process.h>

#include <catch2/catch.hpp>

#include <cmath>
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

// (c) computes until 3.0 s and sends to (b); (b), waiting since 1.0 s,
// works 0.5 s and sends to (a), waiting since 1.0 s.
const char* kChain =
    "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.000000000\n"
    "1000.0 1000.0 t40002 mytid rc=t40002 name=a\n"
    "1000.0 1000.0 t40003 mytid rc=t40003 name=b\n"
    "1000.0 1000.0 t40004 mytid rc=t40004 name=c\n"
    "1001.0 1001.0 t40002 recv.begin src=t40003 tag=7\n"
    "1003.5 1003.5 t40002 recv src=t40003 tag=7 bytes=4 serial=1 rc=1\n"
    "1003.6 1003.6 t40002 exit rc=0\n"
    "1001.0 1001.0 t40003 recv.begin src=t40004 tag=7\n"
    "1003.0 1003.0 t40003 recv src=t40004 tag=7 bytes=4 serial=1 rc=1\n"
    "1003.5 1003.5 t40003 send dst=t40002 tag=7 bytes=4 serial=1 rc=0\n"
    "1003.55 1003.55 t40003 exit rc=0\n"
    "1003.0 1003.0 t40004 send dst=t40003 tag=7 bytes=4 serial=1 rc=0\n"
    "1003.1 1003.1 t40004 exit rc=0\n";

}  // namespace

TEST_CASE("abstat --why: the last to arrive at the barriers, in words") {
  auto r = abstat({"--why", data("barrier.trace")});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Why slow: 1.030 s of waiting in 4 wait states"));
  CHECK_THAT(r.out, Catch::Contains("1. (worker, 2) computes 1.2x as long as the other (worker) tasks and was the last "
                                    "to arrive at 2 of its 2 barriers: its own work cost others 1.030 s of waiting "
                                    "(100.0 %): (worker, 0,1) at barrier 'w', 1.030 s in 4 waits"));
  CHECK_THAT(r.out, Catch::Contains("critical path 3.000 s:"));
  // Only the section asked for.
  CHECK_THAT(r.out, !Catch::Contains("Barriers"));
  // And not among the default sections.
  auto all = abstat({data("barrier.trace")});
  CHECK_THAT(all.out, !Catch::Contains("Why slow"));
}

TEST_CASE("abstat --why --json: a chain's root cause first, its symptom after") {
  auto r = abstat({"--why", "--json", write("chain.trace", kChain)});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  Json j = parseJson(r.out);
  const auto& why = j["why"].arr();
  REQUIRE(why.size() == 2);
  CHECK(why[0]["task"]["label"].str() == "(c, 0)");
  CHECK(why[0]["pattern"].str() == "lateSender");
  CHECK(why[0]["waitCaused"].num() == Approx(4.0));
  CHECK(why[0]["share"].num() == Approx(4.0 / 4.5));
  CHECK(why[0]["instances"].num() == 2);
  CHECK(why[1]["task"]["label"].str() == "(b, 0)");
  CHECK(why[1]["waitCaused"].num() == Approx(0.5));
  CHECK(j["waits"]["total"].num() == Approx(4.5));
  CHECK(j["waits"]["patterns"]["lateSender"]["count"].num() == 2);
  const Json& b = j["waits"]["perTask"][1];
  CHECK(b["task"]["label"].str() == "(b, 0)");
  CHECK(b["symptom"].boolean());
  CHECK(b["passedOn"].num() == Approx(2.0));
  const Json& path = j["criticalPath"];
  CHECK(path["length"].num() == Approx(3.6));
  REQUIRE(path["tasks"].arr().size() == 3);
  CHECK(path["tasks"][2]["task"]["label"].str() == "(c, 0)");
  CHECK(path["tasks"][2]["time"].num() == Approx(3.0));
  CHECK_THAT(j["whyText"]["symptoms"][0].str(),
             Catch::Contains("(b, 0) kept others waiting 2.500 s, 2.000 s of it only because it was kept waiting itself"));
}

TEST_CASE("abstat --why: a run without waiting says so") {
  const char* even =
      "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.000000000\n"
      "1000.0 1000.0 t40002 mytid rc=t40002 name=a\n"
      "1000.0 1000.0 t40003 mytid rc=t40003 name=b\n"
      "1000.1 1000.1 t40003 send dst=t40002 tag=7 bytes=4 serial=1 rc=0\n"
      "1000.5 1000.5 t40002 recv.begin src=t40003 tag=7\n"
      "1000.501 1000.501 t40002 recv src=t40003 tag=7 bytes=4 serial=1 rc=1\n";
  auto r = abstat({"--why", write("even.trace", even)});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Why slow: no task waited for another"));
  auto j = parseJson(abstat({"--why", "--json", write("even.trace", even)}).out);
  CHECK(j["why"].arr().empty());
  CHECK(j["waits"]["count"].num() == 0);
}

namespace {
// kChain with (c) computing `extra` seconds longer: every later time moves.
std::string slower(double extra) {
  std::string out, text = kChain;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    at = end + 1;
    double t = 0;
    if (line[0] != '#' && std::sscanf(line.c_str(), "%lf", &t) == 1 && t >= 1003.0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9f", t + extra);
      std::size_t sp = line.find(' '), sp2 = line.find(' ', sp + 1);
      line = std::string(buf) + " " + buf + line.substr(sp2);
    }
    out += line + "\n";
  }
  return out;
}
}  // namespace

TEST_CASE("abstat --compare: the cause's compute first, the waits it explains after it") {
  std::string a = write("chain-a.trace", kChain), b = write("chain-b.trace", slower(1.0));
  auto r = abstat({"--compare", "--json", a, b});
  INFO(r.err << r.out);
  REQUIRE(r.exit_code == 0);
  Json c = parseJson(r.out)["compare"];
  CHECK(c["sameShape"].boolean());
  const auto& d = c["differences"].arr();
  // (c)'s compute grew by 1 s; it explains (b)'s 1 s and (a)'s 1 s more waiting.
  std::size_t i = 0;
  while (i < d.size() && !(d[i]["what"].str() == "compute" && d[i]["task"]["label"].str() == "(c, 0)")) ++i;
  REQUIRE(i < d.size());
  CHECK(d[i]["delta"].num() == Approx(1.0));
  REQUIRE(d[i]["explains"].arr().size() == 2);
  CHECK(d[i + 1]["explainedBy"].num() == i);
  CHECK(d[i + 1]["what"].str() == "wait: late sender");
  CHECK(d[i + 1]["delta"].num() == Approx(1.0));
  CHECK(d[i + 2]["explainedBy"].num() == i);
  for (std::size_t k = 1; k < i; ++k) CHECK(std::fabs(d[k - 1]["delta"].num()) >= std::fabs(d[k]["delta"].num()));
  // Three runs: each task's spread.
  auto three = parseJson(abstat({"--json", "--compare", a, b, write("chain-c.trace", slower(0.5))}).out)["compare"];
  REQUIRE(three["spread"].arr().size() == 3);
  const Json& cs = three["spread"][2];
  CHECK(cs["task"].str() == "(c, 0)");
  CHECK(cs["maxCompute"].num() - cs["minCompute"].num() == Approx(1.0));
  CHECK(cs["meanCompute"].num() == Approx(cs["minCompute"].num() + 0.5));
}

TEST_CASE("abstat --compare: runs of another program are told apart") {
  auto r = abstat({"--compare", write("chain-a.trace", kChain), data("barrier.trace")});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("Different program shape") && Catch::Contains("tasks only in the first run: (a, 0), (b, 0), (c, 0)") &&
                        Catch::Contains("tasks only in the second run: (worker, 0), (worker, 1), (worker, 2)"));
  CHECK_THAT(r.err, Catch::Contains("are of a different program shape"));
  auto usage = abstat({"--compare", data("barrier.trace")});
  CHECK(usage.exit_code == 1);
  CHECK_THAT(usage.err, Catch::Contains("--compare needs two traces or more"));
}
