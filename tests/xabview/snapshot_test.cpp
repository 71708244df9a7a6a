// The snapshot's arrival order and the task-state words of the task table.
#include "activity.h"
#include "support.h"

#include <xab/model/reader.h>

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <tuple>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

TEST_CASE("the arrival order holds every record once, at its input position") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  REQUIRE(s->size() == s->trace->eventCount() + s->trace->monitorEvents().size());
  for (std::size_t p = 0; p < s->size(); ++p) CHECK(s->eventAt(p).seq == p);
  CHECK(s->order[0].task == kMonitorTask);  // abmon.start comes first
  // Records of the host arrive first, then each node's batch.
  TaskIndex host = taskNamed(*s, "cholhost", 0);
  CHECK(s->order[1].task == host);
  CHECK(s->prefixAt(host, 0) == 0);
  CHECK(s->prefixAt(host, s->size()) == s->trace->events(host).size());
}

TEST_CASE("timeAt is the latest task time shown, and never goes back") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  TimeNs prev = s->timeAt(0);
  for (std::size_t p = 1; p <= s->size(); ++p) {
    CHECK(s->timeAt(p) >= prev);
    prev = s->timeAt(p);
  }
  CHECK(s->timeAt(s->size()) == s->tasksEnd);
}

TEST_CASE("each task's spans cover its records in time order") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  for (TaskIndex t = 0; t < s->trace->taskCount(); ++t) {
    const auto& spans = s->spans[t];
    REQUIRE_FALSE(spans.empty());
    CHECK(spans.front().begin == s->trace->events(t)[0].time);
    for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i - 1].begin <= spans[i].begin);
    CHECK(spanEnd(spans, spans.size() - 1) == kOpenEnd);  // every task is still blocked at the end
  }
}

TEST_CASE("the task table says what each task is doing, as in the paper's Figure 2") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  TaskIndex host = taskNamed(*s, "cholhost", 0);
  TaskIndex node0 = taskNamed(*s, "cholnode", 0);
  auto all = [&](TaskIndex t) { return static_cast<std::uint32_t>(s->trace->events(t).size()); };
  TimeNs later = s->lastTime() + 12'400'000'000;
  auto h = describeTask(*s, host, all(host), later);
  CHECK(h.kind == Activity::Blocked);
  CHECK(h.text.toStdString() == "blocked in recv(src any, tag 16040) for 12.4 s");
  auto n = describeTask(*s, node0, all(node0), s->lastTime());
  CHECK(n.text.startsWith("blocked in recv(src (cholhost, 0)"));  // the host, named as everywhere
  CHECK(n.text.contains("tag 16010"));
  // Node 0's fifth record is pkfloat n=8: "placing eight floats into a message buffer".
  auto packing = describeTask(*s, node0, 6, s->lastTime());
  CHECK(packing.text.toStdString() == "packing 8 floats");
  CHECK(packing.kind == Activity::Communicating);
  CHECK(describeTask(*s, node0, 0, 0).text.toStdString() == "not started");
}

// Under a budget (--budget) a master's first worker has started, worked and
// ended before the window the reader keeps: it shows none of its records,
// and it has exited, as in the whole run.
TEST_CASE("a task that ended before a budget's window shows as exited, not as not started") {
  const std::string text =
      "#xab-trace 1 abmon=t40001 host=vm pid=4242 start=1763680000.000000000\n"
      "1763680000.100000000 1763680000.100000000 t40002 mytid rc=t40002 name=master host=vm parent=none lang=c pid=200\n"
      "1763680000.101000000 1763680000.101000000 t40003 mytid rc=t40003 name=slave host=vm parent=t40002 lang=c pid=201\n"
      "1763680000.102000000 1763680000.102000000 t40003 send dst=t40002 tag=4 bytes=4 serial=1 rc=0\n"
      "1763680000.103000000 1763680000.103000000 t40003 task.exit how=notify\n"
      "1763680000.104000000 1763680000.104000000 t40002 recv src=t40003 tag=4 bytes=4 serial=1 rc=5\n"
      "1763680000.105000000 1763680000.105000000 t40004 mytid rc=t40004 name=slave host=vm parent=t40002 lang=c pid=202\n"
      "1763680000.106000000 1763680000.106000000 t40004 recv.begin src=t40002 tag=1\n";
  TraceReader reader;
  reader.feed(text);
  reader.finish();
  reader.cut(5);  // the window: the second worker's records
  auto s = buildSnapshot(reader.take());
  REQUIRE(s->trace->cut().cut);
  const TaskIndex first = taskNamed(*s, "slave", 0);
  REQUIRE(s->trace->events(first).empty());
  const auto gone = describeTask(*s, first, 0, s->lastTime());
  CHECK(gone.kind == Activity::Exited);
  CHECK(gone.text.toStdString() == "exited (pvmd says gone)");
  // Before its exit's time it had not: the replay never shows a time before
  // the window, but a task is told as of the time asked.
  CHECK(describeTask(*s, first, 0, 1763680000'102000000).kind == Activity::NotStarted);
  const auto blocked = describeTask(*s, taskNamed(*s, "slave", 1), 2, s->lastTime());
  CHECK(blocked.kind == Activity::Blocked);
}

TEST_CASE("barrier words count the tasks that have arrived") {
  auto s = snapshotOf(dataPath("barrier.trace"));
  TaskIndex w0 = taskNamed(*s, "worker", 0);
  TimeNs firstArrival = s->trace->events(w0)[2].time;
  auto a = describeTask(*s, w0, 3, firstArrival);
  CHECK(a.kind == Activity::Barrier);
  CHECK(a.text.toStdString().rfind("in barrier `w` (1 of 3 arrived)", 0) == 0);
  auto b = describeTask(*s, w0, 3, firstArrival + 500'000'000);  // 2.5 s: all three there
  CHECK(b.text.contains("(3 of 3 arrived)"));
  auto done = describeTask(*s, w0, static_cast<std::uint32_t>(s->trace->events(w0).size()), s->lastTime());
  CHECK(done.kind == Activity::Exited);
  CHECK(done.text.toStdString() == "exited");
}

TEST_CASE("a record's fields read as the trace file writes them") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  TaskIndex host = taskNamed(*s, "cholhost", 0);
  const auto& ev = s->trace->events(host);
  CHECK(eventArgs(*s->trace, ev[ev.size() - 1]).toStdString() == "src=any tag=16040");
  bool sawMcast = false;
  ev.forEach([&](const Event& e) {
    if (e.kind == Kind::MCAST) {
      sawMcast = true;
      CHECK(eventArgs(*s->trace, e).toStdString() == "dst=t40003,t40004,t40005 tag=16001 bytes=32 serial=1 rc=0");
    }
  });
  CHECK(sawMcast);
}

TEST_CASE("the arrival order, 2 bytes a record, gives each position's task and index, one by one or in a run") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  std::vector<OrderEntry> seen;
  s->order.forEach(0, s->size(), [&](std::size_t p, const OrderEntry& e) {
    CHECK(p == seen.size());
    seen.push_back(e);
  });
  REQUIRE(seen.size() == s->size());
  for (std::size_t p = 0; p < s->size(); ++p) {
    OrderEntry e = s->order[p];
    CHECK(e.task == seen[p].task);
    CHECK(e.index == seen[p].index);
    CHECK(s->event(e).seq == p);  // the record at that position
  }
  // A run that starts in the middle counts from there.
  std::size_t from = s->size() / 2, n = 0;
  s->order.forEach(from, s->size(), [&](std::size_t p, const OrderEntry& e) {
    CHECK(e.index == seen[p].index);
    ++n;
  });
  CHECK(n == s->size() - from);
  CHECK(s->order.memoryBytes() <= 2 * s->size() + 16);
}

// Live, each snapshot extends the last one's order and spans by the new
// records only.  Read in pieces of every size, each snapshot must equal one
// built from scratch: same arrival order, same spans per task.
TEST_CASE("a snapshot extended record by record equals one built whole") {
  for (const char* name : {"cholesky_hang.trace", "ge.trace", "mcast.trace", "barrier_hang.trace", "handler.trace",
                           "demo_hang_killed.trace", "bcast_left.trace"}) {
    INFO(name);
    std::ifstream in(dataPath(name));
    std::stringstream text;
    text << in.rdbuf();
    const std::string all = text.str();
    for (std::size_t piece : {1, 7, 61, 400}) {
      INFO("pieces of " << piece << " bytes");
      TraceReader reader;
      SnapshotBuilder builder;
      int compared = 0;
      std::tuple<std::uint64_t, std::size_t, std::size_t> comparedAt{0, 0, 0};
      std::size_t wholeSize = 0;
      for (std::size_t at = 0; at < all.size(); at += piece) {
        reader.feed(std::string_view(all).substr(at, piece));
        auto trace = reader.snapshot();
        auto live = builder.update(trace);
        // A piece that ends no record adds nothing: the live snapshot must
        // stay as it was, and building a whole one again (quadratic in
        // one-byte pieces: a minute under ASan) would prove nothing more.
        const std::tuple now{trace->eventCount(), trace->monitorEvents().size(), trace->taskCount()};
        if (now == comparedAt && at + piece < all.size()) {
          REQUIRE(live->size() == wholeSize);
          continue;
        }
        comparedAt = now;
        auto whole = buildSnapshot(trace);
        wholeSize = whole->size();
        REQUIRE(live->size() == whole->size());
        for (std::size_t p = 0; p < whole->size(); ++p) REQUIRE(live->order.taskAt(p) == whole->order.taskAt(p));
        REQUIRE(live->spans.size() == whole->spans.size());
        for (TaskIndex t = 0; t < whole->spans.size(); ++t) {
          INFO("task " << t << " after " << at + piece << " bytes");
          const auto& a = live->spans[t];
          const auto& b = whole->spans[t];
          REQUIRE(a.size() == b.size());
          for (std::size_t i = 0; i < a.size(); ++i) {
            CHECK(a[i].begin == b[i].begin);
            CHECK(a[i].first == b[i].first);
            CHECK(a[i].state == b[i].state);
          }
        }
        CHECK(live->tasksEnd == whole->tasksEnd);
        ++compared;
      }
      CHECK(compared > 0);
    }
  }
}

namespace {

// Tasks packing and receiving in a loop, long enough for mipmaps; the
// first task's clock `shift` ns ahead.
std::string busyTrace(int tasks, int rounds, long long shift) {
  std::string out = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.0\n";
  char line[256];
  auto stamp = [&](long long time, int tid, const char* rec) {
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x %s\n", time / 1000000000, time % 1000000000,
                  time / 1000000000, time % 1000000000, tid, rec);
    out += line;
  };
  for (int t = 0; t < tasks; ++t) {
    long long time = 1'000'000'000'000LL + (t == 0 ? shift : 0);
    const int tid = 0x40002 + t;
    std::snprintf(line, sizeof line, "mytid rc=t%x name=w host=vm parent=none lang=c pid=%d", tid, t);
    stamp(time, tid, std::string(line).c_str());
    for (int r = 0; r < rounds; ++r)
      for (const char* rec : {"initsend enc=0 rc=1", "pkint type=int n=4 stride=1 rc=0", "recv.begin src=any tag=3",
                              "recv src=any tag=3 bytes=0 serial=0 rc=0"})
        stamp(time += 1000 + (r % 7) * 100, tid, rec);
  }
  return out;
}

void requireSameMipmaps(const ViewSnapshot& a, const ViewSnapshot& b) {
  REQUIRE(a.mipmaps.size() == b.mipmaps.size());
  for (TaskIndex t = 0; t < a.mipmaps.size(); ++t) {
    INFO("task " << t);
    const StateMipmap &x = a.mipmaps[t], &y = b.mipmaps[t];
    REQUIRE(x.width0 > 0);
    CHECK(x.width0 == y.width0);
    CHECK(x.origin == y.origin);
    REQUIRE(x.levels.size() == y.levels.size());
    for (std::size_t l = 0; l < x.levels.size(); ++l) {
      REQUIRE(x.levels[l].size() == y.levels[l].size());
      int differ = 0;
      for (std::size_t j = 0; j < x.levels[l].size(); ++j) differ += x.levels[l][j] != y.levels[l][j];
      CHECK(differ == 0);
    }
  }
}

}  // namespace

// Live, the builder folds each span into its task's mipmap once, as it
// settles: in whatever pieces the records come, the mipmaps are those of
// the whole trace.  A new time base (the same records at other times)
// makes them again.
TEST_CASE("mipmaps made as the records come equal the whole trace's, and are made again on a new time base") {
  const std::string text = busyTrace(3, 3000, 0);
  TraceReader reader;
  SnapshotBuilder builder;
  std::shared_ptr<ViewSnapshot> live;
  for (std::size_t at = 0; at < text.size(); at += text.size() / 9 + 1) {
    reader.feed(std::string_view(text).substr(at, text.size() / 9 + 1));
    live = builder.update(reader.snapshot());
  }
  requireSameMipmaps(*live, *buildSnapshot(reader.snapshot(), false));
  TraceReader other;
  other.feed(busyTrace(3, 3000, 777'777));
  auto moved = other.snapshot();
  auto rebased = builder.update(moved, true);
  requireSameMipmaps(*rebased, *buildSnapshot(moved, false));
  CHECK(rebased->mipmaps[0].origin == live->mipmaps[0].origin + 777'777);
}

// The newest record's age (--frame-log, the live benchmark) is of any
// record shown: abmon's stop, written after a quiet time of its own once
// the program's records end, is the newest, not the program's last record.
TEST_CASE("the newest arrival is the newest record's of any, abmon's stop too") {
  auto s = snapshotOfText(
      "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.0\n"
      "1763680000.1 1763680000.1 t40002 mytid rc=t40002 name=a host=vm parent=none lang=c pid=5\n"
      "1763680000.3 1763680000.2 t40002 exit rc=0\n"
      "1763680000.6 1763680000.6 t40001 abmon.stop events=2 tasks=1\n");
  REQUIRE(s->trace->monitorEvents().size() == 1);
  CHECK(s->newestArrival == 1'763'680'000'600'000'000);
}
