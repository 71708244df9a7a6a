// ab2otf2: every archive written is read back by otf2-print (Debian's
// otf2-tools), run as a process; its listing is the golden, and the counts
// of messages and collectives are checked against the trace model.
#include "support.h"

#include <xab/model/barriers.h>
#include <xab/model/messages.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

using namespace xab;
using namespace xab::tr;
using namespace xab::tr::test;

namespace {

std::size_t countLines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) n += line.rfind(prefix, 0) == 0;
  return n;
}

// ab2otf2 then otf2-print; returns the event listing.
std::string translateAndPrint(const std::string& name, const std::string& extra = "") {
  std::string dir = tempDir() + "/archive";
  Run r = run(binPath("ab2otf2") + " --quiet -o " + dir + " " + dataPath(name));
  INFO(r.err);
  REQUIRE(r.exit == 0);
  Run p = run(std::string(XAB_OTF2_PRINT) + " " + extra + " " + dir + "/traces.otf2");
  INFO(p.err);
  REQUIRE(p.exit == 0);
  CHECK(p.err.empty());
  return p.out;
}

std::size_t receivedMessages(const Trace& t) {
  std::size_t n = 0;
  for (const Message& m : matchMessages(t).messages) n += m.receives.size();
  return n;
}

// MpiSend events: one per destination a send names (received or not); a
// bcast's are the receivers (its group's other members).
std::size_t sentMessages(const Trace& t) {
  std::size_t n = 0;
  for (const Message& m : matchMessages(t).messages) n += m.destinationsKnown ? m.destinations.size() : m.receives.size();
  return n;
}

}  // namespace

TEST_CASE("ab2otf2 archives print as the goldens", "[otf2]") {
  for (const char* name : {"pingpong", "collective"})
    checkGolden(std::string(name) + ".otf2.txt", translateAndPrint(std::string(name) + ".trace"));
}

TEST_CASE("ab2otf2: otf2-print shows a send per destination and a receive per received message", "[otf2]") {
  for (const char* name : {"pingpong.trace", "collective.trace", "../../model/data/cholesky_hang.trace",
                           "../../model/data/psend_precv.trace", "../../model/data/bcast_left.trace",
                           "../../model/data/ge.trace", "../../model/data/handler.trace"}) {
    INFO(name);
    auto t = loadData(name);
    std::string out = translateAndPrint(name);
    CHECK(countLines(out, "MPI_SEND ") == sentMessages(*t));
    CHECK(countLines(out, "MPI_RECV ") == receivedMessages(*t));
    CHECK(countLines(out, "ENTER ") == countLines(out, "LEAVE "));
  }
}

// pvm_precv returns 0 on success; every precv of a real pbwtest
// run was dropped.
TEST_CASE("ab2otf2: psend/precv of a real pbwtest run: a receive per precv", "[otf2]") {
  std::string out = translateAndPrint("../../model/data/psend_precv.trace");
  CHECK(countLines(out, "MPI_SEND ") == 6);
  CHECK(countLines(out, "MPI_RECV ") == 6);
}

// Messages a pvm_addmhf handler took are received.
TEST_CASE("ab2otf2: messages taken by a handler (a real run) are received", "[otf2]") {
  std::string out = translateAndPrint("../../model/data/handler.trace");
  CHECK(countLines(out, "MPI_SEND ") == 3);
  CHECK(countLines(out, "MPI_RECV ") == 3);
}

// The members had left the group before the root's records
// were read, so inferring a bcast's destinations from the group dropped them.
TEST_CASE("ab2otf2: a bcast sends to its dst= members, even after they left the group", "[otf2]") {
  std::string out = translateAndPrint("../../model/data/bcast_left.trace");
  CHECK(countLines(out, "MPI_SEND ") == 15);
  CHECK(countLines(out, "MPI_RECV ") == 15);
}

// A location gets its OTF2 writer once it has 1024 calls (the calls before
// wait in memory); the others are written at the end.  Both paths must
// give every event, in each location's order.
TEST_CASE("ab2otf2: a task of thousands of calls and one of one both have every event", "[otf2]") {
  const int n = 3000;
  std::string dir = tempDir();
  {
    std::ofstream out(dir + "/many.trace");
    out << "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.0\n";
    char line[160];
    auto at = [](long long ns) {  // seconds.nanoseconds, twice
      char t[48];
      std::snprintf(t, sizeof t, "%lld.%09lld %lld.%09lld", 1763680000LL + ns / 1000000000, ns % 1000000000,
                    1763680000LL + ns / 1000000000, ns % 1000000000);
      return std::string(t);
    };
    for (int i = 1; i <= n; ++i) {
      long long ns = 1000000LL * i;
      std::snprintf(line, sizeof line, " t40002 send dst=t40003 tag=1 bytes=4 serial=%d rc=0\n", i);
      out << at(ns) << line;
      out << at(ns + 500) << " t40003 recv.begin src=t40002 tag=1\n";
      std::snprintf(line, sizeof line, " t40003 recv src=t40002 tag=1 bytes=4 serial=%d rc=1\n", i);
      out << at(ns + 900) << line;
    }
    out << "1763680003.100000000 1763680003.100000000 t40004 mytid rc=t40004\n";
  }
  Run r = run(binPath("ab2otf2") + " -o " + dir + "/archive " + dir + "/many.trace");
  INFO(r.err);
  REQUIRE(r.exit == 0);
  CHECK_THAT(r.err, Catch::Contains("3 locations"));
  Run p = run(std::string(XAB_OTF2_PRINT) + " " + dir + "/archive/traces.otf2");
  INFO(p.err);
  REQUIRE(p.exit == 0);
  CHECK(countLines(p.out, "MPI_SEND ") == static_cast<std::size_t>(n));
  CHECK(countLines(p.out, "MPI_RECV ") == static_cast<std::size_t>(n));
  CHECK(countLines(p.out, "ENTER ") == static_cast<std::size_t>(2 * n + 1));
  CHECK(countLines(p.out, "LEAVE ") == static_cast<std::size_t>(2 * n + 1));
  // Each location's events in time order (otf2-print merges them by time).
  std::istringstream in(p.out);
  std::string line;
  std::map<std::string, std::uint64_t> last;
  std::size_t backwards = 0;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string kind, loc;
    std::uint64_t time = 0;
    if (!(f >> kind >> loc >> time)) continue;
    if (kind != "ENTER" && kind != "LEAVE" && kind != "MPI_SEND" && kind != "MPI_RECV") continue;
    backwards += time < last[loc];
    last[loc] = time;
  }
  CHECK(backwards == 0);
  CHECK(last.size() == 3);
}

TEST_CASE("ab2otf2: barriers are collectives, one per visit", "[otf2]") {
  auto t = loadData("collective.trace");
  std::size_t visits = 0;
  for (const BarrierInstance& b : analyzeBarriers(*t).instances) visits += b.visits.size();
  std::string out = translateAndPrint("collective.trace");
  std::istringstream lines(out);
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line))
    n += line.starts_with("MPI_COLLECTIVE_END ") &&
         line.find("Operation: BARRIER, Communicator: \"group w\"") != std::string::npos;
  CHECK(n == visits);
  CHECK(n == 4);
  CHECK(countLines(out, "MPI_COLLECTIVE_BEGIN ") == 8);  // 4 barrier, 4 reduce
}

TEST_CASE("ab2otf2: definitions name a location per task and the communicators", "[otf2]") {
  std::string defs = translateAndPrint("pingpong.trace", "-G");
  CHECK(countLines(defs, "LOCATION ") == 2);
  CHECK(countLines(defs, "LOCATION_GROUP ") == 2);
  CHECK_THAT(defs, Catch::Contains("\"(ping, 0)\""));
  CHECK_THAT(defs, Catch::Contains("\"pvm (all tasks)\""));
  CHECK_THAT(defs, Catch::Contains("\"group all\""));
  CHECK_THAT(defs, Catch::Contains("\"pvm_recv\""));
}

TEST_CASE("ab2otf2: needs -o DIR, refuses an existing archive, reports bad input", "[otf2][cli]") {
  Run r = run(binPath("ab2otf2") + " " + dataPath("pingpong.trace"));
  CHECK(r.exit == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("-o DIR"));
  std::string dir = tempDir();
  r = run(binPath("ab2otf2") + " -o " + dir + " " + dataPath("pingpong.trace"));
  CHECK(r.exit == 0);
  CHECK_THAT(r.err, Catch::Contains("2 locations"));
  r = run(binPath("ab2otf2") + " -o " + dir + " " + dataPath("pingpong.trace"));
  CHECK(r.exit == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("already holds an OTF2 archive"));
  r = run(binPath("ab2otf2") + " -o " + dir + "/new " + dataPath("malformed.trace"));
  CHECK(r.exit == kExitBadInput);
  CHECK_THAT(r.err, Catch::Contains("malformed.trace:4: bad receive time"));
  r = run("printf '#xab-trace 1\\n' | " + binPath("ab2otf2") + " -o " + dir + "/empty -");
  CHECK(r.exit == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("the trace has no tasks"));
  r = run(binPath("ab2otf2") + " --help");
  CHECK(r.exit == 0);
  CHECK_THAT(r.out, Catch::Contains("usage: ab2otf2"));
}
