// The program sees the same world with libab as without: pvm_tasks lists no
// task of xab's, libpvm's error lines on stderr are byte for byte the
// plain build's, and an in-place message is recorded with the size it is
// sent with; a second pvm_exit enrols and exits a new task, with the same
// error lines.  Each case runs xabt_world with libab and without it
// (xabt_world_plain), against a real pvmd and abmon.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;

namespace {

std::string prog(const char* name) { return bin_dir() + "/" + name; }

// PVM's error lines name the task ("libpvm [t40005]: ..."): tids differ between runs.
std::string without_tids(const std::string& text) {
  return std::regex_replace(text, std::regex(R"(\[t[0-9a-f]+\])"), "[tid]");
}

}  // namespace

TEST_CASE("pvm_tasks does not list abmon to an instrumented program", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({prog("xabt_world_plain"), "tasks", "2"}, {}, 60s);
  INFO(plain.out);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(plain.out.find("tasks(0): rc=0 ntask=2\n") != std::string::npos);  // the program and its child
  Monitor mon(vm.dir() + "/tasks.trace");
  auto r = run({prog("xabt_world"), "tasks", "2"}, {}, 60s);
  REQUIRE(mon.wait_exits(2));
  auto rs = mon.finish();
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);  // same counts, same entries in the same order
  // Recorded as the program saw it (a task connecting meanwhile may make
  // the whole VM's count vary; the program's own listing does not).
  CHECK(count(rs, "tasks") == 3);
  CHECK(count(rs, "tasks", {{"ntask", "1"}}) == 1);
}

TEST_CASE("libpvm's error lines are the plain program's, call for call", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({prog("xabt_world_plain"), "errors"}, {}, 60s);
  REQUIRE(plain.exit_code == 0);
  // psend to a task that is not there: pvm_send's line, then psend's
  REQUIRE(plain.err.find("pvm_send(): Bad parameter\n") != std::string::npos);
  REQUIRE(plain.err.find("pvm_psend(): Bad parameter\n") != std::string::npos);
  Monitor mon(vm.dir() + "/errors.trace");
  auto r = run({prog("xabt_world"), "errors"}, {}, 60s);
  REQUIRE(mon.wait_exits(1));
  auto rs = mon.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);
  CHECK(without_tids(r.err) == without_tids(plain.err));
  CHECK(find(rs, "psend", {{"rc", "-2"}}));
}

TEST_CASE("an in-place message is recorded with the bytes it is sent with", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({prog("xabt_world_plain"), "inplace"}, {}, 60s);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(plain.out ==
          "10 int + 3 double: 64 bytes\n3 short + 5 byte: 11 bytes\npsend 4 int: 16 bytes\n1 double: 8 bytes\n"
          "2 float: 8 bytes\ndefault 2 int: 8 bytes\n");
  Monitor mon(vm.dir() + "/inplace.trace");
  auto r = run({prog("xabt_world"), "inplace"}, {}, 60s);
  REQUIRE(mon.wait_exits(1));
  auto rs = mon.finish();
  CHECK(r.out == plain.out);
  std::vector<std::string> sent, got;
  for (auto& rec : rs) {
    if (rec.event == "send" || rec.event == "psend") sent.push_back(rec.get("bytes"));
    if (rec.event == "recv") got.push_back(rec.get("bytes"));
  }
  CHECK(sent == std::vector<std::string>{"64", "11", "16", "8", "8", "8"});
  CHECK(got == sent);
}

TEST_CASE("pvm_exit twice: the second enrols a new task and exits it, as without libab, and it is recorded",
          "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  // The first call pvm_mytid, or pvm_catchout itself (it enrols the task and adds its handlers in one call).
  std::string first = GENERATE("", "catchout-first");
  INFO(first);
  auto plain = run({prog("xabt_world_plain"), "twoexit", first}, {}, 60s);
  INFO(plain.err);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(plain.out == "exit: 0\nexit again: 0\nenrolled again: a new tid\nexit: 0\n");
  // The second and third tasks' exits: two ids each that pvm_catchout's
  // handlers took in the first and left free.
  std::size_t not_found = 0;
  for (auto p = plain.err.find("pvm_delmhf(): Not Found\n"); p != std::string::npos;
       p = plain.err.find("pvm_delmhf(): Not Found\n", p + 1))
    not_found++;
  REQUIRE(not_found == 4);
  Monitor mon(vm.dir() + "/twoexit" + first + ".trace");
  auto r = run({prog("xabt_world"), "twoexit", first}, {}, 60s);
  CHECK(mon.wait_exits(3, 30s));
  auto rs = mon.finish();
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);
  CHECK(without_tids(r.err) == without_tids(plain.err));
  // One process, three tasks: each with its identity and one exit.
  std::vector<std::string> tasks;
  for (auto& rec : rs)
    if (rec.event == "exit") tasks.push_back(rec.tid);
  REQUIRE(tasks.size() == 3);
  std::string pid;
  for (auto& tid : tasks) {
    auto own = records_of(rs, tid);
    INFO(tid);
    REQUIRE(!own.empty());
    if (pid.empty()) pid = own.front().get("pid");
    CHECK(own.front().get("name") == "xabt_world");
    CHECK(own.front().get("pid") == pid);
    CHECK(count(own, "exit") == 1);
    CHECK(count(own, "task.exit") == 1);
  }
  // The second task is pvm_exit's own enrolment: its exit is its only call.
  CHECK(records_of(rs, tasks[1]).front().event == "exit");
}

TEST_CASE("pvm_exit twice with no pvmd: libpvm's lines as without libab", "[libab][pvm]") {
  // No pvmd answers: every call that would enrol says so, each time it tries.
  auto& vm = PrivateVm::shared();
  std::string none = vm.dir() + "/no-pvmd";
  std::filesystem::create_directories(none);
  EnvVars env{{"PVM_TMP", none}, {"PVM_VMID", "xabt-no-pvmd"}};
  auto without_pids = [](const std::string& text) {
    return std::regex_replace(text, std::regex(R"(\[pid[0-9]+\])"), "[pid]");
  };
  for (std::string first : {"", "catchout-first"}) {
    INFO(first);
    auto plain = run({prog("xabt_world_plain"), "twoexit", first}, env, 60s);
    REQUIRE(plain.err.find("No such file or directory\n") != std::string::npos);
    auto r = run({prog("xabt_world"), "twoexit", first}, env, 60s);
    CHECK(r.exit_code == plain.exit_code);
    CHECK(r.out == plain.out);
    CHECK(without_pids(r.err) == without_pids(plain.err));
  }
}
