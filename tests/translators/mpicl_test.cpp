// picl2ab on PICL as MPICL writes it: negative times, every
// send and receive code, call pairs and collectives, same-time entries and
// exits on one node, nodes that start out of order.  The fixtures in data/
// are hand-written in MPICL's record layouts (docs/picl-mapping.md).
#include "support.h"

#include <xab/model/barriers.h>
#include <xab/model/messages.h>
#include <xab/translators/picl.h>

#include <catch2/catch.hpp>

#include <map>

using namespace xab;
using namespace xab::tr;
using namespace xab::tr::test;

namespace {

PiclReadResult translate(const std::string& name, std::string& xab) {
  Sink sink;
  sink.captureTo(&xab);
  PiclReadOptions o;
  o.name = name;
  PiclReadResult r = piclToXab(readFile(dataPath(name)), sink, o);
  sink.finish();
  return r;
}

std::shared_ptr<const Trace> loadPicl(const std::string& name) {
  LoadResult r = loadPiclFile(dataPath(name));
  INFO(r.fatal << (r.errors.empty() ? "" : r.errors[0].reason));
  REQUIRE(r.trace);
  REQUIRE(r.errorCount == 0);
  return r.trace;
}

double seconds(TimeNs t) { return static_cast<double>(t) / 1e9; }

}  // namespace

TEST_CASE("picl2ab reads MPICL's negative times", "[picl][mpicl]") {
  std::string xab;
  PiclReadResult res = translate("mpicl_negative.picl", xab);
  REQUIRE(res.error.empty());
  CHECK(res.malformed == 0);
  CHECK(res.shift == 2'000);  // the earliest record, -0.000002 s, becomes 0
  auto trace = loadPicl("mpicl_negative.picl");
  REQUIRE(trace->taskCount() == 2);
  CHECK(trace->eventCount() > 0);
  MessageTable m = matchMessages(*trace);
  CHECK(m.messages.size() == 2);
  CHECK(m.unmatched.empty());
  // Times keep their distances: node 0's receive ends 0.000232 s after
  // node 1's -0.000002 s start.
  TaskIndex node0 = *trace->findTask(piclNodeTid(0));
  TimeNs lastRecv = 0;
  trace->events(node0).forEach([&](const Event& e) {
    if (e.kind == Kind::RECV && e.phase == Phase::End) lastRecv = e.time;
  });
  CHECK(seconds(lastRecv - trace->firstTime()) == Approx(0.000232).margin(1e-9));

  Run r = run(binPath("picl2ab") + " " + dataPath("mpicl_negative.picl"));
  CHECK(r.exit == kExitOk);
  CHECK_THAT(r.err, Catch::Contains("0 malformed lines"));
  CHECK_THAT(r.out, Catch::Contains("# PICL times shifted by +0.000002000 s"));
}

TEST_CASE("picl2ab reads every MPICL send code as a send", "[picl][mpicl]") {
  std::string xab;
  PiclReadResult res = translate("mpicl.picl", xab);
  REQUIRE(res.error.empty());
  CHECK(res.unmatched == 0);
  auto trace = loadPicl("mpicl.picl");
  MessageTable m = matchMessages(*trace);
  CHECK(m.unmatched.empty());
  // Node 0 sends tags 21 (-21), 22 (-22), 23 (-23), 24 (-24), 27 (-27),
  // 33 (-33), 39 (-39), 45 (-45) to node 1; node 2 sends tag 2 (-22) to
  // itself.  The canceled send (-32, tag 32) carried no message.
  std::map<std::int32_t, std::int32_t> bytesByTag;
  int bcasts = 0;
  for (const Message& msg : m.messages) {
    INFO("tag " << msg.tag);
    if (msg.kind == Kind::BCAST) {  // MPICL's MPI_Bcast (-785): root node 0 to nodes 1 and 2
      ++bcasts;
      CHECK(msg.sender == 0);
      CHECK(msg.bytes == 1024);
      CHECK(msg.receives.size() == 2);
      continue;
    }
    CHECK(msg.receives.size() == 1);
    bytesByTag[msg.tag] = msg.bytes;
  }
  CHECK(bytesByTag == std::map<std::int32_t, std::int32_t>{{2, 64},   {21, 100}, {22, 200}, {23, 300}, {24, 400},
                                                           {27, 500}, {33, 600}, {39, 700}, {45, 800}});
  CHECK(bcasts == 1);
  CHECK(res.skipped.at(-32) == 2);  // the canceled send's entry and exit
}

TEST_CASE("picl2ab nests one node's entries and exits at the same time stamp", "[picl][mpicl]") {
  std::string xab;
  PiclReadResult res = translate("mpicl_barrier.picl", xab);
  REQUIRE(res.error.empty());
  CHECK(res.unmatched == 0);  // node 2's send exit is listed before its entry
  auto trace = loadPicl("mpicl_barrier.picl");
  BarrierAnalysis b = analyzeBarriers(*trace);
  REQUIRE(b.instances.size() == 2);
  for (const BarrierInstance& use : b.instances) {
    CHECK(use.visits.size() == 3);
    CHECK(use.complete());
  }
  MessageTable m = matchMessages(*trace);
  CHECK(m.messages.size() == 1);
  CHECK(m.unmatched.empty());
}

TEST_CASE("picl2ab shows PICL node N as node N", "[picl][mpicl]") {
  auto trace = loadPicl("mpicl.picl");  // nodes start in the order 2, 0, 1
  REQUIRE(trace->taskCount() == 3);
  for (TaskIndex k = 0; k < 3; ++k) {
    CHECK(trace->task(k).tid == piclNodeTid(static_cast<int>(k)));
    CHECK(trace->label(k) == "(node, " + std::to_string(k) + ")");
  }
}

TEST_CASE("picl2ab counts every MPICL record it does not translate", "[picl][mpicl]") {
  std::string xab;
  PiclReadResult res = translate("mpicl.picl", xab);
  REQUIRE(res.error.empty());
  // Call pairs with no xab equivalent: MPI_Alltoall, send and receive
  // status requests, MPI_Irecv's begin, a canceled send, an unknown code.
  for (int code : {-783, -28, -29, -30, -31, -57, -59, -32, -999}) {
    INFO("event " << code);
    CHECK(res.skipped.count(code) == 1);
    CHECK(res.skipped.at(code) == 2);
  }
  CHECK(res.skipped.at(-12) == 3);        // MPICL's "close" marks
  CHECK(res.skipped.at(-904) == 3);       // MPICL's "trace level" marks
  CHECK(res.skippedTypes.at(-101) == 1);  // statistics records
  CHECK(res.skippedTypes.at(-102) == 1);
  std::uint64_t total = 0;
  for (auto& [code, n] : res.skipped) total += n;
  for (auto& [type, n] : res.skippedTypes) total += n;
  CHECK(res.unknown == total);
  // The collectives xab has a call for are calls, on every node.
  auto trace = loadPicl("mpicl.picl");
  std::map<Kind, int> calls;
  for (TaskIndex k = 0; k < trace->taskCount(); ++k)
    trace->events(k).forEach([&](const Event& e) {
      if (e.phase == Phase::End) ++calls[e.kind];
    });
  CHECK(calls[Kind::BARRIER] == 3);
  CHECK(calls[Kind::REDUCE] == 3 + 3 + 1 + 1);  // MPI_Reduce, _Allreduce, _Reduce_scatter, _Scan
  CHECK(calls[Kind::GATHER] == 3 + 3);          // MPI_Gather, _Allgather
  CHECK(calls[Kind::SCATTER] == 3);
  // The summary names what was skipped.
  Run r = run(binPath("picl2ab") + " -o /dev/null " + dataPath("mpicl.picl"));
  CHECK(r.exit == kExitOk);
  CHECK_THAT(r.err, Catch::Contains("event -783: 2"));
  CHECK_THAT(r.err, Catch::Contains("record type -101: 1"));
}

TEST_CASE("picl2ab translates the MPICL fixture as the golden says", "[picl][mpicl]") {
  std::string xab;
  PiclReadResult res = translate("mpicl.picl", xab);
  REQUIRE(res.error.empty());
  checkGolden("mpicl.trace", xab);
}

TEST_CASE("picl2ab tells MPICL's MPI_Bcast from ab2picl's multicast bracket", "[picl][mpicl]") {
  // ab2picl writes a multicast as -785 (bytes, tag, destinations) around
  // one -21 per destination, and its -785 exit carries nothing; MPICL's
  // MPI_Bcast (bytes or -1, root, communicator) has no sends inside and its
  // exit carries the bytes.  Node 0's first -785 sends to node 1; its
  // second reached nobody; node 1's is an MPI_Bcast leaf of root 0 whose
  // root never wrote its record.
  const std::string picl =
      "-3 -901 0.000000 0 0 0\n"
      "-3 -901 0.000000 1 0 0\n"
      "-3 -785 0.000100 0 0 3 2 32 1 1\n"
      "-3 -21 0.000100 0 0 3 2 32 1 1\n"
      "-4 -21 0.000100 0 0 0\n"
      "-4 -785 0.000100 0 0 0\n"
      "-3 -785 0.000200 0 0 3 2 32 1 0\n"
      "-4 -785 0.000200 0 0 0\n"
      "-3 -51 0.000300 1 0 2 2 1 0\n"
      "-4 -51 0.000310 1 0 3 2 32 1 0\n"
      "-3 -785 0.000400 1 0 3 2 -1 0 -1\n"
      "-4 -785 0.000500 1 0 1 2 32\n"
      "-4 -901 0.000600 0 0 0\n"
      "-4 -901 0.000600 1 0 0\n";
  std::string xab;
  Sink sink;
  sink.captureTo(&xab);
  PiclReadResult res = piclToXab(picl, sink);
  sink.finish();
  REQUIRE(res.error.empty());
  CHECK(res.skipped.at(-785) == 2);  // the empty bracket
  CHECK(res.unmatched == 1);          // the leaf: its root is not in the trace
  CHECK_THAT(xab, Catch::Contains("t40001 send dst=t40002 tag=1 bytes=32 serial=1"));
  CHECK_THAT(xab, Catch::Contains("t40002 recv src=t40001 tag=0 bytes=32 serial=0 rc=1"));
  CHECK_THAT(xab, !Catch::Contains("bcast"));
}

TEST_CASE("looksLikePicl knows MPICL's files that start at a negative time", "[picl][mpicl]") {
  // xabview picks the reader by the file's first record: a PICL file whose
  // first time is -0.000002 was read as an xab trace, every line malformed.
  CHECK(looksLikePicl(readFile(dataPath("mpicl_negative.picl"))));
}

TEST_CASE("picl2ab refuses times too far out to hold, instead of overflowing", "[picl][mpicl]") {
  // 9999999999 s was read as 9999999999e9 ns, past INT64_MAX (undefined
  // behaviour; in practice a negative time the trace reader refused).
  for (const char* t : {"9999999999.000000", "-9999999999.000000", "1e12"}) {
    INFO(t);
    std::string xab;
    Sink sink;
    sink.captureTo(&xab);
    PiclReadResult res = piclToXab(std::string("-3 -901 ") + t + " 0 0 0\n", sink);
    sink.finish();
    CHECK_THAT(res.error, Catch::Contains(std::string("bad time '") + t + "'"));
  }
}

TEST_CASE("PICL node N is (node, N) even when node numbers have gaps", "[picl][mpicl]") {
  // Nodes 0, 2 and 5 only: counting the tasks present would show node 2 as
  // (node, 1) and node 5 as (node, 2).  picl2ab names the instance.
  std::string dir = tempDir();
  Run w = run("printf '%s\\n' '-3 -901 0.0 5 0 0' '-3 -901 0.0 0 0 0' '-3 -901 0.0 2 0 0' "
              "'-4 -901 0.1 0 0 0' '-4 -901 0.1 2 0 0' '-4 -901 0.1 5 0 0' > " + dir + "/gap.picl");
  REQUIRE(w.exit == 0);
  LoadResult r = loadPiclFile(dir + "/gap.picl");
  REQUIRE(r.trace);
  REQUIRE(r.errorCount == 0);
  const Trace& t = *r.trace;
  REQUIRE(t.taskCount() == 3);
  for (int node : {0, 2, 5}) CHECK(t.label(*t.findTask(piclNodeTid(node))) == "(node, " + std::to_string(node) + ")");
}
