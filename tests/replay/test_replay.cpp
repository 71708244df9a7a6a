// Record and replay (docs/replay.md) of demo/xabrace, a master
// that gathers its workers' results with a wildcard pvm_recv, in a private
// PVM virtual machine: runs are recorded until two differ in output; each
// record is replayed many times (also when the workers gather among
// themselves, siblings' messages), and every replay must print what its
// record printed and get, at every recorded receive, the same message (the
// sender's spawn path and serial) -- checked in the replay's own record and
// in abmon's trace of a replay.  A hung run replays into the same hang; a
// record of another task count or binary is refused with a clear message.
#include <xab/model/model.h>
#include <xab/replay/correct.h>
#include <xab/replay/record_set.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "xab/record.h"
#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"
#include "replay_helpers.h"

using namespace xab::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {


// Replays per record: the target is 20; XAB_TEST_REPLAYS lowers it
// on a slow machine.
int replaysPerRecord() {
  const char* v = std::getenv("XAB_TEST_REPLAYS");
  return v && std::atoi(v) > 0 ? std::atoi(v) : 20;
}

std::string dump(const std::string& dir) {
  auto r = run({abreplay(), "--dump", dir}, {}, 30s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// The master's recorded wildcard receives, in order: "sender serial" each.
std::vector<std::string> masterMatching(const std::string& dumped) {
  std::vector<std::string> got;
  std::istringstream in(dumped);
  std::string path, seq, call, outcome, src, tag, sender, serial;
  while (in >> path >> seq >> call) {
    if (path == "1" && call == "recv" && in >> outcome >> src >> tag >> sender >> serial && outcome == "got")
      got.push_back(sender + " " + serial);
    in.ignore(1 << 20, '\n');
  }
  return got;
}

struct Recorded {
  std::string dir, out;
};

// Records runs until two print different results (bounded): random worker
// delays of up to 30 ms make most pairs of runs differ.
std::vector<Recorded> twoDifferingRecords(const std::string& base, const std::vector<std::string>& args) {
  std::vector<Recorded> recs;
  for (int i = 0; i < 30 && recs.size() < 2; ++i) {
    std::string dir = base + "/rec" + std::to_string(i);
    std::vector<std::string> argv = {abreplay(), "--record", dir, "--", race()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run(argv, {}, 60s);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    if (recs.empty() || recs[0].out != r.out) recs.push_back({dir, r.out});
  }
  REQUIRE(recs.size() == 2);
  return recs;
}

// A copy of record dir `from` in which the master's first wildcard
// receive waits for a serial its sender never sends.
std::string withAMessageNeverSent(const std::string& from, const std::string& to) {
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  for (const auto& f : fs::directory_iterator(to)) {
    std::fstream io(f.path(), std::ios::in | std::ios::out | std::ios::binary);
    xab_rec_header h{};
    io.read(reinterpret_cast<char*>(&h), sizeof h);
    if (h.count < 2) continue;  // a worker: no recorded call
    for (uint32_t i = 0; i < h.count; ++i) {
      xab_rec_entry e{};
      auto at = std::streamoff(sizeof h + i * sizeof e);
      io.seekg(at);
      io.read(reinterpret_cast<char*>(&e), sizeof e);
      if (e.outcome != XAB_REC_GOT) continue;
      e.v[4] = 99;  // the serial
      io.seekp(at);
      io.write(reinterpret_cast<const char*>(&e), sizeof e);
      return to;
    }
  }
  FAIL("no recorded receive in " << from);
  return to;
}

}  // namespace

TEST_CASE("racy runs replay to their own output and messages, every time", "[replay][pvm]") {
  auto& vm = PrivateVm::shared();
  std::vector<std::string> args = {"-n", "4", "--delay", "30"};
  auto recs = twoDifferingRecords(vm.dir(), args);
  for (const auto& rec : recs) {
    std::string recorded = dumpOfEndedRun(rec.dir);
    REQUIRE(masterMatching(recorded).size() == 8);  // 4 results, 4 dones
    for (int i = 0; i < replaysPerRecord(); ++i) {
      std::string again = rec.dir + ".replay" + std::to_string(i);
      std::vector<std::string> argv = {abreplay(), rec.dir, "--", race()};
      argv.insert(argv.end(), args.begin(), args.end());
      // XAB_RECORD as well: the replay records what its receives got.
      auto r = run(argv, {{"XAB_RECORD", again}}, 60s);
      INFO(rec.dir << " replay " << i << "\n" << r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(r.out == rec.out);
      CHECK(dumpOfEndedRun(again) == recorded);
      fs::remove_all(again);
    }
  }

  {  // abmon's trace of a replay shows the recorded messages received
    Monitor mon(vm.dir() + "/replay.trace");
    std::vector<std::string> argv = {abreplay(), recs[1].dir, "--", race()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run(argv, {}, 60s);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == recs[1].out);
    REQUIRE(mon.wait_exits(5));
    auto rs = mon.finish();
    std::map<std::string, std::string> pathOf;  // tid -> spawn path
    for (const auto& rec : rs)
      if (rec.event == "replay.task") pathOf[rec.tid] = rec.get("path");
    REQUIRE(pathOf.size() == 5);
    std::string master;
    for (const auto& [tid, path] : pathOf)
      if (path == "1") master = tid;
    std::vector<std::string> traced;
    for (const auto& rec : records_of(rs, master))
      if (rec.event == "recv" && rec.get("serial") != "0") traced.push_back(pathOf[rec.get("src")] + " " + rec.get("serial"));
    CHECK(traced == masterMatching(dump(recs[1].dir)));
  }

  {  // a record of another task count is refused, saying so
    auto r = run({abreplay(), recs[0].dir, "--", race(), "-n", "5", "--delay", "30"}, {}, 60s);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Contains("departed from the record") && Contains("pvm_spawn") &&
                          Contains("spawned 4 task(s) here, this one 5"));
    CHECK(r.out.empty());
  }

  {  // a record of another binary is refused, saying so
    // Another program under the recorded program's name.
    std::string other = vm.dir() + "/other";
    fs::create_directories(other);
    fs::copy_file(bin_dir() + "/xabdemo", other + "/xabrace", fs::copy_options::overwrite_existing);
    auto r = run({abreplay(), recs[0].dir, "--", other + "/xabrace"}, {}, 60s);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Contains("another binary than the one recorded"));
  }

  {  // a message that never comes: where and why, then stop or go on
    std::string bad = withAMessageNeverSent(recs[0].dir, vm.dir() + "/never");
    std::vector<std::string> argv = {abreplay(), "--timeout", "1", bad, "--", race()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto stopped = run(argv, {}, 60s);
    CHECK(stopped.exit_code == 3);
    CHECK_THAT(stopped.err, Contains("task 1 (xabrace") && Contains("call 2 pvm_recv(-1, 17002)") &&
                                Contains("serial 99 from task 1.") && Contains("did not come within 1 s") &&
                                Contains("stopping the run"));
    CHECK(stopped.out.find("result") == std::string::npos);
    argv.insert(argv.begin() + 1, {"--on-departure", "go-on"});
    auto wentOn = run(argv, {}, 60s);
    CHECK(wentOn.exit_code == 3);
    CHECK_THAT(wentOn.err, Contains("going on unforced"));
    CHECK_THAT(wentOn.out, Contains("xabrace: order"));  // the run went on to its end
  }

  // Messages between siblings (worker 0 gathers the others' results); a
  // master that polls: pvm_probe finding nothing or a message, pvm_nrecv,
  // pvm_trecv timing out (it prints how many did).
  for (const auto& [variant, mark] : std::vector<std::pair<std::string, std::string>>{
           {"--collector", "1.1 2 recv got -1 17002 1."}, {"--poll", " trecv timeout -1 17002"}}) {
    std::vector<std::string> coll = {variant, "-n", "4", "--delay", "30"};
    for (const auto& rec : twoDifferingRecords(vm.dir() + "/" + variant.substr(2), coll)) {
      std::string recorded = dumpOfEndedRun(rec.dir);
      REQUIRE_THAT(recorded, Contains(mark));
      for (int i = 0; i < 5; ++i) {
        std::string again = rec.dir + ".replay" + std::to_string(i);
        std::vector<std::string> argv = {abreplay(), rec.dir, "--", race()};
        argv.insert(argv.end(), coll.begin(), coll.end());
        auto r = run(argv, {{"XAB_RECORD", again}}, 60s);
        INFO(rec.dir << " replay " << i << "\n" << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.out == rec.out);
        CHECK(dumpOfEndedRun(again) == recorded);
      }
    }
  }

  {  // a program without libab reads no plan: nothing replayed, and said so
    auto r = run({abreplay(), recs[0].dir, "--", bin_dir() + "/xabrace-plain", "-n", "4", "--delay", "30"}, {}, 60s);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Contains("read its replay plan: is it built with libab"));
  }

  {  // a wildcard of another kind than recorded: the call differs
    auto r = run({abreplay(), recs[0].dir, "--", race(), "--hang", "-n", "4", "--delay", "30"}, {}, 60s);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Contains("call 2 pvm_recv(-1, -1): the record has pvm_recv(-1, 17002) here"));
  }
}

TEST_CASE("a record of a hung run replays into the same hang", "[replay][pvm]") {
  auto& vm = PrivateVm::shared();
  // --hang hangs when a DONE overtakes a RESULT: most runs with these delays.
  std::string rec, out;
  for (int i = 0; i < 10 && rec.empty(); ++i) {
    std::string dir = vm.dir() + "/hang" + std::to_string(i);
    BackgroundProcess p({abreplay(), "--record", dir, "--", race(), "--hang", "--delay", "30"}, dir + ".out");
    if (p.wait(2s) != -1) continue;  // this order ended normally: record again
    p.stop(SIGTERM);
    rec = dir;
    out = p.read_stdout();
  }
  REQUIRE_FALSE(rec.empty());
  std::string recorded = dump(rec);
  CHECK_THAT(recorded, Contains("1 task xabrace stopped"));
  CHECK_THAT(recorded, Contains("recv pending -1 17004"));

  std::string again = rec + ".replay";
  BackgroundProcess replay({abreplay(), "--timeout", "2", rec, "--", race(), "--hang", "--delay", "30"},
                           vm.dir() + "/hang.replay.out", {{"XAB_RECORD", again}});
  // Blocked where the record was blocked, past the 2 s a missing message
  // would take to be a departure.
  CHECK(replay.wait(4s) == -1);
  replay.stop(SIGTERM);
  CHECK(replay.read_stdout() == out);
  CHECK_THAT(replay.read_stderr(), !Contains("departed"));
  CHECK(dump(again) == recorded);
}

namespace {

std::shared_ptr<const xab::Trace> readTraceFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  xab::TraceReader r;
  r.feed(s.str());
  r.finish();
  return r.take();
}

// The replay task named by spawn path, and every task's path by tid.
std::map<xab::Tid, std::string> replayPaths(const xab::Trace& t) {
  std::map<xab::Tid, std::string> paths;
  for (xab::TaskIndex k = 0; k < t.taskCount(); ++k)
    for (std::uint32_t i = 0; i < t.events(k).size(); ++i)
      if (t.events(k)[i].kind == xab::Kind::REPLAY_TASK)
        paths[t.task(k).tid] = std::string(t.str(t.events(k)[i].get(static_cast<xab::Key>(xab::fieldKey("path")), -1)));
  return paths;
}

}  // namespace

// The Athapascan record/replay paper's date correction (§4): a record run (no tracing), its replay traced
// by abmon, and the replay's dates corrected back to the record run's.
TEST_CASE("a traced replay's dates are corrected back to the record run's", "[replay][pvm][correct]") {
  auto& vm = PrivateVm::shared();
  std::vector<std::string> args = {"-n", "4", "--delay", "30"};
  std::string rec = vm.dir() + "/correct.rec";
  std::vector<std::string> argv = {abreplay(), "--record", rec, "--", race()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto recorded = run(argv, {}, 60s);
  REQUIRE(recorded.exit_code == 0);
  std::string trace = vm.dir() + "/correct.trace";
  {
    Monitor mon(trace);
    std::vector<std::string> again = {abreplay(), rec, "--", race()};
    again.insert(again.end(), args.begin(), args.end());
    auto r = run(again, {}, 60s);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(r.out == recorded.out);
    REQUIRE(mon.wait_exits(5));
    mon.finish();
  }

  // In the model, as abstat --compensate --replay-of does it.
  xab::replay::RecordSet record(rec);
  xab::ClockReport clock;
  xab::CompensationReport comp;
  xab::ReplayCorrectionReport rep;
  auto replayed = xab::compensate(xab::toGlobalTime(readTraceFile(trace), clock), comp);
  auto corrected = xab::correctReplay(replayed, record, rep);
  INFO(rep.note);
  CHECK(rep.tasksMatched == 5);
  CHECK(rep.recordedNotReplayed == 0);
  CHECK(rep.anchorsMismatched == 0);
  // Anchors: the 5 tasks' first calls, the spawn and the master's 8 wildcard receives.
  CHECK(rep.anchorsUsed == 5 + 1 + 8);

  // The corrected receive order is the record's: the master's receives, in
  // corrected time, got the recorded senders' serials, and no message is
  // received before it was sent.
  auto paths = replayPaths(*corrected);
  auto master = std::find_if(paths.begin(), paths.end(), [](const auto& p) { return p.second == "1"; });
  REQUIRE(master != paths.end());
  xab::TaskIndex m = *corrected->findTask(master->first);
  std::vector<std::pair<xab::TimeNs, std::string>> got;
  for (std::uint32_t i = 0; i < corrected->events(m).size(); ++i) {
    const xab::Event& e = corrected->events(m)[i];
    if (e.kind == xab::Kind::RECV && !e.isBegin() && e.get(xab::Key::Serial) != 0)
      got.emplace_back(e.time, paths[e.get(xab::Key::Src)] + " " + std::to_string(e.get(xab::Key::Serial)));
  }
  std::stable_sort(got.begin(), got.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> order;
  for (const auto& g : got) order.push_back(g.second);
  CHECK(order == masterMatching(dump(rec)));
  auto msgs = xab::matchMessages(*corrected);
  for (const auto& msg : msgs.messages)
    for (const auto& r : msg.receives) CHECK(corrected->event(r.recv).time >= corrected->event(msg.send).time);

  // At the anchors, the corrected dates are the record run's.  One host,
  // one clock: the record's dates are coherent, and a sender whose replay
  // ran longer is pulled back under them, so no anchor should need a push.
  // The one push left is a message whose record transfer was shorter than
  // the replay's least transfer (tens to hundreds of us); kTolerance,
  // 5 ms, leaves room for a chain of those on a loaded machine.
  constexpr xab::TimeNs kTolerance = 5'000'000;
  xab::TimeNs worst = 0;
  for (const auto& a : rep.anchors) {
    xab::TimeNs err = a.corrected - a.recorded;
    worst = std::max(worst, err < 0 ? -err : err);
    if (!a.pushed) CHECK(err == 0);
    CHECK(err >= 0);
  }
  CHECK(worst <= kTolerance);
  WARN("anchors " << rep.anchors.size() << ", pushed " << rep.anchorsPushed << ", largest push " << worst / 1000 << " us");

  // The tools show the corrected replay.
  auto st = run({bin_dir() + "/abstat", "--compensate", "--replay-of", rec, "--replay-check", "3", trace}, {}, 30s);
  CHECK_THAT(st.out, Contains("replay of " + rec + ": replay dates corrected to the record's: 5 tasks") &&
                         Contains("replay check: "));
  WARN(st.out.substr(0, 800));
  auto picl = run({bin_dir() + "/ab2picl", "--quiet", "--replay-of", rec, trace}, {}, 30s);
  CHECK(picl.exit_code == 0);
  CHECK_THAT(picl.err, Contains("replay dates corrected"));
  // The streaming translators read the whole trace first for it: the
  // corrected JSON differs from the uncorrected one.
  auto json = run({bin_dir() + "/ab2json", "--replay-of", rec, trace}, {}, 30s);
  auto plainJson = run({bin_dir() + "/ab2json", trace}, {}, 30s);
  CHECK(json.exit_code == 0);
  CHECK_THAT(json.err, Contains("replay dates corrected"));
  CHECK(json.out != plainJson.out);
  if (fs::exists(bin_dir() + "/xabview")) {  // built with Qt
    std::string state = vm.dir() + "/correct.state.json";
    auto v = run({bin_dir() + "/xabview", "--no-follow", "--play-to-end", "--dump-state", state, "--replay-of", rec, trace},
                 {{"QT_QPA_PLATFORM", "offscreen"}}, 60s);
    INFO(v.err);
    CHECK(v.exit_code == 0);
    std::ifstream in(state);
    std::stringstream json;
    json << in.rdbuf();
    CHECK_THAT(json.str(), Contains("replay on the record's dates"));
  }
  auto bad = run({bin_dir() + "/abstat", "--replay-of", vm.dir() + "/no-such-record", trace}, {}, 30s);
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Contains("no such record directory"));
}

namespace {

// A copy of record dir `from` in which the first entry with this outcome
// is changed by `change`.
template <class Change>
std::string withEntryChanged(const std::string& from, const std::string& to, int outcome, Change change) {
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  for (const auto& f : fs::directory_iterator(to)) {
    std::fstream io(f.path(), std::ios::in | std::ios::out | std::ios::binary);
    xab_rec_header h{};
    io.read(reinterpret_cast<char*>(&h), sizeof h);
    for (uint32_t i = 0; i < h.count; ++i) {
      xab_rec_entry e{};
      auto at = std::streamoff(sizeof h + i * sizeof e);
      io.seekg(at);
      io.read(reinterpret_cast<char*>(&e), sizeof e);
      if (e.outcome != outcome) continue;
      change(e);
      io.seekp(at);
      io.write(reinterpret_cast<const char*>(&e), sizeof e);
      return to;
    }
  }
  FAIL("no entry with outcome " << outcome << " in " << from);
  return to;
}

}  // namespace

// Where each spawned task was put, what pvm_config and
// pvm_tasks returned, which message each pvm_addmhf handler took.
TEST_CASE("spawn placement, pvm_config and pvm_tasks results and handlers' messages are recorded and checked",
          "[replay][pvm]") {
  auto& vm = PrivateVm::shared();
  std::vector<std::string> args = {"--handler", "--inspect", "-n", "3", "--delay", "30"};
  std::string rec = vm.dir() + "/placed.rec";
  std::vector<std::string> argv = {abreplay(), "--record", rec, "--", race()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto recorded = run(argv, {}, 60s);
  INFO(recorded.err);
  REQUIRE(recorded.exit_code == 0);
  std::string d = dumpOfEndedRun(rec);
  INFO(d);
  CHECK_THAT(d, Contains("1 1 spawn host 3 0 ") && !Contains("spawn host 1 0 -"));
  CHECK_THAT(d, Contains("1 1 config result 1 1 - 0 0 0"));  // one host, one architecture
  CHECK_THAT(d, Contains("1 1 tasks result 0 "));  // the machine's tasks (the master, its 3 workers, others')
  std::size_t handled = 0;
  for (std::size_t at = 0; (at = d.find(" handler taken -2 0 1.", at)) != std::string::npos; ++at) ++handled;
  CHECK(handled == 3);

  {  // traced (abmon is a task too, and is not counted): the same course
    Monitor mon(vm.dir() + "/placed.trace");
    std::vector<std::string> again = {abreplay(), rec, "--", race()};
    again.insert(again.end(), args.begin(), args.end());
    auto r = run(again, {{"XAB_RECORD", rec + ".again"}}, 60s);
    INFO(r.err);
    // A handler's message is checked, not forced: the DONEs follow the
    // forced results' STOPs, and may come in another order (a departure)
    // or between other calls (the same order: not a departure, but the
    // handler's lines print elsewhere and its entries follow other calls).
    auto lines = [](const std::string& text, const std::string& with, bool keep) {
      std::string out;
      std::istringstream in(text);
      for (std::string l; std::getline(in, l);)
        if ((l.find(with) != std::string::npos) == keep) out += l + "\n";
      return out;
    };
    auto handled = [&](const std::string& dumped) {  // "sender serial" of each handler line, in order
      std::string out;
      std::istringstream in(lines(dumped, " handler taken ", true));
      for (std::string path, seq, call, outcome, src, tag, sender, serial, rest; in >> path >> seq >> call >> outcome >> src >> tag >> sender >> serial;) {
        std::getline(in, rest);
        out += sender + " " + serial + "\n";
      }
      return out;
    };
    if (r.exit_code == 3) {
      CHECK_THAT(r.err, Contains("a handler took serial"));
    } else {
      CHECK(r.exit_code == 0);
      CHECK(lines(r.out, "handler got", false) == lines(recorded.out, "handler got", false));
      // pvm_tasks counts the machine's tasks: the other runs' in this VM too.
      std::string again = dumpOfEndedRun(rec + ".again");
      CHECK(lines(lines(again, " tasks result ", false), " handler taken ", false) ==
            lines(lines(d, " tasks result ", false), " handler taken ", false));
      CHECK(handled(again) == handled(d));
    }
    mon.finish();
  }

  std::vector<std::string> replayArgs = {abreplay(), "--timeout", "2", "", "--", race()};
  replayArgs.insert(replayArgs.end(), args.begin(), args.end());
  auto replayOf = [&](const std::string& dir) {
    replayArgs[3] = dir;
    return run(replayArgs, {}, 60s);
  };
  {  // a virtual machine of another shape
    auto r = replayOf(withEntryChanged(rec, vm.dir() + "/twohosts", XAB_REC_RESULT, [](xab_rec_entry& e) {
      if (e.kind == XAB_EV_CONFIG) e.v[0] = 2;
    }));
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Contains("pvm_config(1, 1): pvm_config found 1 host(s) of 1 architecture(s), the recorded run 2 of 1"));
  }
  {  // a task put on a host this machine has not
    auto r = replayOf(withEntryChanged(rec, vm.dir() + "/nohost", XAB_REC_HOSTNAME, [](xab_rec_entry& e) {
      std::memset(&e.v[1], 0, 5 * sizeof(int));
      std::memcpy(&e.v[1], "nosuchhost", 10);
    }));
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Contains("the recorded run put task 1.1 on host nosuchhost, which this virtual machine has not"));
  }
  {  // a handler took another message
    auto r = replayOf(withEntryChanged(rec, vm.dir() + "/handled", XAB_REC_HANDLER, [](xab_rec_entry& e) { e.v[4] = 99; }));
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Contains("pvm_addmhf handler") && Contains("the recorded run's serial 99 from task 1."));
  }
}
