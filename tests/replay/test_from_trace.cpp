// The full trace also serves as a record (docs/replay.md
// "You already have a trace of the bad run"): demo/xabrace traced by abmon
// in its default mode, in the private PVM virtual machine of test_replay,
// is replayed with `abreplay --from-trace`: each replay prints what the
// traced run printed and gets, at every recorded receive, the message the
// traced run got (sender's spawn path and serial: the replay's own record
// and the trace of a replay, read as records, dump what the trace does).
// A traced hung run replays into the same hang.  The record made from a
// trace is libab's (the same run recorded by libab at once dumps the same,
// and RecordSet writes libab's records back byte for byte); traces of
// another program or task count, traces without serials, with a message
// whose send is missing, and garbage are refused with a clear message.
#include <xab/model/model.h>
#include <xab/replay/correct.h>
#include <xab/replay/record_set.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
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


std::string readAll(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Replays per trace: 3 (the record tests replay 20 times; these check the
// same forcing, from another record, within the CI's budget).
int replaysPerTrace() {
  const char* v = std::getenv("XAB_TEST_REPLAYS");
  return v && std::atoi(v) > 0 ? std::min(3, std::atoi(v)) : 3;
}

// What abreplay makes of a trace, one line per task and recorded call.
std::string fromTrace(const std::string& trace) {
  auto r = run({abreplay(), "--from-trace", trace}, {}, 30s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

std::vector<std::string> withArgs(std::vector<std::string> argv, const std::vector<std::string>& args) {
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

struct Traced {
  std::string trace, rec, out;
};

// One run of xabrace traced by abmon (default mode) and recorded by libab
// at once: the record made from the trace must be libab's.
Traced tracedRun(const std::string& base, const std::vector<std::string>& args, const std::vector<std::string>& replayFrom = {}) {
  Traced t{base + ".trace", base + ".rec", ""};
  Monitor mon(t.trace);
  auto argv = replayFrom.empty() ? withArgs({abreplay(), "--record", t.rec, "--", race()}, args)
                                 : withArgs(withArgs({abreplay()}, replayFrom), withArgs({"--", race()}, args));
  auto r = run(argv, {}, 60s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(mon.wait_exits(5));
  mon.finish();
  t.out = r.out;
  return t;
}

// A copy of the trace's text with every line that `keep` refuses left out
// or changed.
template <class Edit>
std::string editedTrace(const std::string& from, const std::string& to, Edit edit) {
  std::istringstream in(readAll(from));
  std::ofstream out(to);
  for (std::string line; std::getline(in, line);)
    if (edit(line)) out << line << '\n';
  return to;
}

}  // namespace

TEST_CASE("a full trace serves as a record: traced racy runs replay from their traces", "[replay][pvm][fromtrace]") {
  auto& vm = PrivateVm::shared();
  std::vector<std::string> args = {"-n", "4", "--delay", "30"};
  std::vector<Traced> runs;
  for (int i = 0; i < 20 && runs.size() < 2; ++i) {
    Traced t = tracedRun(vm.dir() + "/traced" + std::to_string(i), args);
    if (runs.empty() || runs[0].out != t.out) runs.push_back(t);
  }
  REQUIRE(runs.size() == 2);

  for (const auto& traced : runs) {
    std::string made = fromTrace(traced.trace);
    // The same run's own record (libab's) says the same: the record made
    // from the trace holds what record mode holds.
    CHECK(made == dumpOfEndedRun(traced.rec));
    CHECK_THAT(made, Contains("1 2 recv got -1 17002 1."));
    for (int i = 0; i < replaysPerTrace(); ++i) {
      std::string again = traced.rec + ".again" + std::to_string(i);
      auto r = run(withArgs({abreplay(), "--from-trace", traced.trace, "--", race()}, args), {{"XAB_RECORD", again}}, 60s);
      INFO(traced.trace << " replay " << i << "\n" << r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(r.out == traced.out);
      CHECK(dumpOfEndedRun(again) == made);  // every receive got the traced message
    }
  }

  {  // handlers' messages, pvm_config and pvm_tasks results: as libab records them
    Traced inspected = tracedRun(vm.dir() + "/inspected", {"--handler", "--inspect", "-n", "4"});
    std::string made = fromTrace(inspected.trace);
    CHECK(made == dumpOfEndedRun(inspected.rec));
    CHECK_THAT(made, Contains("1 1 config result 1 1") && Contains(" handler taken -2 0 1."));
  }

  {  // pvm_probe, pvm_nrecv finding nothing or a message, pvm_trecv timing out:
     // the count of timed-out waits, different in every run, comes again
    Traced polled = tracedRun(vm.dir() + "/polled", {"--poll", "-n", "4", "--delay", "5"});
    CHECK_THAT(fromTrace(polled.trace), Contains(" probe ") && Contains(" trecv "));
    for (int i = 0; i < 2; ++i) {
      auto r = run({abreplay(), "--from-trace", polled.trace, "--", race(), "--poll", "-n", "4", "--delay", "5"}, {}, 60s);
      INFO(r.err);
      CHECK(r.exit_code == 0);
      CHECK(r.out == polled.out);
    }
  }

  {  // a traced replay from a trace: its trace, read as a record, is the first trace's
    Traced again = tracedRun(vm.dir() + "/retraced", args, {"--from-trace", runs[1].trace});
    CHECK(again.out == runs[1].out);
    CHECK(fromTrace(again.trace) == fromTrace(runs[1].trace));
    // --replay-of takes the trace as the record: dates corrected back to the traced run's
    auto st = run({bin_dir() + "/abstat", "--replay-of", runs[1].trace, again.trace}, {}, 30s);
    INFO(st.err);
    CHECK(st.exit_code == 0);
    CHECK_THAT(st.out + st.err, Contains("replay dates corrected to the record's: 5 tasks, 14 anchors used"));
  }

  {  // --write-record: libab's format, which abreplay replays like any record
    std::string written = vm.dir() + "/written.rec";
    auto w = run({abreplay(), "--from-trace", runs[0].trace, "--write-record", written}, {}, 30s);
    REQUIRE(w.exit_code == 0);
    CHECK(w.out.empty());
    std::set<std::string> mine, libabs;
    for (const auto& f : fs::directory_iterator(written)) mine.insert(f.path().filename().string());
    for (const auto& f : fs::directory_iterator(runs[0].rec))
      if (f.path().extension() == ".rec") libabs.insert(f.path().filename().string());  // not abreplay's DIR/clocks
    CHECK(mine == libabs);  // t<tid>.rec: the traced run's tids, as libab names them
    CHECK(dumpOfEndedRun(written) == dumpOfEndedRun(runs[0].rec));
    auto r = run(withArgs({abreplay(), written, "--", race()}, args), {}, 60s);
    CHECK(r.exit_code == 0);
    CHECK(r.out == runs[0].out);
  }

  {  // one owner of the format: RecordSet writes libab's records back byte for byte
    std::string rewritten = vm.dir() + "/rewritten.rec";
    xab::replay::RecordSet(runs[0].rec).write(rewritten);
    for (const auto& f : fs::directory_iterator(runs[0].rec)) {
      if (f.path().extension() != ".rec") continue;  // abreplay --record's DIR/clocks
      // libab's file is its mapping, grown 1024 entries at a time: past
      // the entries it counts, zeros.
      std::string libabs = readAll(f.path().string()), written = readAll(rewritten + "/" + f.path().filename().string());
      INFO(f.path());
      REQUIRE(written.size() >= sizeof(xab_rec_header));
      REQUIRE(libabs.size() >= written.size());
      CHECK(libabs.compare(0, written.size(), written) == 0);
      CHECK(libabs.find_first_not_of('\0', written.size()) == std::string::npos);
    }
  }

  {  // a trace of another task count, or of another program, is refused
    auto r = run(withArgs({abreplay(), "--from-trace", runs[0].trace, "--", race()}, {"-n", "5", "--delay", "30"}), {}, 60s);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.err, Contains("departed from the record " + runs[0].trace) &&
                          Contains("spawned 4 task(s) here, this one 5"));
    auto other = run({abreplay(), "--from-trace", runs[0].trace, "--", bin_dir() + "/xabdemo"}, {}, 60s);
    CHECK(other.exit_code == 3);
    CHECK_THAT(other.err, Contains("the record's task 1 is xabrace, not xabdemo"));
  }

  {  // a trace whose receives name no serial (an older or translated trace)
    std::string bare = editedTrace(runs[0].trace, vm.dir() + "/noserial.trace", [](std::string& line) {
      auto at = line.find(" serial=");
      if (line.find(" recv ") != std::string::npos && at != std::string::npos)
        line.erase(at, line.find(' ', at + 1) == std::string::npos ? std::string::npos : line.find(' ', at + 1) - at);
      return true;
    });
    auto r = run({abreplay(), "--from-trace", bare, "--", race()}, {}, 30s);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains("call 2 recv: the trace names no src= and serial= of the message received"));
  }

  {  // a trace translated to PICL and back: serials rebuilt, but no spawn tree
    std::string picl = vm.dir() + "/traced.picl", back = vm.dir() + "/frompicl.trace";
    auto p = run({bin_dir() + "/ab2picl", runs[0].trace}, {}, 30s);
    REQUIRE(p.exit_code == 0);
    std::ofstream(picl) << p.out;
    auto a = run({bin_dir() + "/picl2ab", picl}, {}, 30s);
    REQUIRE(a.exit_code == 0);
    std::ofstream(back) << a.out;
    auto r = run({abreplay(), "--from-trace", back, "--", race()}, {}, 30s);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains("5 tasks were started by no spawn of the trace (t40001 node, ") &&
                          Contains("translated from PICL"));
  }

  {  // a receive whose message's send is not in the trace: which one is ambiguous
    bool dropped = false;
    std::string cut = editedTrace(runs[0].trace, vm.dir() + "/nosend.trace", [&](std::string& line) {
      bool drop = !dropped && line.find(" send ") != std::string::npos && line.find(" tag=17002") != std::string::npos;
      dropped = dropped || drop;
      return !drop;
    });
    auto r = run({abreplay(), "--from-trace", cut}, {}, 30s);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains("(xabrace), call ") && Contains(" recv: got serial 1 of t") &&
                          Contains("whose send is not in the trace"));
  }

  {  // the command's first record (its name) lost: which program it was is unknown
    std::string nameless = editedTrace(runs[0].trace, vm.dir() + "/nameless.trace", [](std::string& line) {
      return line.find(" mytid ") == std::string::npos || line.find("parent=none") == std::string::npos;
    });
    auto r = run({abreplay(), "--from-trace", nameless}, {}, 30s);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains("has no program name in the trace"));
  }

  {  // garbage, an empty file, a missing file: refused, no crash
    std::string junk = vm.dir() + "/junk.trace";
    {
      std::mt19937 rng(16);
      std::ofstream out(junk, std::ios::binary);
      for (int i = 0; i < (4 << 20); ++i) out.put(static_cast<char>(rng()));
    }
    auto r = run({abreplay(), "--from-trace", junk, "--", race()}, {}, 60s);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains("malformed line(s)"));
    std::ofstream(vm.dir() + "/empty.trace").flush();
    auto e = run({abreplay(), "--from-trace", vm.dir() + "/empty.trace"}, {}, 30s);
    CHECK(e.exit_code == 2);
    CHECK_THAT(e.err, Contains("no receive-like call or spawn of any task"));
    auto m = run({abreplay(), "--from-trace", vm.dir() + "/nosuch.trace"}, {}, 30s);
    CHECK(m.exit_code == 2);
  }
}

TEST_CASE("a full trace of a hung run replays from it into the same hang", "[replay][pvm][fromtrace]") {
  auto& vm = PrivateVm::shared();
  std::string trace, out;
  for (int i = 0; i < 10 && trace.empty(); ++i) {
    std::string t = vm.dir() + "/tracedhang" + std::to_string(i) + ".trace";
    Monitor mon(t);
    BackgroundProcess p({race(), "--hang", "--delay", "30"}, t + ".out");
    if (p.wait(2s) != -1) continue;  // this order ended normally: trace again
    p.stop(SIGTERM);
    // The master's end is in the trace (a worker may wait for it for ever).
    auto masterEnded = [&](const std::string& text) {
      auto rs = parse_records(text);
      const Record* first = find(rs, "mytid", {{"parent", "none"}});
      return first && find(rs, "task.exit", {}) && !records_of(rs, first->tid).empty() &&
             records_of(rs, first->tid).back().event == "task.exit";
    };
    REQUIRE(mon.process().wait_for_output(masterEnded, 20s));
    mon.finish();
    trace = t;
    out = p.read_stdout();
  }
  REQUIRE_FALSE(trace.empty());
  std::string made = fromTrace(trace);
  CHECK_THAT(made, Contains("1 task xabrace stopped"));
  CHECK_THAT(made, Contains("recv pending -1 17004"));

  std::string again = trace + ".replay.rec";
  BackgroundProcess replay({abreplay(), "--timeout", "2", "--from-trace", trace, "--", race(), "--hang", "--delay", "30"},
                           trace + ".replay.out", {{"XAB_RECORD", again}});
  // Blocked where the traced run was blocked, past the 2 s a missing
  // message would take to be a departure.
  CHECK(replay.wait(4s) == -1);
  replay.stop(SIGTERM);
  CHECK(replay.read_stdout() == out);
  CHECK_THAT(replay.read_stderr(), !Contains("departed"));
  std::string replayed = run({abreplay(), "--dump", again}, {}, 30s).out;
  CHECK(replayed == made);
}
