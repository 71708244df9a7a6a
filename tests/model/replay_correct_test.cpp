// Post-mortem date correction of a replay (xab/replay/correct.h) on
// a synthetic run with known truth: a master spawns two workers, sends
// each its index and gathers their results with wildcard receives.  The
// record run's date of every event is known; the replay takes the same
// course with the same compute and transfer durations, but 1000 s later,
// with a slower spawn (one task at a time, as libab's replay spawns), a
// worker that starts late and a master whose forced receive waits for
// that worker.  The correction must give back the record run's date of
// every event, anchors or not, from the record's few dates.
#include <xab/model/model.h>
#include <xab/replay/record_set.h>
#include <xab/replay/correct.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "xab/events.h"

using namespace xab;

namespace {

constexpr TimeNs kRecord = 1'700'000'000'000'000'000, kReplay = kRecord + 1000'000'000'000;
constexpr TimeNs us = 1'000;

std::string secs(TimeNs t) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld.%09lld", static_cast<long long>(t / 1'000'000'000),
                static_cast<long long>(t % 1'000'000'000));
  return buf;
}

struct Run {
  std::string text = "#xab-trace 1 abmon=t40009 host=vm pid=1 start=" + secs(kReplay) + "\n";
  std::vector<TimeNs> truth[3];  // per task (master, w1, w2): the record run's date of each event
  // An event of task `t` (0 master): at `replay` in the replay, at `record` in the record run.
  void ev(int t, TimeNs replay, TimeNs record, const std::string& rest) {
    text += secs(kReplay + replay) + " " + secs(kReplay + replay) + " t4000" + std::to_string(t + 1) + " " + rest + "\n";
    truth[t].push_back(kRecord + record);
  }
};

// Times in microseconds from each run's start.  Record: the spawn takes
// 2 ms; both workers start 1 ms in; transfers take 50 us; worker 1
// computes 3 ms, worker 2 1 ms, so worker 2's result comes first.  Replay:
// the spawn takes 6 ms; worker 2 starts at 7 ms, after its index has come
// (its receive does not wait: 5 us), and the master's first receive,
// forced to worker 2's result, waits for it.
Run scenario(bool departs = false) {
  Run r;
  r.ev(0, 0, 0, "replay.task path=1");
  r.ev(0, 0, 0, "spawn.begin file=race where= flags=0 count=2");
  r.ev(1, 1000 * us, 1000 * us, "replay.task path=1.1");
  r.ev(1, 1000 * us, 1000 * us, "recv.begin src=t40001 tag=1");
  r.ev(0, 6000 * us, 2000 * us, "spawn file=race count=2 tids=t40002,t40003 rc=2");
  r.ev(0, 6010 * us, 2010 * us, "send dst=t40002 tag=1 bytes=8 serial=1 rc=0");
  r.ev(0, 6020 * us, 2020 * us, "send dst=t40003 tag=1 bytes=8 serial=2 rc=0");
  r.ev(0, 6030 * us, 2030 * us, "recv.begin src=any tag=-1");
  r.ev(1, 6060 * us, 2060 * us, "recv src=t40001 tag=1 bytes=8 serial=1 rc=1");
  r.ev(2, 7000 * us, 1000 * us, "replay.task path=1.2");
  r.ev(2, 7000 * us, 1000 * us, "recv.begin src=t40001 tag=1");
  r.ev(2, 7005 * us, 2070 * us, "recv src=t40001 tag=1 bytes=8 serial=2 rc=1");
  r.ev(2, 8005 * us, 3070 * us, "send dst=t40001 tag=2 bytes=8 serial=1 rc=0");
  r.ev(0, 8055 * us, 3120 * us, "recv src=t40003 tag=2 bytes=8 serial=1 rc=5");
  if (departs) r.ev(0, 8060 * us, 3125 * us, "replay.depart seq=3 call=pvm_recv src=any tag=-1 why=test");
  r.ev(0, 8065 * us, 3130 * us, "recv.begin src=any tag=-1");
  r.ev(1, 9060 * us, 5060 * us, "send dst=t40001 tag=2 bytes=8 serial=1 rc=0");
  r.ev(0, 9110 * us, 5110 * us, "recv src=t40002 tag=2 bytes=8 serial=1 rc=6");
  r.ev(0, 10110 * us, 6110 * us, "send dst=t40002 tag=3 bytes=8 serial=3 rc=0");
  return r;
}

xab_rec_entry entry(TimeNs t, std::uint32_t seq, int kind, int outcome, std::vector<int> v) {
  xab_rec_entry e{};
  e.t_ns = kRecord + t;
  e.seq = seq;
  e.kind = static_cast<std::uint16_t>(kind);
  e.outcome = static_cast<std::uint16_t>(outcome);
  for (std::size_t i = 0; i < v.size() && i < 6; ++i) e.v[i] = v[i];
  return e;
}

replay::RecordedTask recorded(int tid, int parent, TimeNs start, std::uint32_t lastSeq, std::vector<xab_rec_entry> entries) {
  replay::RecordedTask t;
  t.header.magic = XAB_REC_MAGIC;
  t.header.version = XAB_REC_VERSION;
  t.header.tid = tid;
  t.header.parent = parent;
  t.header.start_ns = kRecord + start;
  t.header.last_seq = lastSeq;
  t.header.exited = 1;
  t.header.count = static_cast<std::uint32_t>(entries.size());
  std::snprintf(t.header.name, sizeof t.header.name, "race");
  t.entries = std::move(entries);
  return t;
}

// The record run's record (its tids are not the replay's): the master's
// spawn and two wildcard receives, worker 2's result first; the workers
// record no call, but their headers date their first receive (the
// master's, its spawn's start).
std::vector<replay::RecordedTask> theRecord(TimeNs firstReceive = 3120 * us) {
  const int m = 0x60001, w1 = 0x60002, w2 = 0x60003;
  return {recorded(m, 0, 0, 3,
                   {entry(2000 * us, 1, XAB_EV_SPAWN, XAB_REC_SPAWN, {2, 0, 0, 0, 0, 2}),
                    entry(2000 * us, 1, XAB_EV_SPAWN, XAB_REC_TIDS, {w1, w2}),
                    entry(firstReceive, 2, XAB_EV_RECV, XAB_REC_GOT, {-1, -1, w2, 2, 1, 5}),
                    entry(5110 * us, 3, XAB_EV_RECV, XAB_REC_GOT, {-1, -1, w1, 2, 1, 6})}),
          recorded(w1, m, 1000 * us, 1, {}), recorded(w2, m, 1000 * us, 1, {})};
}

std::shared_ptr<const Trace> parse(const std::string& text) {
  TraceReader r;
  r.feed(text);
  r.finish();
  REQUIRE(r.errorCount() == 0);
  return r.take();
}

// Every event's corrected date against the record run's (within `slack`).
void requireTruth(const Trace& out, const Run& run, TimeNs slack = 0) {
  REQUIRE(out.taskCount() == 3);
  for (TaskIndex t = 0; t < 3; ++t) {
    auto idx = out.findTask(0x40001 + static_cast<Tid>(t));
    REQUIRE(idx);
    const auto& ev = out.events(*idx);
    REQUIRE(ev.size() == run.truth[t].size());
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      INFO("task " << t << " event " << i);
      CHECK(std::abs(ev[i].time - run.truth[t][i]) <= slack);
    }
  }
}

}  // namespace

TEST_CASE("a replay's dates are corrected back to the record run's", "[replay][correct]") {
  Run run = scenario();
  replay::RecordSet record(theRecord());
  ReplayCorrectionReport rep;
  auto out = correctReplay(parse(run.text), record, rep);
  CHECK(rep.tasksMatched == 3);
  CHECK(rep.tasksUnmatched == 0);
  CHECK(rep.recordedNotReplayed == 0);
  CHECK(rep.anchors.size() == 6);  // the master's and workers' starts, the spawn, two receives
  CHECK(rep.anchorsUsed == 6);
  CHECK(rep.anchorsPushed == 0);
  CHECK(rep.transfer == 50 * us);
  requireTruth(*out, run);
}

TEST_CASE("between anchors the invariance estimates the record's dates", "[replay][correct]") {
  // Every third anchor of each task held out (the master's first receive;
  // not its spawn's end: a replay spawns one task at a time, so the
  // spawn's duration is not invariant, which is why it is an anchor): the
  // receive is dated from worker 2's corrected send plus its transfer.
  Run run = scenario();
  ReplayCorrectionReport rep;
  auto out = correctReplay(parse(run.text), replay::RecordSet(theRecord()), rep, {.holdOutEvery = 3});
  CHECK(rep.anchorsUsed == 5);
  REQUIRE(rep.anchors.size() == 6);
  CHECK(rep.largestHeldOutError == 0);
  requireTruth(*out, run);
  // Without the correction, the replay's date there is 4.935 ms late and 1000 s off.
  for (const auto& a : rep.anchors)
    if (!a.used) CHECK(a.replayed - a.recorded == kReplay - kRecord + 4935 * us);
}

// The corrected date of task t's (0 master) i-th event.
TimeNs dateOf(const Trace& out, int t, std::uint32_t i) { return out.events(*out.findTask(0x40001 + t))[i].time - kRecord; }

TEST_CASE("a record date earlier than the sender's estimate pulls the sender back", "[replay][correct]") {
  // The record says the first receive ended at 3.000 ms: worker 2 sent by
  // 2.950 ms, though the invariance alone dates its send 3.070 ms.
  Run run = scenario();
  ReplayCorrectionReport rep;
  auto out = correctReplay(parse(run.text), replay::RecordSet(theRecord(3000 * us)), rep);
  CHECK(rep.anchorsPushed == 0);
  CHECK(dateOf(*out, 0, 6) == 3000 * us);  // the master's receive: the record's date
  CHECK(dateOf(*out, 2, 3) == 2950 * us);  // worker 2's send
  CHECK(dateOf(*out, 2, 2) == 2070 * us);  // its receive of its index: after that index was sent
}

TEST_CASE("an anchor that would put a receive before its send is pushed and counted", "[replay][correct]") {
  // 2.000 ms: before worker 2 can even have its index.  The master's
  // events before it are pulled back to 2.000 ms (its sends of the
  // indexes too), worker 2 gets its index 50 us later and sends at once.
  Run run = scenario();
  ReplayCorrectionReport rep;
  auto out = correctReplay(parse(run.text), replay::RecordSet(theRecord(2000 * us)), rep);
  CHECK(rep.anchorsPushed == 1);
  CHECK(rep.largestPush == 100 * us);
  CHECK(dateOf(*out, 0, 4) == 2000 * us);  // the master's send of worker 2's index
  CHECK(dateOf(*out, 2, 3) == 2050 * us);  // worker 2's send, as early as its task's order allows
  CHECK(dateOf(*out, 0, 6) == 2100 * us);  // the receive: that send plus the least transfer
  CHECK(dateOf(*out, 0, 8) == 5110 * us);  // the next anchor holds again
}

// The least receive duration (DC) is measured, as in compensation, only on
// receives whose message was there before they began: a receive that
// waited lasted as long as its sender made it.  Here every receive of the
// replay waited (DC unknown: 0), and the worker's receive of its index
// (no anchor: not a wildcard) is dated from its message's own transfer
// (70 us) after the master's corrected send.  Measured over every receive,
// DC would be the master's 1.1 ms wait, and the worker's receive would end
// 1.1 ms after its start (20 us late), its send and result with it.
TEST_CASE("a replay whose receives all waited dates them from their messages' transfers", "[replay][correct]") {
  Run r;
  r.ev(0, 0, 0, "replay.task path=1");
  r.ev(0, 0, 0, "spawn.begin file=race where= flags=0 count=1");
  r.ev(1, 1000 * us, 1000 * us, "replay.task path=1.1");
  r.ev(1, 1000 * us, 1000 * us, "recv.begin src=t40001 tag=1");
  r.ev(0, 6000 * us, 2000 * us, "spawn file=race count=1 tids=t40002 rc=1");
  r.ev(0, 6010 * us, 2010 * us, "send dst=t40002 tag=1 bytes=8 serial=1 rc=0");
  r.ev(0, 6030 * us, 2030 * us, "recv.begin src=any tag=-1");
  r.ev(1, 6080 * us, 2080 * us, "recv src=t40001 tag=1 bytes=8 serial=1 rc=1");
  r.ev(1, 7080 * us, 3080 * us, "send dst=t40001 tag=2 bytes=8 serial=1 rc=0");
  r.ev(0, 7130 * us, 3130 * us, "recv src=t40002 tag=2 bytes=8 serial=1 rc=5");
  const int m = 0x60001, w1 = 0x60002;
  replay::RecordSet record({recorded(m, 0, 0, 2,
                                     {entry(2000 * us, 1, XAB_EV_SPAWN, XAB_REC_SPAWN, {1, 0, 0, 0, 0, 1}),
                                      entry(2000 * us, 1, XAB_EV_SPAWN, XAB_REC_TIDS, {w1}),
                                      entry(3130 * us, 2, XAB_EV_RECV, XAB_REC_GOT, {-1, -1, w1, 2, 1, 5})}),
                            recorded(w1, m, 1000 * us, 1, {})});
  ReplayCorrectionReport rep;
  auto out = correctReplay(parse(r.text), record, rep);
  CHECK(rep.anchorsUsed == 4);
  CHECK(rep.anchorsPushed == 0);
  CHECK(rep.transfer == 50 * us);
  for (TaskIndex t = 0; t < 2; ++t) {
    const auto& ev = out->events(*out->findTask(0x40001 + static_cast<Tid>(t)));
    REQUIRE(ev.size() == r.truth[t].size());
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      INFO("task " << t << " event " << i);
      CHECK(ev[i].time - kRecord == r.truth[t][i] - kRecord);
    }
  }
}

// A barrier's wait is not invariant: in the replay the worker's forced
// receive ended 0.5 ms later than in the record, relative to the master,
// and so did its arrival at the barrier, which the master waited for.
// The barrier's end follows the worker's corrected arrival (its release
// later), as compensation re-bases it, and the master's events after it
// with it; by the invariance alone the master's barrier would end 0.5 ms
// late, its receive after it too.
TEST_CASE("a replay's barrier ends after its members' corrected arrivals", "[replay][correct]") {
  Run r;
  r.ev(0, 0, 0, "replay.task path=1");
  r.ev(0, 0, 0, "spawn.begin file=race where= flags=0 count=1");
  r.ev(1, 1000 * us, 1000 * us, "replay.task path=1.1");
  r.ev(1, 1000 * us, 1000 * us, "recv.begin src=any tag=-1");
  r.ev(0, 6000 * us, 2000 * us, "spawn file=race count=1 tids=t40002 rc=1");
  r.ev(0, 6010 * us, 2010 * us, "send dst=t40002 tag=1 bytes=8 serial=1 rc=0");
  r.ev(0, 6020 * us, 2020 * us, "barrier.begin group=g count=2");
  r.ev(1, 6560 * us, 2060 * us, "recv src=t40001 tag=1 bytes=8 serial=1 rc=6");
  r.ev(1, 6570 * us, 2070 * us, "barrier.begin group=g count=2");
  r.ev(0, 6580 * us, 2080 * us, "barrier group=g count=2 rc=0");
  r.ev(1, 6580 * us, 2080 * us, "barrier group=g count=2 rc=0");
  r.ev(0, 6585 * us, 2085 * us, "recv.begin src=t40002 tag=2");
  r.ev(1, 6590 * us, 2090 * us, "send dst=t40001 tag=2 bytes=8 serial=1 rc=0");
  r.ev(0, 6640 * us, 2140 * us, "recv src=t40002 tag=2 bytes=8 serial=1 rc=7");
  const int m = 0x60001, w1 = 0x60002;
  replay::RecordSet record({recorded(m, 0, 0, 2,
                                     {entry(2000 * us, 1, XAB_EV_SPAWN, XAB_REC_SPAWN, {1, 0, 0, 0, 0, 1}),
                                      entry(2000 * us, 1, XAB_EV_SPAWN, XAB_REC_TIDS, {w1})}),
                            recorded(w1, m, 1000 * us, 1, {entry(2060 * us, 1, XAB_EV_RECV, XAB_REC_GOT, {-1, -1, m, 1, 1, 6})})});
  ReplayCorrectionReport rep;
  auto out = correctReplay(parse(r.text), record, rep);
  CHECK(rep.anchorsUsed == 4);  // both tasks' starts, the spawn, the worker's receive
  CHECK(rep.anchorsPushed == 0);
  CHECK(rep.collectivesRebased == 2);
  for (TaskIndex t = 0; t < 2; ++t) {
    const auto& ev = out->events(*out->findTask(0x40001 + static_cast<Tid>(t)));
    REQUIRE(ev.size() == r.truth[t].size());
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      INFO("task " << t << " event " << i);
      CHECK(ev[i].time - kRecord == r.truth[t][i] - kRecord);
    }
  }
}

TEST_CASE("anchors past a departure are not used", "[replay][correct]") {
  Run run = scenario(true);
  ReplayCorrectionReport rep;
  auto out = correctReplay(parse(run.text), replay::RecordSet(theRecord()), rep);
  CHECK(rep.anchorsMismatched == 1);  // call 3, where the replay departed
  CHECK(rep.anchorsUsed == 5);
  requireTruth(*out, run);
}

TEST_CASE("record files read back give the same correction", "[replay][correct]") {
  // The one reader of record files (abreplay's) on files written as libab lays them out.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("xab-correct-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const auto& t : theRecord()) {
    std::ofstream f(dir / ("t" + std::to_string(t.header.tid) + ".rec"), std::ios::binary);
    f.write(reinterpret_cast<const char*>(&t.header), sizeof t.header);
    f.write(reinterpret_cast<const char*>(t.entries.data()), std::streamsize(t.entries.size() * sizeof(xab_rec_entry)));
  }
  Run run = scenario();
  ReplayCorrectionReport rep;
  auto out = correctReplay(parse(run.text), replay::RecordSet(dir.string()), rep);
  fs::remove_all(dir);
  CHECK(rep.anchorsUsed == 6);
  requireTruth(*out, run);
}

TEST_CASE("a trace that is not a replay of the record is left as it is", "[replay][correct]") {
  Run run = scenario();
  std::string text;
  for (std::size_t at = 0; at < run.text.size();) {  // without its replay.task records
    std::size_t nl = run.text.find('\n', at);
    std::string line = run.text.substr(at, nl + 1 - at);
    if (line.find("replay.task") == std::string::npos) text += line;
    at = nl + 1;
  }
  auto in = parse(text);
  ReplayCorrectionReport rep;
  auto out = correctReplay(in, replay::RecordSet(theRecord()), rep);
  CHECK(out == in);
  CHECK(rep.tasksMatched == 0);
  CHECK_THAT(rep.note, Catch::Matchers::Contains("no task of the trace is a replay"));
}

// Record mode stamps each host's own clock: here worker 2 ran on another
// host (tid 0xa0003: host 0x80000) whose clock is 0.5 s ahead.  DIR/clocks
// (abreplay --record's exchanges with that host, xab/replay/host_clocks.h)
// puts the record on one clock, and the correction gives the truth again,
// as on one host; without it the master's first receive is recorded before
// worker 2 started, and anchors are pushed.
TEST_CASE("a record across hosts whose clocks disagree is put on one clock by DIR/clocks", "[replay][correct]") {
  namespace fs = std::filesystem;
  constexpr TimeNs ahead = 500'000 * us;
  constexpr int w2 = 0xa0003;
  auto tasks = theRecord();
  tasks[0].entries[1].v[1] = w2;  // the spawn's tids
  tasks[0].entries[2].v[2] = w2;  // the first receive's sender
  tasks[2].header.tid = w2;
  tasks[2].header.start_ns += ahead;
  fs::path dir = fs::temp_directory_path() / ("xab-hosts-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const auto& t : tasks) {
    std::ofstream f(dir / ("t" + std::to_string(t.header.tid) + ".rec"), std::ios::binary);
    f.write(reinterpret_cast<const char*>(&t.header), sizeof t.header);
    f.write(reinterpret_cast<const char*>(t.entries.data()), std::streamsize(t.entries.size() * sizeof(xab_rec_entry)));
  }
  {  // exchanges before and after the run: 90 us round trips, 10 us turns
    std::ofstream c(dir / "clocks");
    for (int phase : {0, 2})
      for (int i = 0; i < 8; ++i) {
        ClockSample x;
        TimeNs ref = kRecord + (phase == 0 ? -100'000 * us : 10'000 * us) + i * 1000 * us;
        x.t2 = ref, x.t3 = ref + 10 * us, x.t1 = ref - 40 * us + ahead, x.t4 = ref + 50 * us + ahead;
        x.phase = phase, x.number = i;
        c << replay::formatHostClock(0x80000, "node1", x);
      }
  }
  Run run = scenario();
  replay::RecordSet record(dir.string());
  REQUIRE(record.hostClocks().size() == 1);
  CHECK(record.hostClocks().at(0x80000).name == "node1");
  ReplayCorrectionReport rep;
  auto out = correctReplay(parse(run.text), record, rep);
  CHECK(rep.anchorsPushed == 0);
  CHECK_THAT(rep.note, Catch::Matchers::Contains("the record's 2 hosts' clocks put on one"));
  requireTruth(*out, run, us);

  fs::remove(dir / "clocks");
  ReplayCorrectionReport skewed;
  correctReplay(parse(run.text), replay::RecordSet(dir.string()), skewed);
  fs::remove_all(dir);
  CHECK(skewed.anchorsPushed > 0);
  CHECK(skewed.largestPush > 400'000 * us);
  CHECK_THAT(skewed.note, Catch::Matchers::Contains("hosts' clocks not measured"));
}
