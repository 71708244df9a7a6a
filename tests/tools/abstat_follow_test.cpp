// abstat --follow on a live pipe and on a growing file.
#include "json.h"
#include <xab/test/process.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using Child = xab::test::InteractiveProcess;
using xab::test::parseJson;

namespace {

std::string data(const std::string& name) { return std::string(XAB_MODEL_DATA) + "/" + name; }

}  // namespace

TEST_CASE("follow mode on a pipe reprints the hang diagnosis when progress stops") {
  Child c({XAB_ABSTAT, "--follow", "--stall", "0.3", "--hang", "-"});
  c.write(xab::test::read_file(data("cholesky_hang.trace")));  // the pipe stays open: abmon still running
  REQUIRE(c.read_until("no progress for"));
  CHECK_THAT(c.out(), Catch::Contains("(cholhost, 0) waits for tag 16040 from any task"));
  CHECK(c.wait() == 2);  // the pipe closed: final report, hang
}

TEST_CASE("follow mode with --json prints JSON Lines: stall reports, then the final one") {
  Child c({XAB_ABSTAT, "--follow", "--json", "--stall", "0.3", "-"});
  c.write(xab::test::read_file(data("cholesky_hang.trace")));
  REQUIRE(c.read_until("\n"));
  CHECK(c.wait() == 2);
  std::istringstream lines(c.out());
  std::string line;
  int n = 0;
  bool sawStall = false;
  while (std::getline(lines, line)) {
    auto j = parseJson(line);
    ++n;
    if (j["trace"].has("stalledFor")) sawStall = true;
    CHECK(j["hang"]["hung"].boolean());
  }
  CHECK(sawStall);
  CHECK(n >= 2);
}

TEST_CASE("follow mode on a growing file reads until abmon stops") {
  char path[] = "/tmp/abstat-follow-XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::string text = xab::test::read_file(data("barrier.trace"));
  std::size_t half = text.size() / 2;
  {
    std::ofstream f(path);
    f << text.substr(0, half);  // ends inside a line
  }
  Child c({XAB_ABSTAT, "--follow", "--stall", "0.3", "--json", "--barriers", path});
  {
    std::ofstream f(path, std::ios::app);
    f << text.substr(half) << "1763680005.000000000 1763680005.000000000 t40001 abmon.stop events=21 tasks=3 bad=0\n";
  }
  CHECK(c.wait() == 0);
  std::remove(path);
  std::string last = c.out().substr(c.out().rfind("{\"abstat\""));
  auto j = parseJson(last);
  CHECK(j["trace"]["stopped"].boolean());
  CHECK(j["barriers"]["instances"].arr().size() == 2);
}
