// `abmon -- PROGRAM`: abmon registers, runs the program, and stops when it
// and every task it started have ended, with the program's exit status.
// The race it removes: `abmon ... & PROGRAM` started the program before
// abmon had registered, and it ran unmonitored.
#include <catch2/catch.hpp>

#include <xab/test/private_vm.h>
#include <xab/test/process.h>

#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

using namespace xab::test;
using Catch::Matchers::Contains;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string abmon() { return bin_dir() + "/abmon"; }

}  // namespace

TEST_CASE("abmon -- PROGRAM records the demo and its spawned workers, then stops by itself", "[abmon][pvm]") {
  PrivateVm& vm = PrivateVm::shared();
  std::string trace = vm.dir() + "/program.trace";
  auto r = run({abmon(), "-o", trace, "--", bin_dir() + "/xabdemo", "-n", "3", "--rounds", "2"}, {}, 120s);
  REQUIRE_FALSE(r.timed_out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("xabdemo: result workers=3"));  // the program's own output, untouched
  std::string t = read_file(trace);
  CHECK(count(t, " task.exit ") == 4);  // the master and its three workers, none missed
  CHECK(count(t, " abmon.stop ") == 1);
  CHECK_THAT(t, Contains(" spawn file=xabdemo"));
}

TEST_CASE("abmon -- PROGRAM exits with the program's status", "[abmon][pvm]") {
  PrivateVm& vm = PrivateVm::shared();
  auto r = run({abmon(), "-q", "-o", vm.dir() + "/seven.trace", "--", "sh", "-c", "exit 7"}, {}, 60s);
  CHECK(r.exit_code == 7);
  r = run({abmon(), "-q", "-o", vm.dir() + "/none.trace", "--", "/nonexistent/program"}, {}, 60s);
  CHECK(r.exit_code == 127);
  CHECK_THAT(r.err, Contains("cannot run /nonexistent/program"));
}

TEST_CASE("abmon -- PROGRAM with the trace on standard output sends the program's output to stderr", "[abmon][pvm]") {
  PrivateVm::shared();
  auto r = run({abmon(), "-q", "--", "sh", "-c", "echo from-the-program"}, {}, 60s);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("from-the-program"));
  CHECK(r.out.rfind("#xab-trace 1 ", 0) == 0);
  CHECK_THAT(r.out, !Contains("from-the-program"));
  CHECK(count(r.out, " abmon.stop ") == 1);
}

TEST_CASE("abmon -- with nothing after it is a usage error", "[abmon]") {
  auto r = run({abmon(), "--"}, {}, 30s);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("-- needs a program to run"));
}

// docs/abmon.md "Starting abmon from a script": the line comes once abmon
// has registered, so the program the script starts next is traced whole.
TEST_CASE("abmon --ready-fd tells a script when a program it starts will be traced", "[abmon][pvm]") {
  PrivateVm& vm = PrivateVm::shared();
  std::string dir = vm.dir() + "/ready";
  const std::string script =
      "set -e; rm -rf \"$1\"; mkdir \"$1\"; cd \"$1\"; mkfifo ready\n"
      "\"$2\" -q -o run.trace --ready-fd 3 3>ready &\n"
      "read -r line < ready; echo \"got: $line\"\n"
      "\"$3\" -n 2 --rounds 1\n"
      "kill -INT $!; wait $!\n";
  auto r = run({"sh", "-c", script, "sh", dir, abmon(), bin_dir() + "/xabdemo"}, {}, 120s);
  REQUIRE_FALSE(r.timed_out);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(std::regex_search(r.out, std::regex("got: abmon t[0-9a-f]+ ready\n")));
  std::string t = read_file(dir + "/run.trace");
  CHECK(count(t, " task.exit ") == 3);  // the program and its two workers, from their first record
  CHECK(count(t, " mytid ") == 3);

  // An abmon that fails closes the descriptor without a line: the script's read ends.
  const std::string failing = "\"$1\" -q -o /nonexistent/dir/run.trace --ready-fd 3 3>&1 >/dev/null; echo \"rc=$?\"";
  r = run({"sh", "-c", failing, "sh", abmon()}, {}, 60s);
  CHECK(r.out == "rc=4\n");
  r = run({abmon(), "--ready-fd", "9"}, {}, 30s);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("--ready-fd 9: Bad file descriptor"));
}

// A task that ends as abmon is told to stop makes its last clock exchanges
// with abmon before it sends its records (libab's ab_clock.c): abmon
// answers them and waits for those records, however long the exchanges
// take.  Here abmon answers each ping 30 ms late (XAB_TEST_SLOW_PONGS), so
// the task's end exchanges take half a second, and the script sends SIGINT
// as soon as the task says it ends, just before its pvm_exit.
TEST_CASE("abmon stopped while a task makes its last clock exchanges keeps that task's records", "[abmon][pvm]") {
  PrivateVm& vm = PrivateVm::shared();
  std::string dir = vm.dir() + "/lastexchange";
  const std::string script =
      "set -e; rm -rf \"$1\"; mkdir \"$1\"; cd \"$1\"; mkfifo ready\n"
      "XAB_TEST_SLOW_PONGS=1000 XAB_TEST_SLOW_PONG_MS=30 \"$2\" -q -o run.trace --ready-fd 3 3>ready &\n"
      "a=$!; read -r line < ready\n"
      "\"$3\" | { read -r said; kill -INT $a; echo \"$said\"; }\n"
      "wait $a\n";
  auto r = run({"sh", "-c", script, "sh", dir, abmon(), bin_dir() + "/abmon_lastword"}, {}, 120s);
  REQUIRE_FALSE(r.timed_out);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  std::smatch said;
  REQUIRE(std::regex_search(r.out, said, std::regex("ending (t[0-9a-f]+)\n")));
  std::string t = read_file(dir + "/run.trace");
  INFO(t);
  CHECK(count(t, " " + said[1].str() + " mytid ") == 1);
  CHECK(count(t, " " + said[1].str() + " exit ") == 1);
  CHECK(count(t, " " + said[1].str() + " clock ") > 0);
  CHECK(count(t, " abmon.stop ") == 1);
}

// The program's standard output and error are the kind of file they are
// without abmon (its stdio buffers by that), and what it writes to a file
// or a pipe is still an output record.
TEST_CASE("abmon -- PROGRAM gives the program streams of the kind it has without abmon", "[abmon][pvm]") {
  PrivateVm& vm = PrivateVm::shared();
  const std::string dir = vm.dir() + "/kinds";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string prog = bin_dir() + "/abmon_stdio_kind";
  struct Case {
    std::string name, redirect, report;
  };
  const std::vector<Case> cases = {
      {"files", "> out 2> err", "stdout: regular file\nstderr: regular file\n"},
      {"one file", "> out 2>&1", "stdout: regular file\nstderr: regular file\n"},
      {"append", ">> out 2> err", "stdout: regular file\nstderr: regular file\n"},
      {"pipe", "2> err | cat > out", "stdout: pipe\nstderr: regular file\n"},
      {"null", "> /dev/null 2> err", "stdout: character device\nstderr: regular file\n"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string script = "cd \"$1\" && shift && rm -f out err && echo before > out && \"$@\" " + c.redirect;
    auto plain = run({"sh", "-c", script + "; cat out", "sh", dir, prog, "plain.report"}, {}, 60s);
    auto r = run({"sh", "-c", script + "; cat out", "sh", dir, abmon(), "-q", "-o", "kind.trace", "--", prog,
                  "abmon.report", "kind.trace"},
                 {}, 60s);
    CHECK(plain.exit_code == 0);
    CHECK(r.exit_code == 0);
    CHECK(read_file(dir + "/plain.report") == c.report);
    CHECK(read_file(dir + "/abmon.report") == c.report);
    CHECK(r.out == plain.out);  // the file (or the pipe's copy) holds what it holds plain
    std::string t = read_file(dir + "/kind.trace");
    if (c.name == "one file") {
      CHECK(count(t, " output stream=- text=a%20line%20to%20stdout") == 1);
      CHECK(count(t, " output stream=- text=a%20line%20to%20stderr") == 1);
    } else if (c.name != "null") {
      CHECK(count(t, " output stream=stdout text=a%20line%20to%20stdout") == 1);
      CHECK(count(t, " output stream=stderr text=a%20line%20to%20stderr") == 1);
    }
    CHECK(count(t, "before") == 0);  // what the file held before is not the program's
  }
}

// A child that makes no PVM call never speaks; the spawn record names it:
// it is listed (an info record with its name, host and parent) and ends
// with pvmd's notice of its exit.  A child whose only call is pvm_exit is
// enrolled there (by libpvm plain, by libab rebuilt) and speaks for itself.
TEST_CASE("abmon -- PROGRAM lists the spawned tasks that never speak, from the spawn record", "[abmon][pvm]") {
  PrivateVm& vm = PrivateVm::shared();
  std::string trace = vm.dir() + "/exitonly.trace";
  auto r = run({abmon(), "-q", "-o", trace, "--", bin_dir() + "/abmon_exitonly"}, {}, 60s);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("spawned 2, both ended"));
  std::string t = read_file(trace);
  INFO(t);
  // the program spawns the "exit" child first, then the "silent" one
  const std::regex spawnRe(" (t[0-9a-f]+) spawn file=\\S+ count=1 tids=(t[0-9a-f]+) ");
  std::vector<std::string> kids;
  std::string parent;
  for (std::sregex_iterator i(t.begin(), t.end(), spawnRe), end; i != end; ++i) {
    parent = (*i)[1];
    kids.push_back((*i)[2]);
  }
  REQUIRE(kids.size() == 2);
  char name[256] = {};
  gethostname(name, sizeof name - 1);  // abmon's host: the VM's one host
  const std::string host = std::string(" host=") + name, silent = kids[1], exiting = kids[0];
  CHECK(count(t, " " + silent + " info name=abmon_exitonly" + host + " parent=" + parent + "\n") == 1);
  CHECK(count(t, " " + silent + " task.exit how=notify\n") == 1);
  CHECK(count(t, " " + exiting + " exit ") == 1);
  CHECK(count(t, " abmon.stop events=") == 1);
  CHECK_THAT(t, Contains(" tasks=3 "));
}

// The program abmon starts may be no task of libab's: the PVM console fed
// by a shell (docs/abmon.md, a program spawned from the console).  Its lines
// are output records of its task, and that task is named after its program.
TEST_CASE("abmon -- PROGRAM names the program's task when it never sends a record (the console)", "[abmon][pvm]") {
  PrivateVm& vm = PrivateVm::shared();
  std::string trace = vm.dir() + "/console.trace";
  // The console stays while its input is open, as in the recipe: one that
  // ends before abmon has read pvmd's task list cannot be told (a limit,
  // docs/abmon.md "The program's name").
  auto r = run({abmon(), "-q", "-o", trace, "--", "sh", "-c", "(echo conf; sleep 2) | pvm"}, {}, 60s);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("pvm> conf"));
  std::string t = read_file(trace);
  INFO(t);
  const std::regex outputRe(" (t[0-9a-f]+) output stream=stdout ");
  std::smatch m;
  REQUIRE(std::regex_search(t, m, outputRe));
  const std::string console = m[1];
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  CHECK(count(t, " " + console + " info name=pvm host=" + name + "\n") == 1);
  CHECK(count(t, " program.exit tid=" + console + " status=0 ") == 1);
}

// A shell's loop running a libab program again and again: the shell is no
// PVM task, its status is none of the runs' (program.exit tid=t0), each
// short enough to come and go between two of abmon's looks at pvmd's list.
TEST_CASE("abmon -- a shell's loop credits the shell's status to none of the program's runs", "[abmon][pvm]") {
  PrivateVm& vm = PrivateVm::shared();
  std::string trace = vm.dir() + "/loop.trace";
  const std::string demo = bin_dir() + "/xabdemo";
  auto r = run({abmon(), "-q", "-o", trace, "--", "sh", "-c",
                "for i in 1 2 3; do \"$0\" -n 1 --rounds 1 >/dev/null; done; exit 7", demo},
               {}, 120s);
  CHECK(r.exit_code == 7);
  std::string t = read_file(trace);
  INFO(t.substr(t.size() > 2000 ? t.size() - 2000 : 0));
  CHECK(count(t, " parent=none ") == 3);
  CHECK(count(t, " program.exit tid=t0 status=7 signal=0\n") == 1);
  // The program run alone: its status is its task's.
  r = run({abmon(), "-q", "-o", trace, "--", demo, "-n", "1", "--rounds", "1"}, {}, 120s);
  CHECK(r.exit_code == 0);
  t = read_file(trace);
  const std::regex mytidRe(" (t[0-9a-f]+) mytid rc=t[0-9a-f]+ name=xabdemo [^\n]*parent=none");
  std::smatch m;
  REQUIRE(std::regex_search(t, m, mytidRe));
  CHECK(count(t, " program.exit tid=" + std::string(m[1]) + " status=0 signal=0\n") == 1);
}
