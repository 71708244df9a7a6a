#include "fixtures.h"

#include <catch2/catch.hpp>

using namespace xab;
using xab::test::dataPath;
using xab::test::loadFixture;

TEST_CASE("header, task table and identity from the first record") {
  auto trace = loadFixture("cholesky_hang.trace");
  const TraceHeader& h = trace->header();
  CHECK(h.present);
  CHECK(h.version == 1);
  CHECK(h.abmon == 0x40001);
  CHECK(h.host == "vm");
  CHECK(h.pid == 4242);
  CHECK(h.start == 1763680000LL * 1'000'000'000);
  REQUIRE(trace->taskCount() == 4);
  CHECK(trace->monitorEvents().size() == 1);  // abmon.start belongs to no task
  auto host = trace->findTask(0x40002);
  REQUIRE(host);
  CHECK(trace->label(*host) == "(cholhost, 0)");
  CHECK(trace->str(trace->task(*host).host) == "vm");
  CHECK(trace->task(*host).parent == kNoTid);
  CHECK(trace->task(*host).pid == 100);
  CHECK(trace->label(*trace->findTask(0x40005)) == "(cholnode, 2)");
  CHECK(trace->task(*trace->findTask(0x40003)).parent == 0x40002);
  CHECK(trace->eventCount() == 32);  // abmon.start is not a task event
}

TEST_CASE("fields land in their slots and lists and strings in the tables") {
  auto trace = loadFixture("cholesky_hang.trace");
  const auto& ev = trace->events(*trace->findTask(0x40002));
  const Event& spawn = ev[2];
  REQUIRE(spawn.kind == Kind::SPAWN);
  CHECK(trace->str(spawn.get(Key::File, -1)) == "cholnode");
  auto tids = trace->list(spawn.get(Key::Tids, -1));
  REQUIRE(tids.size() == 3);
  CHECK(tids[2] == 0x40005);
  CHECK(spawn.rc == 3);
  const Event& recv = ev[ev.size() - 1];
  CHECK(recv.kind == Kind::RECV);
  CHECK(recv.isBegin());
  CHECK(recv.get(Key::Src) == kAnyTid);
  CHECK(recv.get(Key::Tag) == 16040);
  CHECK_FALSE(recv.hasRc());
  CHECK(recv.time == 1763680000LL * 1'000'000'000 + 190'000'000);
}

TEST_CASE("a malformed line is reported with its number and skipped") {
  LoadResult r = loadTraceFile(dataPath("malformed.trace"));
  CHECK(r.fatal.empty());
  REQUIRE(r.errorCount == 2);
  CHECK(r.errors[0].line == 3);
  CHECK_THAT(r.errors[0].reason, Catch::Contains("receive time"));
  CHECK(r.errors[1].line == 4);
  CHECK_THAT(r.errors[1].reason, Catch::Contains("tag"));
  REQUIRE(r.trace);
  const auto& ev = r.trace->events(0);
  REQUIRE(ev.size() == 4);  // mytid, future.call, mark, exit
  CHECK(ev[1].kind == Kind::OTHER);
  CHECK(r.trace->str(ev[1].a[0]) == "future.call");
  CHECK(ev[2].kind == Kind::MARK);
  CHECK(r.trace->str(ev[2].get(Key::Text, -1)) == "phase 2");  // unknown key ignored
}

TEST_CASE("stop at the first malformed line when asked") {
  ReadOptions o;
  o.stopOnError = true;
  LoadResult r = loadTraceFile(dataPath("malformed.trace"), o);
  CHECK_THAT(r.fatal, Catch::Contains("line 3"));
  REQUIRE(r.trace);
  CHECK(r.trace->eventCount() == 1);
}

TEST_CASE("a newer format version is refused with a clear message") {
  LoadResult r = loadTraceFile(dataPath("newer_version.trace"));
  CHECK_THAT(r.fatal, Catch::Contains("version 2 is newer"));
  REQUIRE(r.trace);
  CHECK(r.trace->eventCount() == 0);
}

TEST_CASE("a missing file is an error value") {
  LoadResult r = loadTraceFile(dataPath("no-such-file.trace"));
  CHECK_FALSE(r.trace);
  CHECK_THAT(r.fatal, Catch::Contains("no-such-file"));
}

TEST_CASE("partial lines fed in pieces give the same trace") {
  std::string text;
  {
    FILE* f = std::fopen(dataPath("cholesky_hang.trace").c_str(), "rb");
    REQUIRE(f);
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  auto whole = loadTraceText(text).trace;
  for (std::size_t piece : {1u, 2u, 7u, 64u, 1000u}) {
    TraceReader r;
    std::uint64_t seenEvents = 0;
    for (std::size_t i = 0; i < text.size(); i += piece) {
      r.feed(std::string_view(text).substr(i, piece));
      auto snap = r.snapshot();  // a live viewer takes these as it goes
      CHECK(snap->eventCount() >= seenEvents);
      seenEvents = snap->eventCount();
    }
    r.finish();
    auto t = r.take();
    INFO("piece " << piece);
    CHECK(r.errorCount() == 0);
    REQUIRE(t->eventCount() == whole->eventCount());
    REQUIRE(t->taskCount() == whole->taskCount());
    for (TaskIndex k = 0; k < t->taskCount(); ++k)
      for (std::uint32_t i = 0; i < t->events(k).size(); ++i) {
        CHECK(t->events(k)[i].time == whole->events(k)[i].time);
        CHECK(t->events(k)[i].kind == whole->events(k)[i].kind);
      }
  }
}

TEST_CASE("the last line without a newline is read at finish()") {
  TraceReader r;
  r.feed("1763680000.1 1763680000.1 t40002 mytid rc=t40002 name=x\n1763680000.2 1763680000.2 t40002 exit");
  CHECK(r.eventCount() == 1);
  r.finish();
  CHECK(r.eventCount() == 2);
  auto t = r.take();
  CHECK(t->task(0).exit == ExitHow::Exit);
  CHECK(t->events(0)[1].time == 1763680000LL * 1'000'000'000 + 200'000'000);
}

TEST_CASE("a snapshot does not change while the reader goes on") {
  TraceReader r;
  r.feed("1763680000.1 1763680000.1 t40002 mytid rc=t40002 name=x\n");
  auto snap = r.snapshot();
  for (int i = 0; i < 5000; ++i) r.feed("1763680000.2 1763680000.2 t40002 mark text=m\n");
  CHECK(snap->eventCount() == 1);
  CHECK(snap->events(0).size() == 1);
  CHECK(r.snapshot()->events(0).size() == 5001);
}

TEST_CASE("values: escapes, any, negative tids, data types") {
  auto r = loadTraceText(
      "1.5 1.5 t1 mark text=a%20b%25c%3d\n"
      "1.6 1.6 t1 recv src=-31 tag=any bytes=0 serial=0 rc=-2\n"
      "1.7 1.7 t1 pkdouble type=double n=3 stride=2 rc=0\n"
      "1.8 1.8 t1 mark text=bad%2\n"
      "1.9 1.9 t1 psend dst=t2 tag=1 bytes=8 serial=1 type=17 n=1 rc=0\n");
  REQUIRE(r.trace);
  CHECK(r.errorCount == 1);
  const auto& ev = r.trace->events(0);
  CHECK(r.trace->str(ev[0].get(Key::Text, -1)) == "a b%c=");
  CHECK(ev[1].get(Key::Src) == -31);
  CHECK(ev[1].get(Key::Tag) == kAnyTag);
  CHECK(ev[1].rc == -2);
  CHECK(ev[2].get(Key::Type) == 6);
  CHECK(ev[2].get(Key::Stride) == 2);
  CHECK(ev[3].get(Key::Type) == 17);  // an unknown type code stays a number
  CHECK_FALSE(r.trace->header().present);
}

TEST_CASE("records written back as text read the same (round trip of every fixture)") {
  for (const char* name : {"cholesky_hang.trace", "deadlock.trace", "barrier.trace", "barrier_hang.trace",
                           "mismatch.trace", "mcast.trace"}) {
    INFO(name);
    auto trace = loadFixture(name);
    std::string text;
    for (TaskIndex k = 0; k < trace->taskCount(); ++k)
      for (std::uint32_t i = 0; i < trace->events(k).size(); ++i) text += formatRecord(*trace, k, i) + "\n";
    auto again = loadTraceText(text);
    REQUIRE(again.errorCount == 0);
    REQUIRE(again.trace->taskCount() == trace->taskCount());
    for (TaskIndex k = 0; k < trace->taskCount(); ++k) {
      CHECK(again.trace->label(k) == trace->label(k));
      REQUIRE(again.trace->events(k).size() == trace->events(k).size());
      for (std::uint32_t i = 0; i < trace->events(k).size(); ++i)
        CHECK(formatRecord(*again.trace, k, i) == formatRecord(*trace, k, i));
    }
  }
}

TEST_CASE("a record as text is the line it came from") {
  auto trace = loadFixture("cholesky_hang.trace");
  TaskIndex host = *trace->findTask(0x40002);
  CHECK(formatRecord(*trace, host, 0) ==
        "1763680000.100000000 1763680000.100000000 t40002 mytid rc=t40002 name=cholhost host=vm parent=none lang=c pid=100");
  CHECK(formatRecord(*trace, host, 2) ==
        "1763680000.150000000 1763680000.150000000 t40002 spawn file=cholnode count=3 tids=t40003,t40004,t40005 rc=3");
  CHECK(formatRecord(*trace, host, 6) == "1763680000.190000000 1763680000.190000000 t40002 recv.begin src=any tag=16040");
  CHECK(fieldOf(trace->events(host)[6], "tag") == 16040);
  CHECK_FALSE(fieldOf(trace->events(host)[6], "rc"));
}

TEST_CASE("events of all tasks in time order") {
  auto trace = loadFixture("cholesky_hang.trace");
  TimeNs last = 0;
  std::size_t n = 0;
  forEachByTime(*trace, [&](TaskIndex, std::uint32_t, const Event& e) {
    CHECK(e.time >= last);
    last = e.time;
    ++n;
  });
  CHECK(n == trace->eventCount());
}

namespace {

// A record whose mark holds `bytes` of text, half of it spaces (%20 in the
// trace): a line of about twice that.
std::string markLine(std::size_t bytes) {
  std::string text;
  text.reserve(bytes * 2);
  for (std::size_t i = 0; i < bytes; ++i) text += (i % 2) ? "%20" : "x";
  return "1.5 1.5 t1 mark text=" + text + " rc=0\n";
}

struct Fed {
  std::uint64_t events, errors, lines;
  std::string firstError;
  std::size_t markSize;
};

// Feeds text in pieces of `piece` bytes (0: all at once), as a pipe (64 KiB),
// a file (1 MiB) or a test (everything) would.
Fed feedInPieces(const std::string& text, std::size_t piece) {
  TraceReader r;
  if (piece == 0) piece = text.size();
  for (std::size_t at = 0; at < text.size(); at += piece) r.feed(std::string_view(text).substr(at, piece));
  r.finish();
  std::uint64_t events = r.eventCount();
  auto t = r.take();
  std::size_t mark = 0;
  if (auto task = t->findTask(0x1))
    t->events(*task).forEach([&](const Event& e) {
      if (e.kind == Kind::MARK) mark = t->str(e.get(Key::Text, -1)).size();
    });
  return {events, r.errorCount(), r.lineCount(), r.errors().empty() ? "" : r.errors()[0].reason, mark};
}

}  // namespace

// A 1.4 MB line (a real 700 KB mark) was read when it
// came in one read and skipped when it spanned several (a pipe).
TEST_CASE("the line limit is the same whatever pieces a line comes in") {
  const std::string head = "1.0 1.0 t1 mytid rc=t1 name=big\n";
  const std::string tail = "2.0 2.0 t1 exit rc=0\n";
  const std::string big = head + markLine(700'000) + tail;  // a 1.4 MB line
  for (std::size_t piece : {std::size_t{0}, std::size_t{1} << 20, std::size_t{65536}, std::size_t{4093}}) {
    INFO("piece " << piece);
    Fed f = feedInPieces(big, piece);
    CHECK(f.errors == 0);
    CHECK(f.events == 3);
    CHECK(f.lines == 3);
    CHECK(f.markSize == 700'000);  // "x x x ...": 700 KB of text, 1.4 MB escaped
  }
  // One byte over the limit: skipped by every path, with the same error
  // and the same line numbers after it.
  std::string over = "1.5 1.5 t1 mark text=";
  over += std::string(kMaxTraceLine + 1 - over.size(), 'y');
  REQUIRE(over.size() == kMaxTraceLine + 1);
  std::string exact = "1.6 1.6 t1 mark text=";
  exact += std::string(kMaxTraceLine - exact.size(), 'z');
  const std::string text = head + over + "\n" + exact + "\n" + tail;
  for (std::size_t piece : {std::size_t{0}, std::size_t{1} << 20, std::size_t{65536}}) {
    INFO("piece " << piece);
    Fed f = feedInPieces(text, piece);
    CHECK(f.errors == 1);
    CHECK(f.firstError == "line longer than " + std::to_string(kMaxTraceLine) + " bytes, skipped");
    CHECK(f.events == 3);  // mytid, the mark of exactly the limit, exit
    CHECK(f.lines == 4);
    CHECK(f.markSize == kMaxTraceLine - 21);
  }
}

// abmon writes a task's identity on a line of its own as an info record (a
// spawned task that never spoke, a console, a name found late): its fields
// are the task's identity, whatever records came before it.
TEST_CASE("an info record's fields are the task's identity") {
  LoadResult r = loadTraceFile(dataPath("info_identity.trace"));
  REQUIRE(r.trace);
  CHECK(r.errorCount == 0);
  auto kid = r.trace->findTask(0x40003);
  REQUIRE(kid);
  CHECK(r.trace->label(*kid) == "(kid, 0)");
  CHECK(r.trace->task(*kid).parent == 0x40002);
  CHECK(r.trace->str(r.trace->task(*kid).host) == "vm");
  auto console = r.trace->findTask(0x40004);
  REQUIRE(console);
  CHECK(r.trace->label(*console) == "(pvm, 0)");
  CHECK(r.trace->task(*console).parent == kNoTid);
}
