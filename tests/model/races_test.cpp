#include <xab/model/model.h>

#include <catch2/catch.hpp>

using namespace xab;

namespace {

RaceReport racesOf(const std::string& text, std::shared_ptr<const Trace>& keep, MessageTable& table) {
  auto r = loadTraceText(text);
  REQUIRE(r.trace);
  REQUIRE(r.errors.empty());
  keep = r.trace;
  table = matchMessages(*keep);
  return findMessageRaces(*keep, table);
}

// A parent spawns two children, sends each its half, and takes their
// answers from any task, the first for the left child's: the shape of a
// recursive divide-and-conquer program.
const char* const kTwoChildren =
    "1.00 1.00 t1 mytid rc=t1 name=hull\n"
    "1.01 1.01 t1 spawn.begin file=hull where= flags=0 count=2\n"
    "1.02 1.02 t1 spawn file=hull count=2 tids=t2,t3 rc=2\n"
    "1.03 1.03 t1 send dst=t2 tag=0 bytes=4 serial=1 rc=0\n"
    "1.04 1.04 t1 send dst=t3 tag=0 bytes=4 serial=2 rc=0\n"
    "1.05 1.05 t1 recv.begin src=any tag=1\n"
    "1.30 1.30 t1 recv src=t3 tag=1 bytes=4 serial=1 rc=7\n"
    "1.31 1.31 t1 recv.begin src=any tag=1\n"
    "1.40 1.40 t1 recv src=t2 tag=1 bytes=4 serial=1 rc=7\n"
    "1.10 1.10 t2 mytid rc=t2 name=hull\n"
    "1.11 1.11 t2 recv.begin src=t1 tag=0\n"
    "1.12 1.12 t2 recv src=t1 tag=0 bytes=4 serial=1 rc=7\n"
    "1.35 1.35 t2 send dst=t1 tag=1 bytes=4 serial=1 rc=0\n"
    "1.10 1.10 t3 mytid rc=t3 name=hull\n"
    "1.11 1.11 t3 recv.begin src=t1 tag=0\n"
    "1.12 1.12 t3 recv src=t1 tag=0 bytes=4 serial=2 rc=7\n"
    "1.25 1.25 t3 send dst=t1 tag=1 bytes=4 serial=1 rc=0\n";

}  // namespace

TEST_CASE("a receive from any task races when another task's message, sent independently, could have come first") {
  std::shared_ptr<const Trace> trace;
  MessageTable table;
  RaceReport r = racesOf(kTwoChildren, trace, table);
  CHECK(r.checked);
  CHECK(r.anySource == 2);
  CHECK(r.racy == 1);  // the second receive has nothing left to race with
  REQUIRE(r.groups.size() == 1);
  const RaceGroup& g = r.groups[0];
  CHECK(g.tag == 1);
  CHECK(g.receives == 2);
  CHECK(g.racy == 1);
  CHECK(g.first.receive.index == 6);
  CHECK(trace->task(table.messages[static_cast<std::size_t>(g.first.took)].sender).tid == 3);
  CHECK(trace->task(table.messages[static_cast<std::size_t>(g.first.other)].sender).tid == 2);
  CHECK(describe(*trace, table, g) ==
        "(hull, 0) receives tag 1 from any task: 1 of 2 receives are message races; at 0.300000 s it took "
        "(hull, 2)'s message (tag 1) while (hull, 1)'s (tag 1), sent independently of that receive, could have "
        "come first");
}

TEST_CASE("no race when the other message is sent because of what the receiver did after the receive") {
  // The master tells t3 to go only after t2's answer: t3's answer cannot
  // come first, however the run is timed.
  std::shared_ptr<const Trace> trace;
  MessageTable table;
  RaceReport r = racesOf(
      "1.00 1.00 t1 mytid rc=t1 name=m\n"
      "1.01 1.01 t1 recv.begin src=any tag=1\n"
      "1.20 1.20 t1 recv src=t2 tag=1 bytes=4 serial=1 rc=7\n"
      "1.21 1.21 t1 send dst=t3 tag=0 bytes=4 serial=1 rc=0\n"
      "1.22 1.22 t1 recv.begin src=any tag=1\n"
      "1.40 1.40 t1 recv src=t3 tag=1 bytes=4 serial=1 rc=7\n"
      "1.00 1.00 t2 mytid rc=t2 name=w\n"
      "1.10 1.10 t2 send dst=t1 tag=1 bytes=4 serial=1 rc=0\n"
      "1.00 1.00 t3 mytid rc=t3 name=w\n"
      "1.01 1.01 t3 recv.begin src=t1 tag=0\n"
      "1.30 1.30 t3 recv src=t1 tag=0 bytes=4 serial=1 rc=7\n"
      "1.31 1.31 t3 send dst=t1 tag=1 bytes=4 serial=1 rc=0\n",
      trace, table);
  CHECK(r.anySource == 2);
  CHECK(r.racy == 0);
  CHECK(r.groups.empty());
}

TEST_CASE("a task spawned after the receive cannot race with it") {
  std::shared_ptr<const Trace> trace;
  MessageTable table;
  RaceReport r = racesOf(
      "1.00 1.00 t1 mytid rc=t1 name=m\n"
      "1.01 1.01 t1 recv.begin src=any tag=1\n"
      "1.20 1.20 t1 recv src=t2 tag=1 bytes=4 serial=1 rc=7\n"
      "1.21 1.21 t1 spawn.begin file=w where= flags=0 count=1\n"
      "1.22 1.22 t1 spawn file=w count=1 tids=t3 rc=1\n"
      "1.23 1.23 t1 recv.begin src=any tag=1\n"
      "1.40 1.40 t1 recv src=t3 tag=1 bytes=4 serial=1 rc=7\n"
      "1.00 1.00 t2 mytid rc=t2 name=w\n"
      "1.10 1.10 t2 send dst=t1 tag=1 bytes=4 serial=1 rc=0\n"
      "1.30 1.30 t3 mytid rc=t3 name=w\n"
      "1.31 1.31 t3 send dst=t1 tag=1 bytes=4 serial=1 rc=0\n",
      trace, table);
  CHECK(r.anySource == 2);
  CHECK(r.racy == 0);
}

TEST_CASE("races: a named source, another tag and the same sender do not race") {
  std::shared_ptr<const Trace> trace;
  MessageTable table;
  RaceReport r = racesOf(
      "1.00 1.00 t1 mytid rc=t1 name=m\n"
      "1.01 1.01 t1 recv.begin src=t2 tag=1\n"  // a named source takes only t2's
      "1.10 1.10 t1 recv src=t2 tag=1 bytes=4 serial=1 rc=7\n"
      "1.11 1.11 t1 recv.begin src=any tag=1\n"  // t3's tag 2 does not match
      "1.20 1.20 t1 recv src=t2 tag=1 bytes=4 serial=2 rc=7\n"
      "1.21 1.21 t1 recv.begin src=any tag=1\n"  // t2's next: same sender, in order
      "1.30 1.30 t1 recv src=t2 tag=1 bytes=4 serial=3 rc=7\n"
      "1.31 1.31 t1 recv.begin src=any tag=2\n"
      "1.40 1.40 t1 recv src=t3 tag=2 bytes=4 serial=1 rc=7\n"
      "1.00 1.00 t2 mytid rc=t2 name=w\n"
      "1.02 1.02 t2 send dst=t1 tag=1 bytes=4 serial=1 rc=0\n"
      "1.03 1.03 t2 send dst=t1 tag=1 bytes=4 serial=2 rc=0\n"
      "1.04 1.04 t2 send dst=t1 tag=1 bytes=4 serial=3 rc=0\n"
      "1.00 1.00 t3 mytid rc=t3 name=w\n"
      "1.05 1.05 t3 send dst=t1 tag=2 bytes=4 serial=1 rc=0\n",
      trace, table);
  CHECK(r.anySource == 3);
  CHECK(r.racy == 0);
}

TEST_CASE("races: a message never received races too, and any-tag receives see every tag") {
  std::shared_ptr<const Trace> trace;
  MessageTable table;
  RaceReport r = racesOf(
      "1.00 1.00 t1 mytid rc=t1 name=m\n"
      "1.01 1.01 t1 recv.begin src=any tag=any\n"
      "1.10 1.10 t1 recv src=t2 tag=1 bytes=4 serial=1 rc=7\n"
      "1.00 1.00 t2 mytid rc=t2 name=w\n"
      "1.02 1.02 t2 send dst=t1 tag=1 bytes=4 serial=1 rc=0\n"
      "1.00 1.00 t3 mytid rc=t3 name=w\n"
      "1.03 1.03 t3 send dst=t1 tag=7 bytes=4 serial=1 rc=0\n",
      trace, table);
  CHECK(r.racy == 1);
  REQUIRE(r.groups.size() == 1);
  CHECK(r.groups[0].tag == kAnyTag);
  CHECK(trace->task(table.messages[static_cast<std::size_t>(r.groups[0].first.other)].sender).tid == 3);
}

TEST_CASE("analyse() reports the message races") {
  Analysis a = analyse(loadTraceText(kTwoChildren).trace);
  CHECK(a.races.checked);
  CHECK(a.races.racy == 1);
}
