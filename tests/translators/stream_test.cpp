// Streaming: a trace of a few MB read from a pipe (pieces of at most 64 KB,
// calls and strings cut at every boundary), from a file (1 MB pieces) and
// from a whole Trace in memory (xabview's export) gives the same output;
// a malformed line deep in a pipe is still reported as FILE:LINE: reason.
#include "support.h"

#include <xab/translators/audio.h>
#include <xab/translators/json.h>

#include <catch2/catch.hpp>

#include <fstream>

using namespace xab;
using namespace xab::tr;
using namespace xab::tr::test;

namespace {

// Four tasks in a ring on two hosts, written round by round as abmon
// would: each round every task sends, blocks in a receive, marks; an
// mcast, a bcast, a barrier every few rounds.  About 3 MB.
std::string ringTrace(int rounds, int badLineAfter = -1, int* badLine = nullptr) {
  std::string t = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000\n";
  int line = 1;
  auto rec = [&](long long ns, int task, const std::string& rest) {
    char head[96];
    long long s = 1763680000LL + ns / 1000000000, f = ns % 1000000000;
    std::snprintf(head, sizeof head, "%lld.%09lld %lld.%09lld t%x ", s, f, s, f, 0x40002 + task);
    t += head + rest + "\n";
    ++line;
  };
  auto tid = [](int task) {
    char b[16];
    std::snprintf(b, sizeof b, "t%x", 0x40002 + task);
    return std::string(b);
  };
  const int n = 4;
  for (int k = 0; k < n; ++k)
    rec(k * 1000, k, "mytid rc=" + tid(k) + " name=ring host=" + (k % 2 ? "beta" : "alpha") + " parent=none lang=c pid=" + std::to_string(k + 1));
  for (int k = 0; k < n; ++k) rec(5000 + k, k, "joingroup group=ring rc=" + std::to_string(k));
  std::vector<int> serial(n, 0);
  for (int r = 0; r < rounds; ++r) {
    long long base = 10000 + static_cast<long long>(r) * 100000;
    for (int k = 0; k < n; ++k) {
      int next = (k + 1) % n, prev = (k + n - 1) % n;
      rec(base + k * 10, k, "send dst=" + tid(next) + " tag=7 bytes=64 serial=" + std::to_string(++serial[k]) + " rc=0");
      rec(base + k * 10 + 1, k, "recv.begin src=" + tid(prev) + " tag=7");
      rec(base + k * 10 + 5000, k, "recv src=" + tid(prev) + " tag=7 bytes=64 serial=" + std::to_string(serial[prev] + (k == 0 ? 1 : 0)) + " rc=1");
      rec(base + k * 10 + 5001, k, "mark text=round%20" + std::to_string(r) + "%20of%20" + tid(k));
      if (r == badLineAfter && k == 2) {
        t += "1763680000.1x0000000 1763680000.1 t40002 exit rc=0\n";
        if (badLine) *badLine = ++line;
      }
    }
    if (r % 7 == 0) {
      rec(base + 6000, 0, "mcast dst=" + tid(1) + "," + tid(2) + "," + tid(3) + " tag=9 bytes=8 serial=" + std::to_string(++serial[0]) + " rc=0");
      rec(base + 6100, 1, "bcast group=ring tag=10 bytes=8 serial=" + std::to_string(++serial[1]) + " rc=0");
      for (int k = 1; k < n; ++k) {
        rec(base + 7000 + k, k, "recv.begin src=" + tid(0) + " tag=9");
        rec(base + 7100 + k, k, "recv src=" + tid(0) + " tag=9 bytes=8 serial=" + std::to_string(serial[0]) + " rc=1");
      }
      for (int k = 0; k < n; ++k) rec(base + 8000 + k, k, "barrier.begin group=ring count=4");
      for (int k = 0; k < n; ++k) rec(base + 9000 + k, k, "barrier group=ring count=4 rc=0");
    }
  }
  return t;
}

std::string writeTemp(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The receives in the ring are off by one for task 0; that is fine (they
// name sends that exist).  What matters: every path gives the same bytes.
std::shared_ptr<const Trace> load(const std::string& path) {
  LoadResult r = loadTraceFile(path);
  REQUIRE(r.trace);
  REQUIRE(r.errorCount == 0);
  return r.trace;
}

}  // namespace

TEST_CASE("streamed from a pipe, from a file and from a whole trace: the same JSON", "[stream][json]") {
  std::string dir = tempDir();
  std::string path = writeTemp(dir, "ring.trace", ringTrace(6000));
  REQUIRE(readFile(path).size() > (3u << 20));  // more than three 1 MB pieces
  std::string whole;
  Sink sink;
  sink.captureTo(&whole);
  JsonWriteStats stats = writeJson(*load(path), sink);
  sink.finish();
  CHECK(stats.flows > 24000);
  Run pipe = run("cat " + path + " | " + binPath("ab2json") + " --quiet -");
  Run file = run(binPath("ab2json") + " --quiet " + path);
  REQUIRE(pipe.exit == 0);
  REQUIRE(file.exit == 0);
  CHECK(pipe.out == whole);
  CHECK(file.out == whole);
}

TEST_CASE("streamed from a pipe, from a file and from a whole trace: the same sound", "[stream][audio]") {
  std::string dir = tempDir();
  std::string path = writeTemp(dir, "ring.trace", ringTrace(3000));
  for (const char* mode : {"send", "sendmix", "sendnum"}) {
    INFO(mode);
    AudioOptions o;
    REQUIRE(parseAudioMode(mode, o.mode));
    o.nb = 4;
    o.length = 100;  // 1.3 MB (send) and 2.6 MB: more than the 1 MB output buffer
    o.scaleUs = 1000;
    std::string whole;
    Sink sink;
    sink.captureTo(&whole);
    AudioStats s = writeAudio(*load(path), o, sink);
    sink.finish();
    REQUIRE(s.error.empty());
    REQUIRE(whole.size() > (1u << 20));
    std::string args = std::string(" --quiet ") + mode + " 4 100 1000 ";
    Run toFile = run("cat " + path + " | " + binPath("ab2au") + args + "-o " + dir + "/p.au -");
    REQUIRE(toFile.exit == 0);
    CHECK(readFile(dir + "/p.au") == whole);  // a file: the header's size filled in
    // Into a pipe, past the first 1 MB, the size cannot be filled in:
    // Sun's "unknown" (~0).
    Run toPipe = run("cat " + path + " | " + binPath("ab2au") + args + "- | cat");
    REQUIRE(toPipe.exit == 0);
    REQUIRE(toPipe.out.size() == whole.size());
    CHECK(toPipe.out.substr(8, 4) == std::string(4, '\xff'));
    CHECK(toPipe.out.substr(12) == whole.substr(12));
  }
}

#ifdef XAB_OTF2_PRINT
TEST_CASE("streamed from a pipe and from a file: the same OTF2 archive", "[stream][otf2]") {
  std::string dir = tempDir();
  std::string path = writeTemp(dir, "ring.trace", ringTrace(3000));
  Run pipe = run("cat " + path + " | " + binPath("ab2otf2") + " --quiet -o " + dir + "/p -");
  Run file = run(binPath("ab2otf2") + " --quiet -o " + dir + "/f " + path);
  REQUIRE(pipe.exit == 0);
  REQUIRE(file.exit == 0);
  Run a = run(std::string(XAB_OTF2_PRINT) + " " + dir + "/p/traces.otf2");
  Run b = run(std::string(XAB_OTF2_PRINT) + " " + dir + "/f/traces.otf2");
  REQUIRE(a.exit == 0);
  CHECK(a.out.size() > (1u << 20));
  CHECK(a.out == b.out);
}
#endif

TEST_CASE("a malformed line deep in a pipe: FILE:LINE: reason, exit 2", "[stream][cli]") {
  std::string dir = tempDir();
  int bad = 0;
  std::string path = writeTemp(dir, "bad.trace", ringTrace(3000, 2500, &bad));
  REQUIRE(bad > 20000);
  const std::string where = "<stdin>:" + std::to_string(bad) + ": bad receive time '1763680000.1x0000000'";
  for (const std::string& cmd : std::vector<std::string>{"ab2json --quiet -", "ab2au --quiet send 4 20 1000 - > /dev/null",
                          "ab2otf2 --quiet -o " + dir + "/o -"}) {
    INFO(cmd);
    if (cmd.starts_with("ab2otf2") && !std::ifstream(binPath("ab2otf2"))) continue;
    Run r = run("cat " + path + " | " + binPath(cmd));
    CHECK(r.exit == kExitBadInput);
    CHECK_THAT(r.err, Catch::Contains(where));
  }
  Run lenient = run("cat " + path + " | " + binPath("ab2json") + " --lenient -");
  CHECK(lenient.exit == 0);
  CHECK_THAT(lenient.err, Catch::Contains(where + " (line skipped)"));
}

#ifdef XAB_OTF2_PRINT
TEST_CASE("a receive from a task whose records come later: the peer gets its location", "[stream][otf2]") {
  // ab2otf2 numbers a peer when a record names it; here while the
  // receiving task's call is being written (run it under the sanitizers).
  std::string dir = tempDir();
  std::string path = writeTemp(dir, "late.trace",
      "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.0\n"
      "1763680000.1 1763680000.1 t40002 mytid rc=t40002 name=a host=vm parent=none lang=c pid=5\n"
      "1763680000.2 1763680000.2 t40002 recv.begin src=t40003 tag=7\n"
      "1763680000.4 1763680000.4 t40002 recv src=t40003 tag=7 bytes=4 serial=1 rc=1\n"
      "1763680000.5 1763680000.5 t40002 recv.begin src=t40004 tag=7\n"
      "1763680000.6 1763680000.6 t40002 recv src=t40004 tag=7 bytes=4 serial=1 rc=1\n"
      "1763680000.1 1763680000.1 t40003 mytid rc=t40003 name=b host=vm parent=t40002 lang=c pid=6\n"
      "1763680000.3 1763680000.3 t40003 send dst=t40002 tag=7 bytes=4 serial=1 rc=0\n");
  Run r = run(binPath("ab2otf2") + " --quiet -o " + dir + "/a " + path);
  REQUIRE(r.exit == 0);
  Run p = run(std::string(XAB_OTF2_PRINT) + " " + dir + "/a/traces.otf2");
  REQUIRE(p.exit == 0);
  CHECK_THAT(p.out, Catch::Contains("MPI_RECV "));
  Run g = run(std::string(XAB_OTF2_PRINT) + " -G " + dir + "/a/traces.otf2");
  CHECK_THAT(g.out, Catch::Contains("\"t40004\""));  // named only as a peer: a location with no events
}
#endif

// --compensate (docs/compensation.md): the streaming translators take the
// model's compensation, from a file and from a pipe (they read the whole
// trace first).  Known truth: a task whose cost record says 100 us per
// record, ten records 1 ms apart: the last is 9 x 100 us earlier.
TEST_CASE("compensated translation: ab2json, ab2au and ab2otf2 --compensate take xab's measured cost out", "[stream][compensate]") {
  std::string text = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.0\n"
                     "1763680001.000000000 1763680001.000000000 t40002 cost burst=8 total_ns=0 rc=100000 "
                     "name=a host=vm parent=none lang=c pid=5\n";
  for (int k = 1; k <= 10; ++k) {
    std::string t = "1763680001." + std::string(k < 10 ? "00" : "0") + std::to_string(k) + "000000";
    text += t + " " + t + " t40002 " + (k < 10 ? "config nhost=1 narch=1 rc=0" : "exit rc=0") + "\n";
  }
  std::string dir = tempDir();
  std::string path = writeTemp(dir, "cost.trace", text);
  auto lastTs = [](const std::string& json) {
    double last = -1;
    for (auto p = json.find("\"ts\":"); p != std::string::npos; p = json.find("\"ts\":", p + 1))
      last = std::max(last, std::stod(json.substr(p + 5)));
    return last;
  };
  Run plain = run(binPath("ab2json") + " --quiet " + path);
  Run comp = run(binPath("ab2json") + " --quiet --compensate " + path);
  Run compPipe = run("cat " + path + " | " + binPath("ab2json") + " --quiet --compensate -");
  REQUIRE(plain.exit == 0);
  REQUIRE(comp.exit == 0);
  REQUIRE(compPipe.exit == 0);
  CHECK(lastTs(plain.out) == Approx(10'000).margin(0.01));  // us from the first record
  CHECK(lastTs(comp.out) == Approx(10'000 - 900).margin(0.01));
  CHECK(compPipe.out == comp.out);
  CHECK_THAT(comp.err, Catch::Contains("compensated"));
  CHECK_THAT(plain.err, !Catch::Contains("compensated"));

  Run au = run(binPath("ab2au") + " --quiet send 4 20 100 " + path + " | od -An -tx1");
  Run auComp = run(binPath("ab2au") + " --quiet --compensate send 4 20 100 " + path + " 2>" + dir + "/au.err | od -An -tx1");
  REQUIRE(au.exit == 0);
  REQUIRE(auComp.exit == 0);
  CHECK(au.out != auComp.out);
  CHECK_THAT(readFile(dir + "/au.err"), Catch::Contains("compensated"));
#ifdef XAB_OTF2_PRINT
  Run o = run(binPath("ab2otf2") + " --quiet -o " + dir + "/o " + path);
  Run oc = run(binPath("ab2otf2") + " --quiet --compensate -o " + dir + "/oc " + path);
  REQUIRE(o.exit == 0);
  REQUIRE(oc.exit == 0);
  Run a = run(std::string(XAB_OTF2_PRINT) + " " + dir + "/o/traces.otf2");
  Run b = run(std::string(XAB_OTF2_PRINT) + " " + dir + "/oc/traces.otf2");
  REQUIRE(a.exit == 0);
  REQUIRE(b.exit == 0);
  CHECK(a.out != b.out);
  CHECK_THAT(oc.err, Catch::Contains("compensated"));
#endif
}
