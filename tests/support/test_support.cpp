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
