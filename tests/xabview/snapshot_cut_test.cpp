// A budget's cut seen by the snapshot builder: the order, spans and
// mipmaps it carries across a cut are those a fresh build of the cut trace
// makes, and carrying them reads the records at each task's junction, not
// the window.
#include "support.h"

#include <xab/model/reader.h>
#include <xab/model/states.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// A ring of three tasks (each sends to its right and waits in a receive
// for its left, open across most cuts; the second one's handler packs
// inside its receive), a barrier every other round, a task whose records
// all come first (dropped by later cuts), one that appears halfway and
// stays blocked, and the third ring task's exit at the end.
std::vector<std::string> ringLines(int rounds) {
  std::vector<std::string> out;
  long long t = 1763680000'100000000LL;
  char line[256];
  auto rec = [&](int tid, const std::string& rest) {
    t += 1'000'000;
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x %s\n", t / 1000000000, t % 1000000000,
                  t / 1000000000, t % 1000000000, tid, rest.c_str());
    out.push_back(line);
  };
  auto tid = [](int v) {
    char b[16];
    std::snprintf(b, sizeof b, "t%x", v);
    return std::string(b);
  };
  const int ring[] = {0x40002, 0x40003, 0x40004};
  const int early = 0x40005, late = 0x40006;
  for (int i = 0; i < 3; ++i)
    rec(ring[i], "mytid rc=" + tid(ring[i]) + " name=ring host=vm parent=none lang=c pid=" + std::to_string(200 + i));
  rec(early, "mytid rc=" + tid(early) + " name=early host=vm parent=none lang=c pid=300");
  rec(early, "initsend enc=0 rc=1");
  rec(early, "send dst=t40002 tag=9 bytes=4 serial=1 rc=0");
  rec(early, "task.exit how=notify");
  int serial = 1;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 3; ++i) {
      rec(ring[i], "initsend enc=0 rc=1");
      rec(ring[i], "pkint type=int n=1 stride=1 rc=0");
      rec(ring[i], "send dst=" + tid(ring[(i + 1) % 3]) + " tag=1 bytes=4 serial=" + std::to_string(++serial) + " rc=0");
      rec(ring[i], "recv.begin src=any tag=1");
    }
    rec(ring[1], "initsend enc=0 rc=1");  // a handler, inside the receive
    rec(ring[1], "pkint type=int n=1 stride=1 rc=0");
    if (r == rounds / 2) {
      rec(late, "mytid rc=" + tid(late) + " name=late host=vm parent=none lang=c pid=400");
      rec(late, "recv.begin src=any tag=5");
    }
    for (int i = 0; i < 3; ++i) {
      rec(ring[i], "recv src=" + tid(ring[(i + 2) % 3]) + " tag=1 bytes=4 serial=" + std::to_string(serial - 2 + i) + " rc=1");
      rec(ring[i], "upkint type=int n=1 stride=1 rc=0");
    }
    if (r % 2 == 1) {
      for (int i = 0; i < 3; ++i) rec(ring[i], "barrier.begin group=g count=3");
      for (int i = 0; i < 3; ++i) rec(ring[i], "barrier group=g count=3 rc=0");
    }
  }
  rec(ring[2], "exit rc=0");
  for (int i = 0; i < 2; ++i) rec(ring[i], "recv.begin src=any tag=1");
  return out;
}

// Two tasks in bursts: 300 sends 10 us apart each, then a 50 ms wait in
// a receive (history bins of 1 ms wholly in it).
std::vector<std::string> burstLines(int bursts) {
  std::vector<std::string> out;
  long long t = 1763680000'100000000LL;
  char line[256];
  auto rec = [&](int tid, const std::string& rest) {
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x %s\n", t / 1000000000, t % 1000000000,
                  t / 1000000000, t % 1000000000, tid, rest.c_str());
    out.push_back(line);
  };
  const int a = 0x40002, b = 0x40003;
  rec(a, "mytid rc=t40002 name=burst host=vm parent=none lang=c pid=200");
  rec(b, "mytid rc=t40003 name=burst host=vm parent=none lang=c pid=201");
  int serial = 0;
  for (int k = 0; k < bursts; ++k) {
    for (int i = 0; i < 300; ++i)
      for (int task : {a, b}) {
        t += 5'000;
        rec(task, "initsend enc=0 rc=1");
        t += 5'000;
        rec(task, std::string("send dst=") + (task == a ? "t40003" : "t40002") + " tag=1 bytes=4 serial=" +
                      std::to_string(++serial) + " rc=0");
      }
    for (int task : {a, b}) rec(task, "recv.begin src=any tag=2");
    t += 50'000'000;
    for (int task : {a, b}) rec(task, std::string("recv src=") + (task == a ? "t40003" : "t40002") + " tag=2 bytes=4 serial=1 rc=1");
  }
  return out;
}

std::string join(const std::vector<std::string>& lines, std::size_t from, std::size_t to) {
  std::string s = from == 0 ? "#xab-trace 1 abmon=t40001 host=vm pid=4242 start=1763680000.000000000\n" : "";
  for (std::size_t i = from; i < to && i < lines.size(); ++i) s += lines[i];
  return s;
}

// What a carried snapshot must equal: a fresh build of the same trace.
void checkAsFresh(const ViewSnapshot& s) {
  const auto fresh = SnapshotBuilder().update(s.trace);
  REQUIRE(s.size() == fresh->size());
  for (std::size_t p = 0; p < s.size(); ++p) {
    const OrderEntry a = s.order[p], b = fresh->order[p];
    INFO("position " << p);
    REQUIRE(a.task == b.task);
    REQUIRE(a.index == b.index);
  }
  REQUIRE(s.spans.size() == fresh->spans.size());
  for (TaskIndex t = 0; t < s.spans.size(); ++t) {
    INFO("task " << t);
    const SpanList &a = s.spans[t], &b = fresh->spans[t];
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO("span " << i);
      REQUIRE(a.firstAt(i) == b.firstAt(i));
      REQUIRE(a.stateAt(i) == b.stateAt(i));
      REQUIRE(a.beginAt(i) == b.beginAt(i));
    }
    // The mipmaps: the same bins where they show any.
    const StateMipmap &m = s.mipmaps[t], &f = fresh->mipmaps[t];
    REQUIRE(m.width0 == f.width0);
    if (m.width0 == 0) continue;
    CHECK(m.origin == f.origin);
    CHECK(m.from == f.from);
    REQUIRE(m.levels.size() == f.levels.size());
    for (std::size_t l = 0; l < m.levels.size(); ++l) {
      REQUIRE(m.levels[l].size() == f.levels[l].size());
      for (std::size_t k = 0; k < m.levels[l].size(); ++k) {
        const TimeNs at = m.origin + static_cast<TimeNs>(k) * m.binWidth(l);
        INFO("level " << l << " bin " << k);
        REQUIRE(m.at(l, at) == f.at(l, at));
      }
    }
  }
  CHECK(s.tasksBegin == fresh->tasksBegin);
  CHECK(s.tasksEnd == fresh->tasksEnd);
}

// The history of the records the cut dropped, against one folded from
// every dropped interval (as the builder folds a task without a mipmap).
// A task with a mipmap gives its finest bins, each in one state: a history
// bin that one state covered reads that state, a mixed one the state most
// of its mipmap bins had (which is not always the one of the most time).
void checkHistory(const ViewSnapshot& before, const ViewSnapshot& after) {
  REQUIRE(after.history);
  const RunHistory& h = *after.history;
  const Trace& old = *before.trace;
  const Trace& cut = *after.trace;
  RunHistory exact(before.tasksBegin, h.binWidth());
  std::vector<std::vector<StateInterval>> dropped(old.taskCount());
  for (TaskIndex t = 0; t < old.taskCount(); ++t) {
    const TimeNs windowBegin = cut.events(t).empty() ? cut.cut().time : cut.events(t)[0].time;
    for (StateInterval iv : stateIntervals(old, t)) {
      if (iv.begin >= windowBegin) break;
      iv.end = std::min(windowBegin, iv.end);
      if (iv.state == TaskState::Exited || iv.state == TaskState::NotStarted) continue;
      exact.fold(t, iv.begin, iv.end, iv.state);
      dropped[t].push_back(iv);
    }
  }
  exact.settle();
  REQUIRE(exact.binWidth() == h.binWidth());
  const TimeNs w = h.binWidth();
  std::size_t bins = 0, same = 0, whole = 0;
  for (TaskIndex t = 0; t < old.taskCount(); ++t)
    for (TimeNs b = h.origin(); b < h.end(); b += w) {
      ++bins;
      same += h.stateIn(t, b, b + w) == exact.stateIn(t, b, b + w);
      for (const StateInterval& iv : dropped[t])
        if (iv.begin <= b && iv.end >= b + w) {
          ++whole;
          INFO("task " << t << " bin at " << b - h.origin() << " ns, wholly " << stateName(iv.state));
          CHECK(h.stateIn(t, b, b + w) == static_cast<std::uint8_t>(iv.state));
        }
    }
  INFO(same << " of " << bins << " history bins in the state of the most time, " << whole << " in one state");
  CHECK(whole > 0);
  CHECK(same * 4 >= bins * 3);
}

}  // namespace

TEST_CASE("a cut at any position: the carried order and spans are a fresh build's", "[snapshot][cut]") {
  const auto lines = ringLines(8);
  const std::size_t n = lines.size();
  for (std::size_t fed : {n / 2, n * 3 / 4}) {
    for (std::uint64_t at = 1; at < fed; ++at) {
      INFO("fed " << fed << " records, cut at " << at);
      TraceReader reader;
      SnapshotBuilder builder;
      reader.feed(join(lines, 0, fed));
      builder.update(reader.snapshot());
      reader.cut(at);
      auto s = builder.update(reader.snapshot());
      REQUIRE(s->trace->cut().cut);
      checkAsFresh(*s);
      // More records, then a second cut halfway between the first and the end.
      reader.feed(join(lines, fed, fed + (n - fed) / 2));
      checkAsFresh(*builder.update(reader.snapshot()));
      reader.cut(at + (reader.runRecords() - at) / 2);
      checkAsFresh(*builder.update(reader.snapshot()));
      reader.feed(join(lines, fed + (n - fed) / 2, n));
      reader.finish();
      checkAsFresh(*builder.update(reader.snapshot()));
    }
  }
}

TEST_CASE("a cut keeps the mipmaps: their bins from each task's junction on are a fresh build's", "[snapshot][cut]") {
  const std::string text = slowRingTrace(6000, 3);  // about 24000 spans a task
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] != '#') lines.push_back(l + "\n");
  const std::size_t n = lines.size();
  for (std::size_t at : {n / 5, n / 3 + 7, n / 2 + 1}) {
    INFO("cut at " << at);
    TraceReader reader;
    SnapshotBuilder builder;
    reader.feed(join(lines, 0, n * 4 / 5));
    auto before = builder.update(reader.snapshot());
    REQUIRE(before->mipmaps[0].width0 != 0);
    reader.cut(at);
    auto s = builder.update(reader.snapshot());
    REQUIRE(s->mipmaps[0].width0 != 0);
    CHECK(s->mipmaps[0].from >= s->trace->firstTime());
    CHECK(s->mipmaps[0].from < INT64_MAX);
    checkAsFresh(*s);
    reader.feed(join(lines, n * 4 / 5, n));
    reader.finish();
    s = builder.update(reader.snapshot());
    checkAsFresh(*s);
    // And the diagram at full zoom-out, the run's history to the left, is
    // the picture of a fresh build's snapshot with the same history.
    auto fresh = SnapshotBuilder().update(s->trace);
    fresh->history = s->history;
    for (auto* snap : {s.get(), fresh.get()}) snap->analysis = analyseSnapshot(*snap);
    ViewState a, b;
    a.setSnapshot(s);
    b.setSnapshot(fresh);
    QImage ia(1200, 200, QImage::Format_RGB32), ib(1200, 200, QImage::Format_RGB32);
    DiagramStats sa, sb;
    paintDiagramInto(ia, a, &sa);
    paintDiagramInto(ib, b, &sb);
    CHECK(ia == ib);
  }
}

// The work of a cut: the records at each task's junction and the new ones,
// not the window (a fresh build reads every block of it).
TEST_CASE("the snapshot after a cut reads the junctions' blocks, not the window's", "[snapshot][cut]") {
  const std::string text = slowRingTrace(4000, 4);
  TraceReader reader;
  reader.feed(text);
  reader.finish();
  SnapshotBuilder builder;
  builder.update(reader.snapshot());
  reader.cut(reader.runRecords() / 2);
  const auto trace = reader.snapshot();
  std::uint64_t blocks = 0;
  for (TaskIndex t = 0; t < trace->taskCount(); ++t) blocks += (trace->events(t).size() + 31) / 32;
  const std::uint64_t before = EventStore::blocksDecoded();
  auto s = builder.update(trace);
  const std::uint64_t decoded = EventStore::blocksDecoded() - before;
  INFO(decoded << " blocks decoded of the window's " << blocks);
  // A few binary searches a task (where its junction is, in the old window
  // and the new; its spans at the history's end), and the blocks there.
  const auto searches = static_cast<std::uint64_t>(std::log2(static_cast<double>(blocks)) + 1);
  CHECK(decoded <= trace->taskCount() * (4 * searches + 16));
  checkAsFresh(*s);
}

TEST_CASE("the history of a cut, from the mipmaps' bins, holds the dropped states", "[snapshot][cut]") {
  const auto lines = burstLines(24);
  const std::size_t n = lines.size();
  for (std::size_t at : {n / 4, n / 3 + 5, n / 2 + 11}) {
    INFO("cut at " << at);
    TraceReader reader;
    SnapshotBuilder builder;
    reader.feed(join(lines, 0, n));
    auto before = builder.update(reader.snapshot());
    REQUIRE(before->mipmaps[0].width0 != 0);
    reader.cut(at);
    auto s = builder.update(reader.snapshot());
    checkAsFresh(*s);
    checkHistory(*before, *s);
  }
}
