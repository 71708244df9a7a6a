// A run of any length: a cut trace (TraceReader::cut) and the analyses on
// it, the window of a TraceSource, its time index against a scan of the
// file, readRange against a whole read (a plain file, a .zst, a pipe's
// spill file), and the spill file gone at the end.
#include "fixtures.h"
#include "xab/test/process.h"

#include <xab/model/builder.h>
#include <xab/model/source.h>
#include <xab/model/states.h>

#include <zstd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <sys/stat.h>
#include <unistd.h>

using namespace xab;
using xab::test::dataPath;
using xab::test::readFile;

namespace {

// The trace of `text` read whole, then cut at whole-run position `at`.
std::shared_ptr<const Trace> cutAt(std::string_view text, std::uint64_t at) {
  TraceReader r;
  r.feed(text);
  r.finish();
  r.cut(at);
  return r.take();
}

// A record identified across traces: its task's tid and its run position.
using RecordId = std::pair<Tid, std::uint64_t>;
RecordId idOf(const Trace& t, EventRef r) { return {t.task(r.task).tid, t.runPosition(t.event(r).seq)}; }

const char* const kSuite[] = {"abrun_lost_tail.trace", "barrier.trace", "barrier_hang.trace", "bcast_left.trace", "cholesky_hang.trace",
                              "deadlock.trace", "demo_hang_killed.trace", "ge.trace", "handler.trace",
                              "handler_hang.trace", "mcast.trace", "mismatch.trace", "psend_precv.trace",
                              "recvf_hang.trace", "two-hosts.trace", "why_overload.trace"};

}  // namespace

TEST_CASE("a cut trace: positions renumbered from 0 with the task table whole and open calls carried", "[window]") {
  const std::string text = readFile(dataPath("cholesky_hang.trace"));
  auto whole = loadTraceText(text).trace;
  const std::uint64_t n = whole->eventCount() + whole->monitorEvents().size();
  for (std::uint64_t at = 1; at < n; ++at) {
    auto cut = cutAt(text, at);
    CAPTURE(at);
    REQUIRE(cut->cut().cut);
    CHECK(cut->cut().position == at);
    CHECK(cut->cut().dropped + cut->cut().carried == at);
    CHECK(cut->taskCount() == whole->taskCount());
    std::set<std::uint32_t> seqs;
    for (TaskIndex t = 0; t < cut->taskCount(); ++t) {
      CHECK(cut->task(t).tid == whole->task(t).tid);
      CHECK(cut->label(t) == whole->label(t));
      cut->events(t).forEach([&](const Event& e) { seqs.insert(e.seq); });
    }
    for (const Event& e : cut->monitorEvents()) seqs.insert(e.seq);
    // seq 0 .. held-1, each once; run positions are the whole trace's.
    REQUIRE(!seqs.empty());
    CHECK(*seqs.begin() == 0);
    CHECK(*seqs.rbegin() == seqs.size() - 1);
    for (TaskIndex t = 0; t < cut->taskCount(); ++t)
      for (std::size_t i = 0; i < cut->events(t).size(); ++i) {
        const Event e = cut->events(t)[i];
        const std::uint64_t pos = cut->runPosition(e.seq);
        if (e.seq >= cut->cut().carried) CHECK(pos >= at);
        // The same record in the whole trace: same time and kind.
        bool found = false;
        whole->events(t).forEach([&](const Event& w) {
          if (w.seq == pos) found = w.time == e.time && w.kind == e.kind && w.phase == e.phase && w.rc == e.rc;
        });
        CHECK(found);
      }
  }
}

TEST_CASE("analyses on a cut trace report nothing the whole trace does not (messages, mismatches, hang, barriers, wait states)", "[window]") {
  for (const char* name : kSuite) {
    const std::string text = readFile(dataPath(name));
    AnalyseOptions why;
    why.why = true;
    const Analysis whole = analyse(loadTraceText(text).trace, why);
    std::set<RecordId> unmatched, mismatched;
    // A wait state: who waited, at which record, how, and who caused it.
    using Wait = std::tuple<Tid, std::uint64_t, int, Tid>;
    auto waitOf = [](const Analysis& a, const WaitState& w) {
      return Wait{a.trace->task(w.task).tid, a.trace->runPosition(a.trace->events(w.task)[w.at].seq),
                  static_cast<int>(w.pattern), a.trace->task(w.cause).tid};
    };
    std::set<Wait> waits;
    for (const WaitState& w : whole.why.waits) waits.insert(waitOf(whole, w));
    for (const auto& u : whole.messages.unmatched) unmatched.insert(idOf(*whole.trace, u.recv));
    for (const auto& m : whole.mismatch.mismatches) mismatched.insert(idOf(*whole.trace, m.recv));
    std::set<Tid> blocked, missing;
    for (const auto& b : whole.hang.blocked) blocked.insert(whole.trace->task(b.task).tid);
    for (const auto& m : whole.hang.recordsMissing) missing.insert(whole.trace->task(m.task).tid);
    const std::uint64_t n = whole.trace->eventCount() + whole.trace->monitorEvents().size();
    for (std::uint64_t at = 1; at < n; ++at) {
      CAPTURE(name, at);
      const Analysis a = analyse(cutAt(text, at), why);
      for (const WaitState& w : a.why.waits) {
        const Wait x = waitOf(a, w);
        INFO("wait of t" << std::hex << std::get<0>(x) << std::dec << " at " << std::get<1>(x) << " pattern "
                          << std::get<2>(x) << " cause t" << std::hex << std::get<3>(x));
        CHECK(waits.count(x));
      }
      for (const auto& u : a.messages.unmatched) CHECK(unmatched.count(idOf(*a.trace, u.recv)));
      for (const auto& m : a.mismatch.mismatches) CHECK(mismatched.count(idOf(*a.trace, m.recv)));
      CHECK(a.messages.unreceivedMessages <= whole.messages.unreceivedMessages);
      // The tasks blocked at the end are blocked at the end of any window of it.
      std::set<Tid> cutBlocked;
      for (const auto& b : a.hang.blocked) cutBlocked.insert(a.trace->task(b.task).tid);
      CHECK(cutBlocked == blocked);
      CHECK(a.hang.hung == whole.hang.hung);
      // A task whose last records PVM's tracer lost is told so whatever the
      // cut left of the message it was sent (abrun_lost_tail.trace).
      std::set<Tid> cutMissing;
      for (const auto& m : a.hang.recordsMissing) cutMissing.insert(a.trace->task(m.task).tid);
      CHECK(cutMissing == missing);
      // Every barrier visit is the same use of the same barrier as in the whole trace.
      std::set<std::tuple<StrId, std::int32_t, std::uint32_t, Tid, TimeNs>> visits;
      for (const auto& b : whole.barriers.instances)
        for (const auto& v : b.visits)
          visits.insert({b.group, b.count, b.use, whole.trace->task(v.task).tid, v.arrive});
      for (const auto& b : a.barriers.instances) {
        // Fewer visits than the whole use only when the others are before the cut.
        if (b.complete() && b.count > 0 && b.visits.size() < static_cast<std::size_t>(b.count)) CHECK(b.beforeCut);
        if (b.beforeCut) CHECK(b.lastArrival == -1);
      }
      for (const auto& b : a.barriers.instances)
        for (const auto& v : b.visits) {
          std::string g(a.trace->str(b.group));
          StrId wg = -1;
          for (const auto& w : whole.barriers.instances)
            if (whole.trace->str(w.group) == g) wg = w.group;
          CHECK(visits.count({wg, b.count, b.use, a.trace->task(v.task).tid, v.arrive}));
        }
    }
  }
}

// A task whose whole life is before the cut holds no record in it, yet its
// exit is in the task table: it has exited, not "not started" (abstat's
// JSON "state", the hang analysis).
TEST_CASE("a task's state after its last record is the whole trace's when it has records in the cut or has ended", "[window]") {
  for (const char* name : kSuite) {
    const std::string text = readFile(dataPath(name));
    auto whole = loadTraceText(text).trace;
    const std::uint64_t n = whole->eventCount() + whole->monitorEvents().size();
    for (std::uint64_t at = 1; at < n; ++at) {
      auto cut = cutAt(text, at);
      for (TaskIndex t = 0; t < cut->taskCount(); ++t) {
        if (cut->events(t).empty() && cut->task(t).exit == ExitHow::None) continue;
        CAPTURE(name, at, cut->label(t));
        CHECK(currentState(*cut, t).state == currentState(*whole, t).state);
        if (cut->events(t).empty()) CHECK(stateAt(*cut, t, cut->task(t).exitTime).state == TaskState::Exited);
      }
    }
  }
}

TEST_CASE("a receive whose send is before the cut is counted apart, not unmatched", "[window]") {
  const std::string text = readFile(dataPath("ge.trace"));
  const Analysis whole = analyse(loadTraceText(text).trace);
  REQUIRE(whole.messages.unmatched.empty());
  std::uint64_t sawBeforeCut = 0;
  const std::uint64_t n = whole.trace->eventCount();
  for (std::uint64_t at = 1; at < n; ++at) {
    const Analysis a = analyse(cutAt(text, at));
    CHECK(a.messages.unmatched.empty());
    sawBeforeCut += a.messages.beforeCut;
  }
  CHECK(sawBeforeCut > 0);  // some cut falls between a send and its receive
}

#ifdef XAB_GENTRACE
namespace {

struct Scratch {
  std::string dir = xab::test::make_temp_dir("xab-window");
  ~Scratch() { std::filesystem::remove_all(dir); }
  std::string path(const std::string& name) const { return dir + "/" + name; }
};

// A ring of `tasks` tasks, `records` records (bench/translators_gentrace).
std::string generate(const Scratch& s, long long records, int tasks) {
  const std::string out = s.path("ring.trace");
  const std::string cmd = std::string(XAB_GENTRACE) + " --records " + std::to_string(records) + " " +
                          std::to_string(tasks) + " > " + out;
  REQUIRE(std::system(cmd.c_str()) == 0);
  return out;
}

// Every record of `t` by whole-run position: its task and its line.
std::map<std::uint64_t, std::pair<Tid, std::string>> lines(const Trace& t) {
  std::map<std::uint64_t, std::pair<Tid, std::string>> out;
  for (TaskIndex k = 0; k < t.taskCount(); ++k)
    for (std::uint32_t i = 0; i < t.events(k).size(); ++i)
      {
        std::string line;  // without the identity a task's first record carries
        text::appendRecord(line, toRecord(t, k, i, false));
        out[t.runPosition(t.events(k)[i].seq)] = {t.task(k).tid, line};
      }
  return out;
}

// readRange(from, to) holds exactly the records of [from, to) of the whole
// trace (and the open calls it carries from before `from`), with their
// tasks, times, kinds and fields.
void checkRange(const TraceSource& src, const Trace& whole, std::uint64_t from, std::uint64_t to) {
  CAPTURE(from, to);
  std::string why;
  auto part = src.readRange(from, to, &why);
  REQUIRE(part);
  CHECK(why.empty());
  CHECK(part->cut().position == from);
  const auto all = lines(whole);
  const auto got = lines(*part);
  std::uint64_t inRange = 0;
  for (const auto& [pos, rec] : got) {
    auto it = all.find(pos);
    REQUIRE(it != all.end());
    INFO("whole: " << it->second.second << " range: " << rec.second);
    CHECK(it->second == rec);
    inRange += pos >= from && pos < to;
  }
  std::uint64_t want = 0;
  for (auto it = all.lower_bound(from); it != all.end() && it->first < to; ++it) ++want;
  CHECK(inRange == want);
  for (TaskIndex k = 0; k < part->taskCount(); ++k)
    if (auto w = whole.findTask(part->task(k).tid)) CHECK(part->label(k) == whole.label(*w));
}

}  // namespace

TEST_CASE("the time index against a scan of the file and readRange from a plain file", "[window]") {
  Scratch s;
  const std::string file = generate(s, 300000, 8);
  auto whole = loadTraceFile(file).trace;
  SourceOptions o;
  o.indexEvery = 40000;
  TraceSource src(file, o);
  src.readToEnd();
  const auto index = src.index();
  REQUIRE(index.size() >= 7);
  CHECK(src.canReadRange());
  CHECK(src.spillBytes() == 0);  // a plain file is read again, not spilled
  const std::string text = readFile(file);
  // Brute force: the records of each entry's positions, their times.
  std::vector<std::tuple<std::uint64_t, TimeNs, TimeNs>> byPos;  // position, time
  for (TaskIndex k = 0; k < whole->taskCount(); ++k)
    whole->events(k).forEach([&](const Event& e) { byPos.push_back({e.seq, e.time, e.time}); });
  for (const Event& e : whole->monitorEvents()) byPos.push_back({e.seq, INT64_MAX, INT64_MIN});
  std::sort(byPos.begin(), byPos.end());
  for (std::size_t i = 0; i < index.size(); ++i) {
    CAPTURE(i);
    const IndexEntry& e = index[i];
    const std::uint64_t end = i + 1 < index.size() ? index[i + 1].position : byPos.size();
    CHECK(e.records == end - e.position);
    TimeNs first = INT64_MAX, last = INT64_MIN;
    for (std::uint64_t p = e.position; p < end; ++p) {
      first = std::min(first, std::get<1>(byPos[p]));
      last = std::max(last, std::get<2>(byPos[p]));
    }
    CHECK(e.first == first);
    CHECK(e.last == last);
    // Its offset is the start of the line of its first record.
    REQUIRE(e.offset < text.size());
    CHECK((e.offset == 0 || text[e.offset - 1] == '\n'));
    if (i > 0) CHECK(e.records <= 40000 + 20000);  // about every indexEvery (a piece more at most)
  }
  checkRange(src, *whole, 0, 1000);
  checkRange(src, *whole, 123456, 123456 + 50000);
  checkRange(src, *whole, index[3].position, index[3].position + 10);
  checkRange(src, *whole, byPos.size() - 100, byPos.size() + 100);
}

// A master that starts its workers one after the other, each of which
// sends its result, is told to stop and ends (Landau's Monte Carlo master,
// run for long): a range read again knows the exits of its own records and
// of those before it, never one that comes after it.
TEST_CASE("readRange: a task has exited in a range read again only if its exit is before the range's end", "[window]") {
  Scratch s;
  const std::string file = s.path("workers.trace");
  {
    std::ofstream out(file);
    out << "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000\n";
    long long us = 0;
    auto line = [&](int tid, const std::string& rest) {
      ++us;
      char stamp[40];
      std::snprintf(stamp, sizeof stamp, "1763680000.%06lld000", us);
      out << stamp << ' ' << stamp << " t" << std::hex << tid << std::dec << ' ' << rest << '\n';
    };
    line(0x40002, "mytid rc=t40002 name=master host=vm parent=none lang=c pid=100");
    for (int i = 0; i < 3000; ++i) {
      const int w = 0x40003 + i;
      char tid[16];
      std::snprintf(tid, sizeof tid, "t%x", w);
      line(w, std::string("mytid rc=") + tid + " name=worker host=vm parent=t40002 lang=c pid=" + std::to_string(200 + i));
      line(w, "send dst=t40002 tag=4 bytes=4 serial=1 rc=0");
      line(0x40002, std::string("recv src=") + tid + " tag=4 bytes=4 serial=1 rc=5");
      line(0x40002, std::string("send dst=") + tid + " tag=0 bytes=0 serial=" + std::to_string(i + 1) + " rc=0");
      line(w, "recv src=t40002 tag=0 bytes=0 serial=" + std::to_string(i + 1) + " rc=6");
      line(w, "task.exit how=notify");
    }
  }
  auto whole = loadTraceFile(file).trace;
  SourceOptions o;
  o.indexEvery = 500;
  TraceSource src(file, o);
  src.readToEnd();
  REQUIRE(src.canReadRange());
  auto exitPosition = [&](TaskIndex w) {
    std::uint64_t at = UINT64_MAX;
    whole->events(w).forEach([&](const Event& e) {
      if (e.kind == Kind::TASK_EXIT) at = std::min<std::uint64_t>(at, e.seq);
    });
    return at;
  };
  for (const auto& [from, to] : {std::pair<std::uint64_t, std::uint64_t>{0, 1000}, {4000, 4600}, {9001, 9005},
                                 {17000, 18001}}) {
    CAPTURE(from, to);
    auto part = src.readRange(from, to);
    REQUIRE(part);
    std::size_t exited = 0;
    for (TaskIndex k = 0; k < part->taskCount(); ++k) {
      auto w = whole->findTask(part->task(k).tid);
      REQUIRE(w);
      CAPTURE(part->label(k));
      const bool before = exitPosition(*w) < to;
      CHECK((part->task(k).exit != ExitHow::None) == before);
      if (before) CHECK(part->task(k).exitTime == whole->task(*w).exitTime);
      exited += before;
    }
    CHECK(exited > 0);
  }
}

TEST_CASE("a cut trace stays one on global time, re-dated in place or as a copy sharing its records", "[window]") {
  Scratch s;
  const std::string file = s.path("clocks.trace");
  REQUIRE(std::system((std::string(XAB_GENTRACE) + " --records 40000 4 --clocks > " + file).c_str()) == 0);
  const std::string text = readFile(file);
  for (const bool shared : {false, true}) {
    INFO((shared ? "a copy: a snapshot shares the trace" : "in place"));
    std::shared_ptr<const Trace> cut = cutAt(text, 30000);
    REQUIRE(cut->cut().cut);
    const TraceCut before = cut->cut();
    const std::uint64_t firstRun = cut->runPosition(before.carried);
    std::shared_ptr<const Trace> holder = shared ? cut : nullptr;
    ClockReport report;
    std::shared_ptr<const Trace> global = toGlobalTime(std::move(cut), report);
    REQUIRE(global);
    CHECK(report.clockRecords);
    if (shared) CHECK(global.get() != holder.get());
    CHECK(global->cut().cut);
    CHECK(global->cut().position == before.position);
    CHECK(global->cut().carried == before.carried);
    CHECK(global->cut().dropped == before.dropped);
    CHECK(global->runPosition(before.carried) == firstRun);
    CHECK(analyse(global).messages.unmatched.empty());
  }
}

TEST_CASE("a window: the reader cuts itself and its analyses see no false unmatched receive", "[window]") {
  Scratch s;
  const std::string file = generate(s, 400000, 16);
  for (bool aside : {false, true}) {
    INFO("cuts made aside: " << aside);
    SourceOptions o;
    o.maxRecords = 60000;
    o.cutAside = aside;
    TraceSource src(file, o);
    std::uint64_t most = 0;
    for (SourceStep st; (st = src.next()) != SourceStep::Ended;) most = std::max(most, src.reader().heldRecords());
    // The limit, plus one piece at most (and half what a cut drops while
    // one is made aside).
    CHECK(most <= 60000 + (aside ? 15000 : 0) + 20000);
    CHECK(src.cuts() >= (aside ? 4u : 5u));
    CHECK_FALSE(src.reader().cutPending());
    auto t = src.reader().take();
    REQUIRE(t->cut().cut);
    CHECK(t->cut().position > (aside ? 250000u : 300000u));
    CHECK(t->taskCount() == 16);
    const Analysis a = analyse(t);
    CHECK(a.messages.unmatched.empty());
    CHECK(a.mismatch.mismatches.empty());
    CHECK(a.messages.unreceivedMessages == 0);
    CHECK(!a.hang.hung);
    CHECK(a.messages.total.count > 0);
  }
}

TEST_CASE("readRange from a .zst and from a pipe spill file while reading and the spill file gone", "[window]") {
  Scratch s;
  const std::string file = generate(s, 200000, 4);
  auto whole = loadTraceFile(file).trace;
  const std::string text = readFile(file);
  const std::string spillDir = s.path("tmp");
  std::filesystem::create_directory(spillDir);
  const char* oldTmp = std::getenv("TMPDIR");
  const std::string keepTmp = oldTmp ? oldTmp : "";
  ::setenv("TMPDIR", spillDir.c_str(), 1);

  SECTION("a .zst file") {
    std::string z(ZSTD_compressBound(text.size()), '\0');
    z.resize(ZSTD_compress(z.data(), z.size(), text.data(), text.size(), 3));
    std::ofstream(s.path("ring.trace.zst"), std::ios::binary).write(z.data(), static_cast<std::streamsize>(z.size()));
    SourceOptions o;
    o.maxRecords = 50000;
    o.indexEvery = 20000;
    TraceSource src(s.path("ring.trace.zst"), o);
    src.readToEnd();
    CHECK(src.canReadRange());
    CHECK(src.spillBytes() > 0);
    checkRange(src, *whole, 10, 5000);
    checkRange(src, *whole, 77777, 99999);
  }
  SECTION("a pipe") {
    const std::string fifo = s.path("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] {
      std::ofstream out(fifo, std::ios::binary);
      for (std::size_t at = 0; at < text.size(); at += 65536) out.write(text.data() + at, static_cast<std::streamsize>(std::min<std::size_t>(65536, text.size() - at)));
    });
    SourceOptions o;
    o.maxRecords = 40000;
    o.indexEvery = 20000;
    TraceSource src(fifo, o);
    // Another thread reads history back while this one reads on.
    std::atomic<bool> done{false};
    std::atomic<int> ranges{0};
    std::thread gui([&] {
      while (!done) {
        if (auto p = src.readRange(100, 2100)) {
          CHECK(p->cut().position == 100);
          ++ranges;
        }
        (void)src.index();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    src.readToEnd();
    done = true;
    gui.join();
    writer.join();
    CHECK(src.cuts() > 0);
    CHECK(src.spillBytes() > 0);
    // The spill file is unlinked at once: nothing in TMPDIR even now.
    CHECK(std::filesystem::is_empty(spillDir));
    checkRange(src, *whole, 0, 3000);
    checkRange(src, *whole, 150000, 170000);
    checkRange(src, *whole, src.index().back().position - 5, src.index().back().position + 5);
  }
  CHECK(std::filesystem::is_empty(spillDir));
  if (oldTmp) ::setenv("TMPDIR", keepTmp.c_str(), 1);
  else ::unsetenv("TMPDIR");
}
#endif

TEST_CASE("a window counts abmon's records too: a hung program's samples stay bounded, its hang diagnosed", "[window]") {
  // Two tasks block in receives from each other; abmon samples them for
  // a long while afterwards.
  std::string text = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000\n"
                     "1763680000.000100000 1763680000.000100000 t40001 abmon.start version=2 batch=512 flush_ms=200\n"
                     "1763680000.100000000 1763680000.100000000 t40002 mytid rc=t40002 name=a host=vm parent=none lang=c pid=100\n"
                     "1763680000.100000000 1763680000.100000000 t40003 mytid rc=t40003 name=b host=vm parent=none lang=c pid=101\n"
                     "1763680000.200000000 1763680000.200000000 t40002 recv.begin src=t40003 tag=1\n"
                     "1763680000.200000000 1763680000.200000000 t40003 recv.begin src=t40002 tag=2\n";
  for (int i = 0; i < 60000; ++i) {
    const long long ns = 1763680001000000000LL + 100000000LL * i;
    char line[200];
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t40001 sample tid=t40002 cpu_ms=0 runnable_ms=0 state=S\n",
                  ns / 1000000000, ns % 1000000000, ns / 1000000000, ns % 1000000000);
    text += line;
  }
  SourceOptions o;
  o.maxRecords = 10000;
  o.pieceBytes = 64 * 1024;
  TraceSource src = TraceSource::fromText(text, o);
  std::uint64_t most = 0;
  for (SourceStep st; (st = src.next()) != SourceStep::Ended;) most = std::max(most, src.reader().heldRecords());
  CHECK(most < 10000 + 1000);  // the limit, plus a piece
  CHECK(src.cuts() >= 5);
  auto t = src.reader().take();
  REQUIRE(t->cut().cut);
  CHECK(t->cut().carried >= 3);  // both receives' begins, abmon's start
  const Analysis a = analyse(t);
  CHECK(a.hang.hung);
  CHECK(a.hang.blocked.size() == 2);
  CHECK(!a.hang.cycles.empty());
}
