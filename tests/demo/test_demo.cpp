// Integration tests of the bundled demo (demo/xabdemo.c) in a private PVM
// virtual machine: its result, its --hang mode, and what abmon records of it.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;
using Catch::Matchers::Contains;

namespace {

std::string plain_demo() { return bin_dir() + "/xabdemo-plain"; }
std::string demo() { return bin_dir() + "/xabdemo"; }

// The line `xabdemo: result ...`, or "" when there is none.
std::string result_line(const std::string& out) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("xabdemo: result ", 0) == 0) return line;
  return "";
}

// The master's tid as printed by the demo ("xabdemo: master t40002, ...").
std::string master_tid(const std::string& out) {
  std::smatch m;
  static const std::regex re("xabdemo: master (t[0-9a-f]+),");
  return std::regex_search(out, m, re) ? m[1].str() : "";
}

std::set<std::string> events_of(const std::vector<Record>& records, const std::string& tid) {
  std::set<std::string> events;
  for (const auto& r : records)
    if (r.tid == tid) events.insert(r.event);
  return events;
}

size_t count_substr(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("xabdemo --help and bad arguments", "[demo]") {
  auto help = run({plain_demo(), "--help"}, {}, 30s);
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Contains("--hang") && Contains("-n N") && Contains("Examples:"));
  auto bad = run({plain_demo(), "-n", "0"}, {}, 30s);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Contains("bad argument"));
}

TEST_CASE("xabdemo without a virtual machine says so", "[demo]") {
  char tmpl[] = "/tmp/xabnovm-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  // PVM_ALLOW_ROOT: as root, libpvm would otherwise refuse to run at all.
  auto r = run({plain_demo()},
               {{"PVM_VMID", "xab-no-such-vm"}, {"PVM_TMP", tmpl}, {"PVM_ALLOW_ROOT", "yes"}}, 60s);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("cannot reach a pvmd"));
  std::filesystem::remove_all(tmpl);
}

TEST_CASE("the plain demo computes its result and exits 0", "[demo][pvm]") {
  PrivateVm::shared();
  auto r = run({plain_demo()}, {}, 120s);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::string line = result_line(r.out);
  REQUIRE_FALSE(line.empty());
  CHECK_THAT(line, Contains("workers=3 rounds=3 block=128"));
  // The arithmetic is deterministic (no reassociation, no FMA on x86-64);
  // a result lost or received twice changes the sum by hundreds.
  std::smatch m;
  REQUIRE(std::regex_search(line, m, std::regex("sum=([0-9.]+) checksum=([0-9]+)")));
  CHECK(std::fabs(std::stod(m[1]) - 16936.311728) < 1e-3);
  CHECK(m[2] == "436307");
}

TEST_CASE("the demo's result depends on workers and rounds, not on timing", "[demo][pvm]") {
  PrivateVm::shared();
  auto [workers, rounds] = GENERATE(table<int, int>({{1, 1}, {2, 4}, {5, 2}}));
  std::vector<std::string> args = {"-n", std::to_string(workers), "--rounds", std::to_string(rounds)};
  std::vector<std::string> plain = {plain_demo()}, instrumented = {demo()};
  plain.insert(plain.end(), args.begin(), args.end());
  instrumented.insert(instrumented.end(), args.begin(), args.end());
  auto a = run(plain, {}, 120s), b = run(plain, {}, 120s), c = run(instrumented, {}, 120s);
  INFO(a.err << b.err << c.err);
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  REQUIRE(c.exit_code == 0);
  CHECK_THAT(result_line(a.out), Contains("workers=" + std::to_string(workers) + " rounds=" +
                                          std::to_string(rounds) + " "));
  CHECK(result_line(a.out) == result_line(b.out));
  CHECK(result_line(a.out) == result_line(c.out));  // libab changes nothing the program sees
}

TEST_CASE("xabdemo --hang blocks until the master is killed", "[demo][pvm]") {
  PrivateVm vm;  // a VM of its own: the blocked workers stay in it until it halts
  BackgroundProcess master({plain_demo(), "--hang"}, vm.dir() + "/hang.out");
  REQUIRE(master.wait_for_output([](const std::string& s) { return !master_tid(s).empty(); }, 60s));
  // A normal run takes a fraction of a second; --hang must still be blocked
  // after 3 s (a slow machine only makes this more likely to hold).
  CHECK(master.wait(3s) == -1);
  CHECK_THAT(master.read_stderr(), Contains("waits for tag 16040"));
  CHECK(result_line(master.read_stdout()).empty());

  // The master (started outside PVM, listed as "-") and its 3 blocked workers.
  auto ps = run({"pvm"}, {}, 30s, "ps\n");
  CHECK_THAT(ps.out, Contains(" " + master_tid(master.read_stdout()).substr(1) + " "));
  CHECK(count_substr(ps.out, "xabdemo-plain") == 3);

  CHECK(master.stop(SIGTERM) == 128 + SIGTERM);
  vm.stop();  // halting the VM ends the workers
  CHECK_FALSE(vm.running());
}

TEST_CASE("abmon records every task of the instrumented demo", "[demo][pvm][abmon]") {
  PrivateVm vm;
  Monitor mon(vm.dir() + "/trace");
  auto r = run({demo(), "-n", "3", "--rounds", "2"}, {}, 120s);
  REQUIRE(r.exit_code == 0);
  std::string master = master_tid(r.out);
  REQUIRE_FALSE(master.empty());
  // Every task's last record is task.exit; wait for all four.
  CHECK(mon.process().wait_for_output(
      [](const std::string& s) { return count_substr(s, " task.exit ") >= 4; }, 30s));
  CHECK(mon.process().stop(SIGINT) == 0);

  std::string text = mon.process().read_stdout();
  REQUIRE(text.rfind("#xab-trace 1 ", 0) == 0);
  auto records = parse_records(text);

  std::vector<std::string> workers;
  for (const auto& rec : records)
    if (rec.event == "spawn" && rec.tid == master) {
      CHECK(rec.f.at("rc") == "3");
      std::istringstream tids(rec.f.at("tids"));
      for (std::string t; std::getline(tids, t, ',');) workers.push_back(t);
    }
  REQUIRE(workers.size() == 3);

  auto m = events_of(records, master);
  for (const char* e : {"mytid", "joingroup", "spawn", "mcast", "pkint", "pkfloat", "pkdouble",
                        "send", "recv.begin", "recv", "upkdouble", "barrier", "reduce", "exit",
                        "task.exit"})
    CHECK(m.count(e) == 1);
  for (const auto& w : workers) {
    INFO("worker " << w);
    auto ev = events_of(records, w);
    for (const char* e : {"mytid", "joingroup", "recv", "upkint", "upkfloat", "upkdouble",
                          "send", "barrier", "reduce", "exit", "task.exit"})
      CHECK(ev.count(e) == 1);
  }
  size_t results = 0;
  for (const auto& rec : records)
    if (rec.event == "send" && rec.f.count("tag") && rec.f.at("tag") == "16004") ++results;
  CHECK(results == 3 * 2);  // one result per worker per round
}

TEST_CASE("abmon shows the --hang master blocked in recv tag=16040", "[demo][pvm][abmon]") {
  PrivateVm vm;
  Monitor mon(vm.dir() + "/trace");
  BackgroundProcess master({demo(), "--hang"}, vm.dir() + "/hang.out");
  REQUIRE(master.wait_for_output([](const std::string& s) { return !master_tid(s).empty(); }, 60s));
  std::string tid = master_tid(master.read_stdout());

  // libab flushes before a call that may block, so the record reaches abmon
  // while the master sits in pvm_recv (generous deadline; the real bound is
  // checked on abmon's own two clocks below).
  auto is_hang_record = [&](const Record& r) {
    return r.tid == tid && r.event == "recv.begin" && r.f.count("tag") &&
           r.f.at("tag") == "16040";
  };
  REQUIRE(mon.process().wait_for_output(
      [&](const std::string& s) {
        for (const auto& r : parse_records(s))
          if (is_hang_record(r)) return true;
        return false;
      },
      10s));
  CHECK(master.running());
  auto records = parse_records(mon.process().read_stdout());
  for (const auto& r : records) {
    if (is_hang_record(r)) {
      INFO("receive time - task time = " << r.recv_time - r.task_time);
      CHECK(r.recv_time - r.task_time < 1.0);
    }
    // The master never receives a message with tag 16040.
    if (r.tid == tid && r.event == "recv") CHECK(r.f.at("tag") != "16040");
  }
  CHECK(master.stop(SIGTERM) == 128 + SIGTERM);
  CHECK(mon.process().stop(SIGINT) == 0);
  vm.stop();
}
