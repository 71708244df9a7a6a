// A private PVM virtual machine for a test process: scripts/pvm-vm.sh does
// the work; this class owns the directory, the environment and a watchdog.
#include "xab/test/private_vm.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace xab::test {
namespace {

// Undoes pvm-vm.sh's `printf %q` for the values it writes (backslash escapes).
std::string unquote(const std::string& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 1 < v.size()) ++i;
    s += v[i];
  }
  return s;
}

EnvVars parse_env_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("xab::test::PrivateVm: cannot read " + path);
  EnvVars vars;
  std::string line;
  const std::string prefix = "export ";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    vars[line.substr(prefix.size(), eq - prefix.size())] = unquote(line.substr(eq + 1));
  }
  if (!vars.count("PVM_VMID")) throw std::runtime_error("xab::test::PrivateVm: no PVM_VMID in " + path);
  return vars;
}

bool keep_vm_dir() { return std::getenv("XAB_KEEP_VM") != nullptr; }

}  // namespace

std::string pvm_vm_script() { return XAB_TEST_PVM_VM_SCRIPT; }

PrivateVm::PrivateVm(const std::vector<std::string>& bin_dirs) {
  char tmpl[] = "/tmp/xabvm-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("xab::test::PrivateVm: mkdtemp failed");
  dir_ = tmpl;
  std::vector<std::string> argv = {"bash", pvm_vm_script(), "start", dir_};
  for (const auto& b : bin_dirs) {
    fs::create_directories(b);  // a bin dir nothing was built into yet
    argv.push_back(b);
  }
  RunResult r = run(argv, {}, 60s);
  if (r.exit_code != 0) {
    run({"bash", pvm_vm_script(), "stop", dir_}, {}, 60s);  // a pvmd that came up late
    if (!keep_vm_dir()) fs::remove_all(dir_);
    throw std::runtime_error("xab::test::PrivateVm: pvm-vm.sh start failed (exit " +
                             std::to_string(r.exit_code) + "): " + r.err + r.out);
  }
  env_ = parse_env_file(dir_ + "/env");
  std::ifstream(dir_ + "/pvmd.pid") >> pvmd_pid_;
  start_watchdog();
  for (const auto& [k, v] : env_) ::setenv(k.c_str(), v.c_str(), 1);
}

PrivateVm::~PrivateVm() {
  try {
    stop();
  } catch (...) {  // a destructor must not throw; the watchdog is gone, pvmd may linger
  }
}

PrivateVm& PrivateVm::shared() {
  static PrivateVm vm;
  return vm;
}

std::string PrivateVm::pvmd_log() const {
  std::string log;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_ + "/tmp", ec)) {
    if (e.path().filename().string().rfind("pvml.", 0) != 0) continue;
    std::ifstream in(e.path());
    std::ostringstream ss;
    ss << in.rdbuf();
    log += ss.str();
  }
  return log;
}

void PrivateVm::stop() {
  if (stopped_) return;
  stopped_ = true;
  stop_watchdog();
  RunResult r = run({"bash", pvm_vm_script(), "stop", dir_}, {}, 60s);
  for (const auto& [k, v] : env_) ::unsetenv(k.c_str());
  // A task of the halted VM may still be writing its last lines here.
  for (int i = 0; i < 5 && !keep_vm_dir() && fs::exists(dir_); ++i) {
    std::error_code ec;
    if (fs::remove_all(dir_, ec) == static_cast<std::uintmax_t>(-1)) ::usleep(100000);
  }
  if (r.exit_code != 0)
    throw std::runtime_error("xab::test::PrivateVm: pvm-vm.sh stop failed: " + r.err);
}

// The watchdog blocks reading a pipe whose only writer is this process; when
// we die, read() returns 0 and it halts the VM.  It ignores the terminal's
// signals (own session) so a Ctrl-C that kills the test still cleans up.
void PrivateVm::start_watchdog() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("xab::test::PrivateVm: pipe2 failed");
  std::string script = pvm_vm_script();
  std::string cmd = keep_vm_dir() ? "\"$0\" stop \"$1\"" : "\"$0\" stop \"$1\"; rm -rf \"$1\"";
  const char* argv[] = {"/bin/bash", "-c", cmd.c_str(), script.c_str(), dir_.c_str(), nullptr};
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("xab::test::PrivateVm: fork failed");
  if (pid == 0) {
    ::setsid();
    int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0), ::dup2(null, 1), ::dup2(null, 2);
    ::dup2(fds[0], 3);  // dup2 clears close-on-exec; nothing else survives
    ::close_range(4, ~0U, 0);
    char c;
    while (::read(3, &c, 1) != 0) {
    }
    ::close(3);
    ::execv(argv[0], const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(fds[0]);
  watchdog_pid_ = pid;
  watchdog_fd_ = fds[1];
}

void PrivateVm::stop_watchdog() {
  if (watchdog_pid_ > 0) {
    ::kill(watchdog_pid_, SIGKILL);
    ::waitpid(watchdog_pid_, nullptr, 0);
    watchdog_pid_ = -1;
  }
  if (watchdog_fd_ >= 0) ::close(watchdog_fd_);
  watchdog_fd_ = -1;
}

}  // namespace xab::test
