// Tests of the test fixture itself: child processes and the private VM.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "xab/test/private_vm.h"
#include "xab/test/process.h"

using namespace xab::test;
using Catch::Matchers::Contains;

namespace {

bool wait_gone(pid_t pid, std::chrono::seconds deadline) {
  auto end = std::chrono::steady_clock::now() + deadline;
  while (process_alive(pid) && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(50ms);
  return !process_alive(pid);
}

std::string temp_dir() {
  char tmpl[] = "/tmp/xabtest-XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  return tmpl;
}

}  // namespace

TEST_CASE("run() returns exit code, stdout and stderr", "[support]") {
  auto r = run({"sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(r.exit_code == 3);
  CHECK_FALSE(r.timed_out);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
}

TEST_CASE("run() passes extra environment and stdin", "[support]") {
  auto r = run({"sh", "-c", "echo $XAB_TEST_VALUE; cat"}, {{"XAB_TEST_VALUE", "v 1"}}, 10s, "in\n");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "v 1\nin\n");
}

TEST_CASE("run() reports a program that cannot be started", "[support]") {
  auto r = run({"/nonexistent/xab-no-such-program"});
  CHECK(r.exit_code == 127);
  CHECK_THAT(r.err, Contains("exec failed"));
}

TEST_CASE("run() kills its child after the timeout", "[support]") {
  auto r = run({"sleep", "30"}, {}, 300ms);
  CHECK(r.timed_out);
  CHECK(r.exit_code == 128 + SIGKILL);
}

TEST_CASE("run() does not wait for a grandchild holding its stdout", "[support]") {
  auto r = run({"sh", "-c", "sleep 3 & echo done"}, {}, 60s);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "done\n");
}

TEST_CASE("BackgroundProcess writes stdout to a file and stops on a signal", "[support]") {
  std::string dir = temp_dir();
  {
    BackgroundProcess p({"sh", "-c", "echo ready; exec sleep 30"}, dir + "/out");
    CHECK(p.pid() > 0);
    REQUIRE(p.wait_for_output([](const std::string& s) { return s == "ready\n"; }, 10s));
    CHECK(p.running());
    CHECK(p.stop(SIGINT) == 128 + SIGINT);
    CHECK_FALSE(p.running());
    CHECK_FALSE(process_alive(p.pid()));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("PrivateVm answers the pvm console and halts cleanly", "[support][pvm]") {
  pid_t pvmd = -1;
  std::string dir;
  {
    PrivateVm vm;
    pvmd = vm.pvmd_pid();
    dir = vm.dir();
    REQUIRE(vm.running());
    REQUIRE(vm.env().count("PVM_VMID") == 1);
    CHECK(std::string(std::getenv("PVM_VMID")) == vm.env().at("PVM_VMID"));
    CHECK_THAT(vm.env().at("PVM_EXPORT"), Contains("PVM_VMID"));

    auto r = run({"pvm"}, {}, 30s, "conf\n");
    CHECK_THAT(r.out, Contains("1 host"));
    CHECK_THAT(r.out, Contains("pvmd already running"));  // the console did not start one

    vm.stop();
    CHECK_FALSE(vm.running());
    CHECK(wait_gone(pvmd, 10s));
    CHECK(std::getenv("PVM_VMID") == nullptr);  // the environment is restored
  }
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("two PrivateVms are independent", "[support][pvm]") {
  PrivateVm a;
  std::string vmid_a = a.env().at("PVM_VMID");
  PrivateVm b;
  CHECK(vmid_a != b.env().at("PVM_VMID"));
  CHECK(a.pvmd_pid() != b.pvmd_pid());
  CHECK(a.running());
  CHECK(b.running());
  b.stop();
  CHECK(a.running());  // halting one VM leaves the other alone
}

TEST_CASE("the watchdog halts the VM when the test process is killed", "[support][pvm]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // a "test process" that starts a VM, then dies hard
    ::close(fds[0]);
    pid_t pvmd = -1;
    try {
      PrivateVm* vm = new PrivateVm;  // never destroyed: SIGKILL comes first
      pvmd = vm->pvmd_pid();
    } catch (...) {
    }
    (void)!::write(fds[1], &pvmd, sizeof pvmd);
    ::pause();
    ::_exit(0);
  }
  ::close(fds[1]);
  pid_t pvmd = -1;
  bool got = ::read(fds[0], &pvmd, sizeof pvmd) == sizeof pvmd;
  ::close(fds[0]);
  bool alive = process_alive(pvmd);
  ::kill(child, SIGKILL);  // before any REQUIRE: a failed test must not leave it
  ::waitpid(child, nullptr, 0);
  REQUIRE(got);
  REQUIRE(pvmd > 0);
  CHECK(alive);
  CHECK(wait_gone(pvmd, 30s));
}

// ---- scripts/pvm-vm.sh used directly, as demo.sh and people do ----

TEST_CASE("pvm-vm.sh start and stop are idempotent", "[support][pvm][script]") {
  std::string dir = temp_dir() + "/vm";
  auto sh = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"bash", pvm_vm_script()});
    return run(args, {{"XAB_VM_QUIET", ""}}, 60s);
  };
  auto first = sh({"start", dir});
  REQUIRE(first.exit_code == 0);
  std::string pid1 = run({"cat", dir + "/pvmd.pid"}).out;
  auto again = sh({"start", dir});
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.err, Contains("already runs"));
  CHECK(run({"cat", dir + "/pvmd.pid"}).out == pid1);  // no second pvmd
  CHECK(sh({"status", dir}).exit_code == 0);

  pid_t pvmd = std::stoi(pid1);
  CHECK(sh({"stop", dir}).exit_code == 0);
  CHECK_FALSE(process_alive(pvmd));
  auto twice = sh({"stop", dir});
  CHECK(twice.exit_code == 0);
  CHECK_THAT(twice.err, Contains("not running"));
  CHECK(sh({"status", dir}).exit_code == 1);
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST_CASE("pvm-vm.sh refuses bad arguments without side effects", "[support][script]") {
  std::string base = temp_dir();
  auto r = run({"bash", pvm_vm_script(), "start", base + "/vm", base + "/no-such-bin"}, {}, 60s);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("binary dir") && Contains("does not exist"));
  CHECK_FALSE(std::filesystem::exists(base + "/vm"));  // nothing created, nothing started
  CHECK(run({"bash", pvm_vm_script(), "frobnicate"}).exit_code == 2);
  auto help = run({"bash", pvm_vm_script(), "--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Contains("Examples:"));
  std::filesystem::remove_all(base);
}
