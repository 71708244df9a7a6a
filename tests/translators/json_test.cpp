// ab2json: goldens, valid JSON (python3's json module as a process), one
// flow per received message, barrier waits, metadata.
#include "support.h"

#include <xab/model/messages.h>
#include <xab/translators/json.h>

#include <catch2/catch.hpp>

#include <fstream>

using namespace xab;
using namespace xab::tr;
using namespace xab::tr::test;

namespace {

std::string toJson(const Trace& t, JsonWriteStats* stats = nullptr) {
  std::string text;
  Sink sink;
  sink.captureTo(&text);
  JsonWriteStats s = writeJson(t, sink);
  sink.finish();
  if (stats) *stats = s;
  return text;
}

// Summarises a JSON trace with python3: it must parse, every flow end must
// have exactly one start (an mcast's flow has one end per receive), and
// "arrows" counts the ends that have their start.
constexpr const char* kSummary = R"PY(
import json, sys, collections
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
ph = collections.Counter(e["ph"] for e in ev)
starts = collections.Counter(e["id"] for e in ev if e["ph"] == "s")
ends = collections.Counter(e["id"] for e in ev if e["ph"] == "f")
paired = all(starts[i] == 1 for i in ends)
arrows = sum(n for i, n in ends.items() if starts[i] == 1)
names = sorted(set(e["name"] for e in ev if e["ph"] == "X" and e["name"].startswith("barrier")))
meta = sorted(e["args"]["name"] for e in ev if e["ph"] == "M")
print("X=%d i=%d s=%d f=%d M=%d paired=%s arrows=%d" % (ph["X"], ph["i"], ph["s"], ph["f"], ph["M"], paired, arrows))
print("|".join(names))
print("|".join(meta))
)PY";

std::string summarise(const std::string& json) {
  std::string dir = tempDir();
  std::ofstream(dir + "/t.json") << json;
  std::ofstream(dir + "/s.py") << kSummary;
  Run r = run("python3 " + dir + "/s.py " + dir + "/t.json");
  INFO(r.err);
  REQUIRE(r.exit == 0);
  return r.out;
}

std::size_t receivedMessages(const Trace& t) {
  std::size_t n = 0;
  for (const Message& m : matchMessages(t).messages) n += m.receives.size();
  return n;
}

}  // namespace

TEST_CASE("ab2json writes the goldens", "[json]") {
  for (const char* name : {"pingpong", "collective"})
    checkGolden(std::string(name) + ".json", toJson(*loadData(std::string(name) + ".trace")));
}

TEST_CASE("ab2json output parses, with one flow per received message", "[json]") {
  auto t = loadData("collective.trace");
  JsonWriteStats stats;
  std::string s = summarise(toJson(*t, &stats));
  CHECK(receivedMessages(*t) == 6);  // the mcast got by 3, the bcast by 3
  CHECK(stats.flows == 6);
  // Two messages: two flow starts, six ends.
  CHECK_THAT(s, Catch::StartsWith("X=" + std::to_string(stats.slices) + " i=0 s=2 f=6 M=5 paired=True arrows=6\n"));
  CHECK_THAT(s, Catch::Contains("\nbarrier wait (w)\n"));
  CHECK_THAT(s, Catch::Contains("(worker, 2) t40005|host vm"));
}

// pvm_precv returns 0 on success; a real pbwtest run (psend/precv)
// drew no flow at all.
TEST_CASE("ab2json: psend/precv of a real pbwtest run draw one flow per message", "[json]") {
  auto t = loadData("../../model/data/psend_precv.trace");
  JsonWriteStats stats;
  std::string s = summarise(toJson(*t, &stats));
  CHECK(stats.flows == 6);
  CHECK_THAT(s, Catch::Contains(" s=6 f=6 ") && Catch::Contains(" paired=True arrows=6\n"));
}

TEST_CASE("ab2json: marks and task exits are instants, hosts are processes", "[json]") {
  auto t = loadData("pingpong.trace");
  JsonWriteStats stats;
  std::string s = summarise(toJson(*t, &stats));
  CHECK(stats.flows == receivedMessages(*t));
  CHECK(stats.flows == 4);
  CHECK(stats.instants == 2);  // the mark, pong's task.exit
  CHECK(matchMessages(*t).sent == 4);
  CHECK_THAT(s, Catch::Contains("i=2 s=4 f=4 M=4 paired=True arrows=4"));
  CHECK_THAT(s, Catch::Contains("(ping, 0) t40002|(pong, 0) t80001|host alpha|host beta"));
}

TEST_CASE("ab2json escapes what JSON cannot hold", "[json]") {
  std::string out;
  Sink sink;
  sink.captureTo(&out);
  putJsonString(sink, std::string("a\"b\\c\n\x01\xe9\x7f\t\r", 11));
  sink.finish();
  // As abstat's JSON (xab/model/json_string.h): DEL is not escaped.
  CHECK(out == "\"a\\\"b\\\\c\\n\\u0001\\u00e9\x7f\\t\\r\"");
}

TEST_CASE("ab2json: the command, its errors and a pipe", "[json][cli]") {
  Run r = run(binPath("ab2json") + " --quiet < " + dataPath("pingpong.trace") + " | python3 -m json.tool > /dev/null");
  CHECK(r.exit == 0);
  r = run(binPath("ab2json") + " " + dataPath("malformed.trace"));
  CHECK(r.exit == kExitBadInput);
  CHECK_THAT(r.err, Catch::Contains("malformed.trace:4: bad receive time"));
  r = run(binPath("ab2json") + " --help");
  CHECK(r.exit == 0);
  CHECK_THAT(r.out, Catch::Contains("usage: ab2json"));
  std::string dir = tempDir();
  r = run(binPath("ab2json") + " -o " + dir + "/x.json " + dataPath("collective.trace"));
  CHECK(r.exit == 0);
  CHECK_THAT(r.err, Catch::Contains("6 message flows"));
  CHECK(readFile(dir + "/x.json") == readFile(dataPath("golden/collective.json")));
}

TEST_CASE("a trace with no records translates to empty but valid output", "[json][picl][audio]") {
  LoadResult r = loadTraceText("#xab-trace 1 abmon=t40001 host=vm pid=1 start=0.0\n");
  REQUIRE(r.trace);
  std::string s = summarise(toJson(*r.trace));
  CHECK_THAT(s, Catch::StartsWith("X=0 i=0 s=0 f=0 M=0 paired=True arrows=0"));
  Run picl = run("printf '#xab-trace 1\\n' | " + binPath("ab2picl") + " --quiet");
  CHECK(picl.exit == 0);
  CHECK(picl.out.empty());
  Run au = run("printf '#xab-trace 1\\n' | " + binPath("ab2au") + " --quiet send 1 10 1000 | wc -c");
  CHECK(au.exit == 0);
  CHECK(au.out == "34\n");  // the 24-byte header and one quiet step of 10 samples
}

// No header and no record (nothing, or every line skipped
// with --lenient) is not a trace: exit 2 and a message, no empty output.
TEST_CASE("an input with neither a header nor a record is refused by every translator", "[json][picl][audio]") {
  for (const char* cmd : {"ab2json", "ab2picl", "ab2au send 1 10 1000"}) {
    INFO(cmd);
    Run empty = run("printf '' | " + binPath(cmd));
    CHECK(empty.exit == kExitBadInput);
    CHECK_THAT(empty.err, Catch::Contains("<stdin>: no records read (the input is empty)"));
    CHECK(empty.out.empty());
    Run garbage = run("printf 'garbage\\nmore\\n' | " + binPath(cmd) + " --lenient");
    CHECK(garbage.exit == kExitBadInput);
    CHECK_THAT(garbage.err, Catch::Contains("no records read (2 malformed lines): is it an xab trace?"));
    CHECK(garbage.out.empty());
  }
}
