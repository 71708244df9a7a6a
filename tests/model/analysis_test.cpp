// analyse(): the chain messages -> barriers -> hang -> mismatch (and the
// breakdown, the races) in one call, with the same results as each
// analysis run by hand, whether or not it uses a second thread.
#include "fixtures.h"

#include <catch2/catch.hpp>

#include <thread>

using namespace xab;
using xab::test::loadFixture;

namespace {

// What each analysis says, as the hand-wired chain computes it.
void checkSameAsByHand(const Analysis& a) {
  const Trace& t = *a.trace;
  MessageTable messages = matchMessages(t);
  BarrierAnalysis barriers = analyzeBarriers(t);
  HangReport hang = diagnoseHang(t, messages, barriers);
  MismatchReport mismatch = findPackMismatches(t, messages);
  BreakdownReport breakdown = timeBreakdown(t);
  CHECK(a.messages.messages.size() == messages.messages.size());
  CHECK(a.messages.total.count == messages.total.count);
  CHECK(a.messages.unmatched.size() == messages.unmatched.size());
  CHECK(a.messages.unreceivedMessages == messages.unreceivedMessages);
  CHECK(a.barriers.instances.size() == barriers.instances.size());
  CHECK(a.barriers.totalWait == barriers.totalWait);
  CHECK(a.hang.hung == hang.hung);
  CHECK(hangText(t, a.hang).summary == hangText(t, hang).summary);
  CHECK(a.hang.cycles == hang.cycles);
  CHECK(a.mismatch.checked == mismatch.checked);
  REQUIRE(a.mismatch.mismatches.size() == mismatch.mismatches.size());
  for (std::size_t i = 0; i < mismatch.mismatches.size(); ++i)
    CHECK(mismatchText(a.mismatch.mismatches[i]) == mismatchText(mismatch.mismatches[i]));
  REQUIRE(a.breakdown.perTask.size() == breakdown.perTask.size());
  CHECK(a.breakdown.total.total() == breakdown.total.total());
  const RaceReport races = findMessageRaces(t, messages);
  CHECK(a.races.checked == races.checked);
  CHECK(a.races.anySource == races.anySource);
  CHECK(a.races.racy == races.racy);
  CHECK(a.races.groups.size() == races.groups.size());
}

}  // namespace

TEST_CASE("analyse gives what each analysis gives by hand, on every fixture") {
  for (const char* name : {"cholesky_hang.trace", "deadlock.trace", "barrier_hang.trace", "mismatch.trace",
                           "mcast.trace", "ge.trace", "handler_hang.trace", "demo_hang_killed.trace"}) {
    INFO(name);
    auto trace = loadFixture(name);
    Analysis a = analyse(trace);
    CHECK(a.trace == trace);
    checkSameAsByHand(a);
    AnalyseOptions twoThreads;
    twoThreads.parallel = true;
    Analysis p = analyse(trace, twoThreads);
    checkSameAsByHand(p);
    twoThreads.why = true;  // the races then stay on the second thread
    checkSameAsByHand(analyse(trace, twoThreads));
  }
}

TEST_CASE("analyse finds the paper's hang and the pack mismatch") {
  Analysis hang = analyse(loadFixture("cholesky_hang.trace"));
  CHECK(hang.hang.hung);
  CHECK(hang.messages.messages.size() > 0);
  Analysis mismatch = analyse(loadFixture("mismatch.trace"));
  CHECK_FALSE(mismatch.mismatch.mismatches.empty());
}

TEST_CASE("analyse: the breakdown only when asked, the caller's work alongside, timings") {
  auto trace = loadFixture("barrier.trace");
  std::thread::id ran;
  AnalyseOptions o;
  o.breakdown = false;
  o.parallel = true;
  o.alongside = [&] { ran = std::this_thread::get_id(); };
  Analysis a = analyse(trace, o);
  CHECK(a.breakdown.perTask.empty());
  CHECK(ran == std::this_thread::get_id());  // on the calling thread, not the second one
  CHECK_FALSE(a.barriers.instances.empty());
  CHECK(a.ms.total >= a.ms.barriers);
  CHECK(a.ms.total >= 0);
  Analysis b = analyse(trace);
  CHECK(b.breakdown.perTask.size() == trace->taskCount());
}

TEST_CASE("analyse on a live snapshot, then on a later one") {
  TraceReader reader;
  std::string text = "#xab-trace 1 abmon=t40001\n"
                     "1.000000100 1.000000000 t40002 mytid rc=t40002 name=a\n"
                     "1.000000200 1.000000100 t40002 recv.begin src=t40003 tag=1\n";
  reader.feed(text);
  Analysis early = analyse(reader.snapshot());
  CHECK(early.hang.hung);  // blocked in recv, and nothing else to say yet
  reader.feed("1.000000300 1.000000200 t40003 mytid rc=t40003 name=b\n"
              "1.000000400 1.000000300 t40003 send dst=t40002 tag=1 bytes=4 serial=1 rc=0\n"
              "1.000000500 1.000000400 t40002 recv src=t40003 tag=1 bytes=4 serial=1 rc=3\n");
  Analysis later = analyse(reader.snapshot());
  CHECK_FALSE(later.hang.hung);
  CHECK(later.messages.total.count == 1);
  CHECK(early.trace->eventCount() == 2);  // the first snapshot did not change
}
