// xab/test/process.h -- run child processes from tests, with a timeout.
//
// Tests run real programs (pvm, abmon, xabdemo, abstat) and must never hang
// the suite or kill anything they did not start: every helper here kills only
// the one child it created, by pid.
//
//   1. auto r = xab::test::run({"pvm"}, {}, 10s, "conf\n");
//      REQUIRE(r.exit_code == 0);  CHECK_THAT(r.out, Contains("1 host"));
//   2. auto r = xab::test::run({xab::test::bin_dir() + "/xabdemo-plain", "-n", "2"});
//   3. xab::test::BackgroundProcess mon({xab::test::bin_dir() + "/abmon"}, dir + "/trace");
//      REQUIRE(mon.wait_for_output([](auto& s) { return s.find("abmon.start") != s.npos; }, 5s));
//      ... run the program ...
//      int rc = mon.stop(SIGINT);   // SIGKILL only if it ignores SIGINT for `grace`
#ifndef XAB_TEST_PROCESS_H
#define XAB_TEST_PROCESS_H

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace xab::test {

using namespace std::chrono_literals;

// Variables to set (or override) in a child's environment on top of ours.
using EnvVars = std::map<std::string, std::string>;

struct RunResult {
  int exit_code = -1;      // exit status, or 128 + signal number
  bool timed_out = false;  // killed by run() after the timeout
  std::string out;         // everything the child wrote to stdout
  std::string err;         // ... and to stderr
};

// Runs argv[0] (searched in PATH) with our environment plus `env`, feeds it
// `input` on stdin, and collects its output.  After `timeout` the child is
// killed with SIGKILL.  If the child leaves a grandchild holding its stdout,
// run() stops reading once the child itself has exited.
RunResult run(const std::vector<std::string>& argv, const EnvVars& env = {},
              std::chrono::milliseconds timeout = 60s, const std::string& input = {});

// A process running in the background, its stdout going to a file (stderr
// to `stdout_path + ".err"`).  Destroying it stops it (SIGTERM, then SIGKILL).
class BackgroundProcess {
 public:
  BackgroundProcess(const std::vector<std::string>& argv, std::string stdout_path,
                    const EnvVars& env = {});
  ~BackgroundProcess();
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& stdout_path() const { return stdout_path_; }
  std::string read_stdout() const;
  std::string read_stderr() const;

  // True while the process has not exited (reaps it once it has).
  bool running();
  // Polls the stdout file until `pred(contents)` holds or `deadline` passes.
  bool wait_for_output(const std::function<bool(const std::string&)>& pred,
                       std::chrono::milliseconds deadline);
  // Waits up to `deadline` for the process to exit by itself; its exit code,
  // or -1 if it is still running.
  int wait(std::chrono::milliseconds deadline);
  // Sends `sig`, waits up to `grace`, then SIGKILL; returns the exit code
  // (128 + signal when a signal ended it).  Idempotent.
  int stop(int sig = SIGTERM, std::chrono::milliseconds grace = 5s);

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
  std::string stdout_path_;
};

// A child whose standard input and output stay open while the test talks
// to it (abstat --follow fed piece by piece); its stderr goes to the test's.
// Destroying it stops it (SIGTERM to its pid).
class InteractiveProcess {
 public:
  explicit InteractiveProcess(const std::vector<std::string>& argv);
  ~InteractiveProcess();
  InteractiveProcess(const InteractiveProcess&) = delete;
  InteractiveProcess& operator=(const InteractiveProcess&) = delete;

  void write(const std::string& s);
  void close_input();
  // Reads stdout until it holds `needle`; false after `deadline` (a safety
  // net for a broken build, not a timing check) or at end of output.
  bool read_until(const std::string& needle, std::chrono::milliseconds deadline = 120s);
  // Closes stdin, reads to the end, and returns the exit code.
  int wait();
  const std::string& out() const { return out_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_fd_ = -1;
  std::string out_;
};

// A whole file's bytes; "" if it cannot be read (tests poll files that do
// not exist yet).
std::string read_file(const std::string& path);

// A new empty directory under the system's temporary directory, named
// PREFIX-XXXXXX; throws if it cannot be made.  The caller removes it.
std::string make_temp_dir(const std::string& prefix);

// The exit code of a waitpid() status: the code, or 128 + signal.
int exit_code_of(int wait_status);

// True while `pid` is a live process (not a zombie).
bool process_alive(pid_t pid);

// The directory every task binary and tool is built into (CMake's
// ${CMAKE_BINARY_DIR}/bin), and the source tree's root.
std::string bin_dir();
std::string source_dir();

}  // namespace xab::test

#endif
