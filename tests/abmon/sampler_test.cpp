// abmon's clock-driven samples (sampler.h): /proc read as proc(5) says,
// on files laid out as the kernel's (a directory of our own) and on this
// process; the records come out as the trace format's reader reads them.
#include <xab/traceformat/record.h>

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "options.h"
#include "sampler.h"

using namespace xab;
using namespace xab::abmon;
namespace fs = std::filesystem;

namespace {

struct FakeProc {
  fs::path root = fs::temp_directory_path() / ("xab-sampler-" + std::to_string(getpid()));
  FakeProc() { fs::create_directories(root); }
  ~FakeProc() { fs::remove_all(root); }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
  // A task whose name holds spaces and parentheses; utime, stime in ticks.
  void task(int pid, char state, int utime, int stime, long runDelayNs) const {
    write(std::to_string(pid) + "/stat", std::to_string(pid) + " (a) b (c) " + state +
                                             " 1 2 3 4 5 6 7 8 9 10 " + std::to_string(utime) + " " +
                                             std::to_string(stime) + " 0 0 20 0 1 0 99\n");
    write(std::to_string(pid) + "/schedstat", "123456789 " + std::to_string(runDelayNs) + " 42\n");
  }
  void host(const std::string& load, long user, long idle) const {
    write("loadavg", load + " 0.50 0.25 2/100 999\n");
    write("stat", "cpu  " + std::to_string(user) + " 0 0 " + std::to_string(idle) +
                      " 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\ncpu1 1 0 0 1 0 0 0 0 0 0\nintr 0\n");
  }
};

std::vector<text::Record> readBack(const std::string& text, std::vector<std::string>& lines) {
  std::vector<text::Record> out;
  text::LineReader reader;
  std::size_t at = 0;
  while (at < text.size()) {
    auto nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  for (const std::string& l : lines) {
    std::string error;
    bool fatal = false;
    REQUIRE(reader.read(l, false, error, fatal) == text::LineReader::Line::Record);
    REQUIRE(error.empty());
    out.push_back(reader.record());
  }
  return out;
}

}  // namespace

TEST_CASE("a task's CPU time, its wait for a CPU and its state, from /proc") {
  FakeProc proc;
  proc.task(4242, 'R', 150, 50, 2'500'000'000);
  auto s = readTaskSample(4242, proc.root.string());
  REQUIRE(s);
  long hz = sysconf(_SC_CLK_TCK);
  CHECK(s->cpuNs == 200 * (1'000'000'000 / hz));
  CHECK(s->runnableNs == 2'500'000'000);
  CHECK(s->state == 'R');
  CHECK_FALSE(readTaskSample(4243, proc.root.string()));  // gone
  // This process, as the kernel shows it: running, some CPU used.
  auto self = readTaskSample(getpid());
  REQUIRE(self);
  CHECK(self->state == 'R');
  CHECK(self->cpuNs >= 0);
}

TEST_CASE("the host: CPUs, load average, busy share between two rounds, and records as the reader reads them") {
  FakeProc proc;
  proc.host("1.21", 100, 100);
  proc.task(10, 'R', 30, 0, 40'000'000);
  proc.task(11, 'S', 2, 1, 0);
  Sampler sampler(0x40001, "node1", proc.root.string());
  std::string out;
  std::vector<SampledTask> tasks = {{0x40003, 10}, {0x40004, 11}, {0x40005, 12}};  // 12 has gone
  CHECK(sampler.sample(out, 1'000'000'000, tasks) == 3);
  proc.host("3.50", 100 + 75, 100 + 25);  // 75 of 100 ticks busy since
  std::vector<SampledTask> gone = {{0x40005, 12}};
  CHECK(sampler.sample(out, 1'100'000'000, gone) == 1);  // the host, and no task
  std::vector<std::string> lines;
  auto recs = readBack(out, lines);
  REQUIRE(recs.size() == 4);
  CHECK(lines[0] == "1.000000000 1.000000000 t40001 host.load host=node1 cpus=2 load_milli=1210");
  CHECK(recs[1].kind == Kind::SAMPLE);
  CHECK(recs[1].tid == 0x40001);
  CHECK(recs[1].a[slotOf(Kind::SAMPLE, Phase::End, Key::Tid)] == 0x40003);
  long tick = 1000 / sysconf(_SC_CLK_TCK);
  CHECK(lines[1] == "1.000000000 1.000000000 t40001 sample tid=t40003 cpu_ms=" + std::to_string(30 * tick) +
                        " runnable_ms=40 state=R");
  CHECK(lines[2] == "1.000000000 1.000000000 t40001 sample tid=t40004 cpu_ms=" + std::to_string(3 * tick) +
                        " runnable_ms=0 state=S");
  CHECK(lines[3] == "1.100000000 1.100000000 t40001 host.load host=node1 cpus=2 load_milli=3500 busy_permille=750");
  // No task on the host: nothing, and the busy share starts afresh.
  std::string idle;
  CHECK(sampler.sample(idle, 1'200'000'000, {}) == 0);
  CHECK(idle.empty());
  CHECK(sampler.sample(idle, 1'300'000'000, tasks) == 3);
  CHECK(idle.find("busy_permille") == std::string::npos);
}

TEST_CASE("abmon --sample-ms: 100 by default, 0 turns sampling off") {
  Options o;
  REQUIRE(parseOptions({}, o).empty());
  CHECK(o.sampleMs == 100);
  REQUIRE(parseOptions({"--sample-ms", "0"}, o).empty());
  CHECK(o.sampleMs == 0);
  REQUIRE(parseOptions({"--sample-ms=250"}, o).empty());
  CHECK(o.sampleMs == 250);
  CHECK_FALSE(parseOptions({"--sample-ms", "-1"}, o).empty());
}

TEST_CASE("a task's files stay open from round to round: each round reads them again, a gone task reads nothing") {
  FakeProc proc;
  proc.host("1.00", 100, 100);
  proc.task(10, 'R', 30, 0, 40'000'000);
  Sampler sampler(0x40001, "node1", proc.root.string());
  std::vector<SampledTask> tasks = {{0x40003, 10}};
  std::string out;
  CHECK(sampler.sample(out, 1'000'000'000, tasks) == 2);
  proc.task(10, 'R', 60, 0, 90'000'000);  // the kernel's figures move on
  CHECK(sampler.sample(out, 1'100'000'000, tasks) == 2);
  CHECK(out.find(" sample tid=t40003 cpu_ms=" + std::to_string(60 * (1000 / sysconf(_SC_CLK_TCK))) +
                 " runnable_ms=90 state=R") != std::string::npos);
  // A real process: sampled while it runs; once it has exited and been
  // reaped, its open files read nothing (and a new process given its pid
  // would be another's files, opened afresh).
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  Sampler real(0x40001, "vm");
  std::vector<SampledTask> one = {{0x40004, child}};
  std::string live;
  CHECK(real.sample(live, 1'000'000'000, one) == 2);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  CHECK(real.sample(live, 1'100'000'000, one) == 1);  // the host only
}
