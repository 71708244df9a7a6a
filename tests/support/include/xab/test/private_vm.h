// xab/test/private_vm.h -- a private PVM virtual machine for one test process.
//
// PrivateVm runs scripts/pvm-vm.sh in a fresh directory under /tmp: its own
// pvmd, its own PVM_VMID and PVM_TMP, and a hostfile whose ep= path is the
// given binary directories (default: bin_dir(), where every task binary is
// built) then /usr/bin (for the group server pvmgs).  It setenv()s the VM's
// environment into the test process, so PVM calls made by the test itself
// and every child started with run()/BackgroundProcess talk to that VM.  The
// destructor halts the VM and removes the directory (set XAB_KEEP_VM=1 to
// keep it for a post-mortem: pvmd's log is DIR/tmp/pvml.*).
//
// If the test process dies without running the destructor (a crash, a
// ctest timeout, SIGKILL), a small watchdog child notices its parent is gone
// and halts the VM, so no pvmd is left behind.
//
// Usage: one VM per test executable.  CTest runs every Catch2 test case as a
// process of its own, so a function-local static gives each one a VM of its
// own, and `ctest -j2` never makes two tests share a pvmd:
//
//   1. TEST_CASE("demo runs") {
//        auto& vm = xab::test::PrivateVm::shared();      // started once
//        auto r = xab::test::run({xab::test::bin_dir() + "/xabdemo-plain"});
//        CHECK(r.exit_code == 0);
//      }
//   2. xab::test::PrivateVm vm({"/my/bins"});            // a VM of its own
//      vm.stop();  CHECK_FALSE(xab::test::process_alive(vm.pvmd_pid()));
//
// Constructing it throws std::runtime_error (with pvm-vm.sh's message) when
// the VM cannot start; Catch2 reports that as the test's failure.
#ifndef XAB_TEST_PRIVATE_VM_H
#define XAB_TEST_PRIVATE_VM_H

#include <sys/types.h>

#include <string>
#include <vector>

#include "xab/test/process.h"

namespace xab::test {

class PrivateVm {
 public:
  explicit PrivateVm(const std::vector<std::string>& bin_dirs = {bin_dir()});
  ~PrivateVm();
  PrivateVm(const PrivateVm&) = delete;
  PrivateVm& operator=(const PrivateVm&) = delete;

  // The VM of this test process, started on first use with bin_dir().
  static PrivateVm& shared();

  // The VM's variables (PVM_ROOT, PVM_VMID, PVM_TMP, PVM_EXPORT, ...).
  const EnvVars& env() const { return env_; }
  // The VM's state directory (hostfile, env, tmp/ with pvmd's log).
  const std::string& dir() const { return dir_; }
  pid_t pvmd_pid() const { return pvmd_pid_; }
  bool running() const { return !stopped_ && process_alive(pvmd_pid_); }
  // pvmd's log so far (DIR/tmp/pvml.*): the output of spawned tasks lands here.
  std::string pvmd_log() const;

  // Halts the VM (idempotent); the destructor does it too.
  void stop();

 private:
  void start_watchdog();
  void stop_watchdog();

  std::string dir_;
  EnvVars env_;
  pid_t pvmd_pid_ = -1;
  pid_t watchdog_pid_ = -1;
  int watchdog_fd_ = -1;
  bool stopped_ = false;
};

// Path of scripts/pvm-vm.sh in the source tree.
std::string pvm_vm_script();

}  // namespace xab::test

#endif
