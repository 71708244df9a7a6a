// ab2picl / picl2ab: goldens, PICL's ordering rules, tachyons, the round
// trip ab -> PICL -> ab, foreign PICL files, and errors from the commands.
#include "support.h"

#include <xab/model/barriers.h>
#include <xab/model/messages.h>
#include <xab/translators/picl.h>

#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <vector>

using namespace xab;
using namespace xab::tr;
using namespace xab::tr::test;

namespace {

struct PiclLine {
  int rectype, evtype;
  double time;
  int node, process, ndata;
  std::vector<int> data;
};

std::vector<PiclLine> parse(const std::string& text) {
  std::vector<PiclLine> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    PiclLine p{};
    f >> p.rectype >> p.evtype >> p.time >> p.node >> p.process >> p.ndata;
    REQUIRE(f);
    if (p.ndata > 0) {
      int dtype = 0;
      f >> dtype;
      CHECK(dtype == picl::kIntType);
      p.data.resize(static_cast<std::size_t>(p.ndata));
      for (int& d : p.data) f >> d;
      REQUIRE(f);
    }
    out.push_back(p);
  }
  return out;
}

std::string toPicl(const Trace& t, PiclWriteStats* stats = nullptr) {
  std::string text;
  Sink sink;
  sink.captureTo(&text);
  PiclWriteStats s = writePicl(t, sink);
  sink.finish();
  if (stats) *stats = s;
  return text;
}

std::string toXab(const std::string& picl, PiclReadResult* res = nullptr) {
  std::string text;
  Sink sink;
  sink.captureTo(&text);
  PiclReadResult r = piclToXab(picl, sink);
  sink.finish();
  REQUIRE(r.error.empty());
  if (res) *res = r;
  return text;
}

// PICL's rules: one stream sorted by time, each node bracketed by -901,
// each node's entries and exits nested.
void checkWellFormed(const std::vector<PiclLine>& lines) {
  double last = -1;
  std::map<int, std::vector<int>> open;  // node -> stack of evtypes
  for (const PiclLine& p : lines) {
    CHECK(p.time >= last);
    last = p.time;
    CHECK(p.process == 0);
    auto& stack = open[p.node];
    if (p.rectype == picl::kEntry) {
      if (stack.empty()) CHECK(p.evtype == picl::kTrace);
      stack.push_back(p.evtype);
    } else if (p.rectype == picl::kExit) {
      REQUIRE(!stack.empty());
      CHECK(stack.back() == p.evtype);
      stack.pop_back();
    }
  }
  for (auto& [node, stack] : open) CHECK(stack.empty());
}

int count(const std::vector<PiclLine>& lines, int rectype, int evtype) {
  int n = 0;
  for (const PiclLine& p : lines) n += p.rectype == rectype && p.evtype == evtype;
  return n;
}

std::shared_ptr<const Trace> loadText(const std::string& xab) {
  LoadResult r = loadTraceText(xab);
  INFO(r.fatal << (r.errors.empty() ? "" : r.errors[0].reason));
  REQUIRE(r.trace);
  REQUIRE(r.errorCount == 0);
  return r.trace;
}

}  // namespace

TEST_CASE("ab2picl writes the goldens", "[picl]") {
  for (const char* name : {"pingpong", "collective"}) {
    auto trace = loadData(std::string(name) + ".trace");
    PiclWriteStats stats;
    std::string picl = toPicl(*trace, &stats);
    checkGolden(std::string(name) + ".picl", picl);
    std::string table;
    Sink sink;
    sink.captureTo(&table);
    writeNodeTable(*trace, stats, sink);
    sink.finish();
    checkGolden(std::string(name) + ".nodes", table);
  }
}

TEST_CASE("ab2picl output keeps PICL's ordering and nesting rules", "[picl]") {
  for (const char* name : {"pingpong.trace", "collective.trace", "../../model/data/cholesky_hang.trace",
                           "../../model/data/deadlock.trace", "../../model/data/handler.trace",
                           "../../model/data/handler_hang.trace", "../../model/data/psend_precv.trace"}) {
    INFO(name);
    auto lines = parse(toPicl(*loadData(name)));
    REQUIRE(!lines.empty());
    checkWellFormed(lines);
  }
}

TEST_CASE("ab2picl moves receives that end before their send, and only those", "[picl]") {
  auto trace = loadData("pingpong.trace");
  PiclWriteStats stats;
  auto lines = parse(toPicl(*trace, &stats));
  CHECK(stats.moved == 2);    // tags 1 and 4: the pong's clock is 2 ms behind
  CHECK(stats.shifted == 2);  // the unpack after each
  // Every receive exit comes after the send of the same tag.
  std::map<int, double> sent;  // tag -> send time (tags are unique here)
  for (const PiclLine& p : lines) {
    if (p.rectype == picl::kEntry && p.evtype == picl::kSend) sent[p.data[1]] = p.time;
    if (p.rectype == picl::kExit && (p.evtype == picl::kRecvWaiting || p.evtype == picl::kRecvBlocked)) {
      REQUIRE(sent.count(p.data[1]));
      CHECK(p.time > sent[p.data[1]]);
    }
  }
}

TEST_CASE("ab2picl tells waiting receives from blocked ones", "[picl]") {
  auto lines = parse(toPicl(*loadData("pingpong.trace")));
  std::map<int, int> codeByTag;  // receive entry: data = tag asked, source asked
  for (const PiclLine& p : lines)
    if (p.rectype == picl::kEntry && (p.evtype == picl::kRecvWaiting || p.evtype == picl::kRecvBlocked))
      codeByTag[p.data[0]] = p.evtype;
  CHECK(codeByTag[1] == picl::kRecvBlocked);  // posted before the send
  CHECK(codeByTag[2] == picl::kRecvWaiting);  // the probe saw it queued
  CHECK(codeByTag[3] == picl::kRecvBlocked);
  CHECK(count(lines, picl::kEntry, picl::kProbeFound) == 1);
  CHECK(count(lines, picl::kEntry, picl::kProbeNotFound) == 1);  // the empty nrecv
  CHECK(count(lines, picl::kEntry, picl::kSpawn) == 1);
  CHECK(count(lines, picl::kMark, 1) == 1);
}

TEST_CASE("ab2picl writes multicasts as -785 around one send per destination", "[picl]") {
  auto lines = parse(toPicl(*loadData("collective.trace")));
  CHECK(count(lines, picl::kEntry, picl::kBcast) == 2);
  CHECK(count(lines, picl::kEntry, picl::kSend) == 6);  // mcast to 3, bcast got by 3
  CHECK(count(lines, picl::kEntry, picl::kReduce) == 4);
  CHECK(count(lines, picl::kEntry, picl::kBarrier) == 4);
  // The worker blocked at the end still gets its exit, at its last time.
  CHECK(count(lines, picl::kExit, picl::kRecvBlocked) + count(lines, picl::kExit, picl::kRecvWaiting) == 7);
}

TEST_CASE("ab2picl: a bcast sends to its dst= members, received or not", "[picl]") {
  // One member never takes the last bcast: it is still one of its destinations.
  std::string text = readFile(dataPath("../../model/data/bcast_left.trace"));
  auto at = text.find("t40007 recv src=t40002 tag=12");
  REQUIRE(at != std::string::npos);
  at = text.rfind('\n', at) + 1;
  text.erase(at, text.find('\n', at) + 1 - at);
  auto lines = parse(toPicl(*loadText(text)));
  CHECK(count(lines, picl::kEntry, picl::kBcast) == 3);
  CHECK(count(lines, picl::kEntry, picl::kSend) == 15);
}

TEST_CASE("ab -> PICL -> ab keeps tasks, messages and barriers", "[picl]") {
  for (const char* name : {"pingpong.trace", "collective.trace", "../../model/data/psend_precv.trace",
                           "../../model/data/handler.trace", "../../model/data/ge.trace"}) {
    INFO(name);
    auto before = loadData(name);
    auto after = loadText(toXab(toPicl(*before)));
    REQUIRE(after->taskCount() == before->taskCount());
    MessageTable m0 = matchMessages(*before), m1 = matchMessages(*after);
    CHECK(m1.unmatched.size() == m0.unmatched.size());
    CHECK(m1.total.count == m0.total.count);
    CHECK(m1.total.bytes == m0.total.bytes);
    // Per (sender, receiver): task i became node i, i.e. task i again.
    for (auto& [pair, stats] : m0.pairs) {
      INFO("pair " << pair.first << " -> " << pair.second);
      REQUIRE(m1.pairs.count(pair));
      CHECK(m1.pairs.at(pair).count == stats.count);
    }
    BarrierAnalysis b0 = analyzeBarriers(*before), b1 = analyzeBarriers(*after);
    REQUIRE(b1.instances.size() == b0.instances.size());
    for (std::size_t i = 0; i < b0.instances.size(); ++i)
      CHECK(b1.instances[i].visits.size() == b0.instances[i].visits.size());
  }
}

// pvm_precv returns 0 on success; ab2picl wrote every precv of a
// real pbwtest run as a receive of 0 bytes.
TEST_CASE("ab2picl: a precv (rc=0) receives its bytes", "[picl]") {
  auto lines = parse(toPicl(*loadData("../../model/data/psend_precv.trace")));
  std::int64_t bytes = 0;
  int receives = 0;
  for (const PiclLine& p : lines)
    if (p.rectype == picl::kExit && (p.evtype == picl::kRecvBlocked || p.evtype == picl::kRecvWaiting) && !p.data.empty()) {
      ++receives;
      bytes += p.data[0];
    }
  CHECK(receives == 6);
  CHECK(bytes == 2 * 800000);
}

TEST_CASE("picl2ab reads a foreign PICL file", "[picl]") {
  std::string picl = readFile(dataPath("foreign.picl"));
  PiclReadResult res;
  std::string xab = toXab(picl, &res);
  checkGolden("foreign.trace", xab);
  CHECK(res.nodes == 3);
  CHECK(res.unknown == 3);    // rectype -1, and evtype -999's entry and exit
  CHECK(res.unmatched == 0);  // node 2's receive precedes its send: still matched
  LoadResult loaded = loadPiclFile(dataPath("foreign.picl"));
  REQUIRE(loaded.trace);
  const Trace& t = *loaded.trace;
  CHECK(t.taskCount() == 3);
  CHECK(t.label(1) == "(node, 1)");
  MessageTable m = matchMessages(t);
  CHECK(m.messages.size() == 3);
  CHECK(m.unmatched.empty());
  for (const Message& msg : m.messages) CHECK(msg.receives.size() == 1);
  BarrierAnalysis b = analyzeBarriers(t);
  REQUIRE(b.instances.size() == 1);
  CHECK(b.instances[0].visits.size() == 3);
  CHECK(b.instances[0].complete());
}

TEST_CASE("looksLikePicl tells PICL from xab text", "[picl]") {
  CHECK(looksLikePicl(readFile(dataPath("foreign.picl"))));
  CHECK_FALSE(looksLikePicl(readFile(dataPath("pingpong.trace"))));
  CHECK_FALSE(looksLikePicl("hello world\n"));
  // The trace format says what its header is: a comment that starts alike
  // is a comment, and the PICL line after it counts.
  CHECK_FALSE(looksLikePicl("#xab-trace 1 host=vm pid=1 start=1.0\n-3 -901 0.000000 0 0 0\n"));
  CHECK(looksLikePicl("#xab-traces in PICL\n-3 -901 0.000000 0 0 0\n"));
}

TEST_CASE("ab2picl and picl2ab report bad input as FILE:LINE: reason", "[picl][cli]") {
  Run r = run(binPath("ab2picl") + " " + dataPath("malformed.trace"));
  CHECK(r.exit == kExitBadInput);
  CHECK_THAT(r.err, Catch::Contains("malformed.trace:4: bad receive time '1763680000.1x0000000'"));
  r = run(binPath("ab2picl") + " --lenient --quiet " + dataPath("malformed.trace"));
  CHECK(r.exit == kExitOk);
  CHECK_THAT(r.err, Catch::Contains("malformed.trace:4:"));
  CHECK_THAT(r.err, Catch::Contains("(line skipped)"));
  CHECK_THAT(r.out, Catch::Contains("-4 -901"));
  r = run(binPath("ab2picl") + " < " + dataPath("malformed.trace"));
  CHECK(r.exit == kExitBadInput);
  CHECK_THAT(r.err, Catch::Contains("<stdin>:4: bad receive time"));
  r = run(binPath("picl2ab") + " " + dataPath("malformed.picl"));
  CHECK(r.exit == kExitBadInput);
  CHECK_THAT(r.err, Catch::Contains("malformed.picl:2: data count 3 but 2 data values"));
  r = run(binPath("ab2picl") + " /nonexistent/file.trace");
  CHECK(r.exit == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/file.trace: No such file"));
  r = run(binPath("picl2ab") + " --bogus");
  CHECK(r.exit == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("unknown option --bogus"));
}

TEST_CASE("ab2picl and picl2ab: --help, -o, --nodes", "[picl][cli]") {
  for (const char* cmd : {"ab2picl", "picl2ab"}) {
    Run r = run(binPath(cmd) + " --help");
    CHECK(r.exit == 0);
    CHECK_THAT(r.out, Catch::Contains(std::string("usage: ") + cmd));
  }
  std::string dir = tempDir();
  Run r = run(binPath("ab2picl") + " -o " + dir + "/out.picl --nodes " + dir + "/nodes " + dataPath("pingpong.trace"));
  CHECK(r.exit == 0);
  CHECK(r.out.empty());
  CHECK(readFile(dir + "/out.picl") == readFile(dataPath("golden/pingpong.picl")));
  CHECK(readFile(dir + "/nodes") == readFile(dataPath("golden/pingpong.nodes")));
  r = run(binPath("ab2picl") + " --quiet " + dataPath("pingpong.trace") + " | " + binPath("picl2ab") + " --quiet -");
  CHECK(r.exit == 0);
  CHECK_THAT(r.out, Catch::StartsWith("#xab-trace 1"));
}
