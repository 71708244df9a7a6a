// Readers' memory follows what a trace holds, not the number of tasks it
// names.  Each reader runs as a child process on a
// generated file of 100,000 tasks with one record each (or one mcast to
// 20,000 tids): under an address-space limit, so a per-task or tasks x
// tasks allocation fails (bad_alloc) instead of swapping the machine, and
// held to a bound on its peak resident memory as the kernel counted it.
#include <xab/model/model.h>

#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

constexpr int kTasks = 100000;
constexpr long kMiB = 1024 * 1024;

std::string tempDir() {
  std::string d = (std::filesystem::temp_directory_path() / "xab-memtest-XXXXXX").string();
  if (!::mkdtemp(d.data())) throw std::runtime_error("mkdtemp failed");
  return d;
}

std::string stamp(long long ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%lld.%09lld", ns / 1000000000LL, ns % 1000000000LL);
  return b;
}

// `tasks` tasks, one `mytid` record each: the file is ~6 MB for 100,000.
std::string manyTasks(const std::string& dir, int tasks) {
  std::string path = dir + "/tasks.xab";
  std::ofstream out(path);
  const long long t0 = 1763680000LL * 1000000000LL;
  out << "#xab-trace 1 abmon=t40001 host=vm pid=1 start=" << stamp(t0) << "\n";
  char tid[16];
  for (int i = 0; i < tasks; ++i) {
    std::snprintf(tid, sizeof tid, "t%x", 0x40002 + i);
    std::string t = stamp(t0 + 1000LL * (i + 1));
    out << t << ' ' << t << ' ' << tid << " mytid rc=" << tid << "\n";
  }
  return path;
}

// A file of kTasks one-record tasks (manyTasks) in a directory of its own,
// removed with it: what each reader's 100,000-task case reads.
struct ManyTasksFile {
  std::string dir = tempDir();
  std::string file = manyTasks(dir, kTasks);
  ManyTasksFile() = default;
  ManyTasksFile(const ManyTasksFile&) = delete;
  ManyTasksFile& operator=(const ManyTasksFile&) = delete;
  ~ManyTasksFile() { std::filesystem::remove_all(dir); }
};

// One task sends one mcast to `tids` tasks that never write a record.
std::string oneMcast(const std::string& dir, int tids) {
  std::string path = dir + "/mcast.xab";
  std::ofstream out(path);
  const long long t0 = 1763680000LL * 1000000000LL;
  out << "#xab-trace 1 abmon=t40001 host=vm pid=1 start=" << stamp(t0) << "\n";
  out << stamp(t0 + 1000) << ' ' << stamp(t0 + 1000) << " t40002 mytid rc=t40002\n";
  out << stamp(t0 + 2000) << ' ' << stamp(t0 + 2000) << " t40002 mcast dst=";
  char tid[16];
  for (int i = 0; i < tids; ++i) {
    std::snprintf(tid, sizeof tid, "%st%x", i ? "," : "", 0x80000 + i);
    out << tid;
  }
  out << " tag=1 bytes=4 serial=1 rc=0\n";
  return path;
}

struct Child {
  int exit = -1;     // -1: killed by a signal
  long maxRssKb = 0;
  std::string err;   // its stderr
};

// Runs XAB_BIN_DIR/argv[0] (argv[0] itself when it is a path) with an
// address-space limit; stdout and stderr go to files in dir.  oneArena:
// glibc's malloc gets one arena (MALLOC_ARENA_MAX=1), for a reader of many
// threads: each thread's arena reserves 64 MiB of address space, so with
// one each the limit would measure how many threads allocated, not what
// they hold.
// killAfter: seconds after which the child is killed (SIGALRM), 0: never.
Child runLimited(const std::string& dir, std::vector<std::string> argv, long limitMiB, bool oneArena = false,
                 unsigned killAfter = 0) {
  if (argv[0].find('/') == std::string::npos) argv[0] = std::string(XAB_BIN_DIR) + "/" + argv[0];
  std::string errFile = dir + "/stderr";
  pid_t pid = ::fork();
  if (pid == 0) {
    rlimit lim{static_cast<rlim_t>(limitMiB * kMiB), static_cast<rlim_t>(limitMiB * kMiB)};
    ::setrlimit(RLIMIT_AS, &lim);
    ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
    if (oneArena) ::setenv("MALLOC_ARENA_MAX", "1", 1);
    if (killAfter) ::alarm(killAfter);  // survives the exec
    if (!std::freopen((dir + "/stdout").c_str(), "w", stdout) || !std::freopen(errFile.c_str(), "w", stderr))
      ::_exit(126);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  Child c;
  int status = 0;
  rusage ru{};
  REQUIRE(::wait4(pid, &status, 0, &ru) == pid);
  c.exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  c.maxRssKb = ru.ru_maxrss;
  std::ifstream in(errFile);
  c.err.assign(std::istreambuf_iterator<char>(in), {});
  return c;
}

void check(const Child& c, long rssBoundMiB) {
  INFO("stderr: " << c.err.substr(0, 2000));
  INFO("peak RSS " << c.maxRssKb / 1024 << " MiB, bound " << rssBoundMiB << " MiB");
  CHECK(c.exit == 0);
  CHECK(c.maxRssKb < rssBoundMiB * 1024);
}

}  // namespace

TEST_CASE("model: a task of one record costs its record, not a block of sixteen", "[memory][model]") {
  ManyTasksFile f;
  xab::LoadResult r = xab::loadTraceFile(f.file);
  REQUIRE(r.trace);
  REQUIRE(r.trace->taskCount() == kTasks);
  // The record's bytes take a 32-byte page; the task's info, its event
  // store (about 140 bytes, the price of storing a busy task's records in
  // a fifth of an Event each) and its tid's entry in the index about 300.
  const std::size_t perTask = r.trace->memoryBytes() / kTasks;
  INFO("bytes per task: " << perTask);
  CHECK(perTask < 400);
}

#ifdef XAB_HAVE_ABSTAT
TEST_CASE("abstat reads 100,000 one-record tasks in bounded memory", "[memory][abstat]") {
  ManyTasksFile f;
  check(runLimited(f.dir, {"abstat", f.file}, 1024), 180);
}
#endif

#ifdef XAB_HAVE_XABVIEW
// The loader, the snapshot's analyses and one paint of every view
// (offscreen), then the diagram saved: the path a scripted run takes.
TEST_CASE("xabview loads, paints and saves 100,000 one-record tasks in bounded memory", "[memory][xabview]") {
  ManyTasksFile f;
  Child c = runLimited(
      f.dir, {"xabview", "--play-to-end", "--timeout", "240", "--save-diagram", f.dir + "/d.png", f.file}, 2048);
  check(c, 500);
  CHECK(std::filesystem::exists(f.dir + "/d.png"));
}
#endif

#ifdef XAB_HAVE_AB2JSON
TEST_CASE("ab2json, ab2picl, ab2au: 100,000 one-record tasks in bounded memory", "[memory][translators]") {
  ManyTasksFile f;
  check(runLimited(f.dir, {"ab2json", "-o", f.dir + "/o.json", f.file}, 1024), 96);
  check(runLimited(f.dir, {"ab2picl", "--quiet", "-o", f.dir + "/o.trf", f.file}, 1024), 96);
  check(runLimited(f.dir, {"ab2au", "send", "8", "400", "10000", "-o", f.dir + "/o.au", f.file}, 1024), 96);
}
#endif

#ifdef XAB_HAVE_AB2OTF2
// 20,000 locations, not 100,000: OTF2 writes two files per location, and
// the file system, not ab2otf2, would set the test's time.
TEST_CASE("ab2otf2: a location costs its events, not an OTF2 chunk", "[memory][otf2]") {
  std::string dir = tempDir();
  SECTION("20,000 tasks of one record each") {
    Child c = runLimited(dir, {"ab2otf2", "-o", dir + "/otf", manyTasks(dir, 20000)}, 1024);
    check(c, 96);
    CHECK(c.err.find("20000 locations") != std::string::npos);
  }
  SECTION("one mcast to 20,000 tids that never wrote a record") {
    Child c = runLimited(dir, {"ab2otf2", "-o", dir + "/otf", oneMcast(dir, 20000)}, 1024);
    check(c, 96);
    CHECK(c.err.find("20001 locations") != std::string::npos);
    CHECK(c.err.find("20000 sends") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}
#endif

#if defined(XAB_GENTRACE) && (defined(XAB_HAVE_ABSTAT) || defined(XAB_HAVE_XABVIEW))
namespace {

// The least address-space limit (MiB) under which argv exits 0.
long leastLimit(const std::string& dir, const std::vector<std::string>& argv, bool oneArena = false,
                unsigned killAfter = 0) {
  long fits = 1024, fails = 8;
  REQUIRE(runLimited(dir, argv, fits, oneArena, killAfter).exit == 0);
  while (fits - fails > 1) {
    const long mid = (fits + fails) / 2;
    (runLimited(dir, argv, mid, oneArena, killAfter).exit == 0 ? fits : fails) = mid;
  }
  return fits;
}

// The small trace whose reading measures a reader's fixed address space:
// 5,393 records, one piece of the input with enough lines for the reader's
// second thread.
constexpr long kSmallRecords = 5000;

// `records` records of a busy ring of 16 tasks on clocks of their own
// (translators_gentrace --records N 16 --clocks) written to `file`.
void writeRingTrace(const std::string& dir, long records, const std::string& file) {
  Child gen = runLimited(dir, {XAB_GENTRACE, "--records", std::to_string(records), "16", "--clocks"}, 1024);
  REQUIRE(gen.exit == 0);
  std::filesystem::rename(dir + "/stdout", file);
}

}  // namespace
#endif

#if defined(XAB_HAVE_ABSTAT) && defined(XAB_GENTRACE)
// The bound per record, on a trace like a busy program's: 1,000,000
// records of a ring of 16 tasks packing, sending, receiving, passing
// barriers and writing libab's clock records, each task on a clock of its
// own (translators_gentrace --records 1000000 16 --clocks), read by
// abstat on global time (the default: clocks fitted, causality corrected,
// every analysis) and by ab2picl (the whole trace in the model, sorted,
// tachyons corrected).  The limit is on address space, so it holds
// whatever the allocator keeps resident: the reader's fixed address space
// (binary, libraries, stacks, malloc's arenas), measured here as the least
// limit under which it reads a trace of the same kind of 5,393 records
// (enough for the reader's second thread, whose stack and malloc arena are
// fixed costs too; abstat 17 MiB, ab2picl 10 on the CI machine), plus a number of bytes
// for each record.  abstat is held to 32 bytes a record: it needs 28 of
// address space above its fixed part here (its peak RSS on 10 M such
// records is 23 a record: events 12, the message table of 16 bytes a send
// and 8 a receive 6, global time's edges and receive lists 4); with the
// send's fields copied into the table (40 bytes a send, 16 a receive),
// global time's edges of 24 bytes beside it and glibc's sliding mmap
// threshold it needed 35, and fails.  ab2picl is held to 40 bytes a
// record (it needs 32; with the table of 124 bytes a message and the
// correction's shifts kept per record it needed 48, and fails).

TEST_CASE("abstat reads 1 M records within 32 bytes a record, ab2picl within 40", "[memory][scale]") {
  constexpr long kRecords = 1000000;
  auto perRecordMiB = [](long bytes) { return (bytes * kRecords + kMiB - 1) / kMiB; };
  const long abstatMiB = perRecordMiB(32), ab2piclMiB = perRecordMiB(40);
  std::string dir = tempDir();
  const std::string small = dir + "/small.trace", big = dir + "/big.trace";
  writeRingTrace(dir, kSmallRecords, small);
  writeRingTrace(dir, kRecords, big);
  {  // abstat on global time
    const long fixed = leastLimit(dir, {"abstat", "--json", small});
    INFO("abstat's fixed address space " << fixed << " MiB, limit " << fixed + abstatMiB << " MiB");
    Child a = runLimited(dir, {"abstat", "--json", big}, fixed + abstatMiB);
    INFO("stderr: " << a.err.substr(0, 2000));
    CHECK(a.exit == 0);
    std::ifstream json(dir + "/stdout");
    std::string report(std::istreambuf_iterator<char>(json), {});
    CHECK(report.find("\"time\": \"global\"") != std::string::npos);
    CHECK(report.find("\"receivesMoved\"") != std::string::npos);  // the causality correction ran
  }
#ifdef XAB_HAVE_AB2PICL
  {
    const long fixed = leastLimit(dir, {"ab2picl", "--quiet", "-o", dir + "/small.trf", small});
    INFO("ab2picl's fixed address space " << fixed << " MiB, limit " << fixed + ab2piclMiB << " MiB");
    Child p = runLimited(dir, {"ab2picl", "--quiet", "-o", dir + "/big.trf", big}, fixed + ab2piclMiB);
    INFO("stderr: " << p.err.substr(0, 2000));
    CHECK(p.exit == 0);
    CHECK(std::filesystem::file_size(dir + "/big.trf") > std::filesystem::file_size(dir + "/small.trf"));
  }
#endif
  std::filesystem::remove_all(dir);
}

// abstat --follow on a pipe of a run longer than its budget: 4 M records
// (about 92 MiB of peak RSS read whole) through a pipe with --budget 64M.
// Its peak RSS (abstat and the generator, the larger: wait4's) stays
// under the budget; the report names the window; the spill file (in a
// TMPDIR of the test's own) is gone at the end.
TEST_CASE("abstat --follow --budget 64M reads a pipe of 4 M records within 64 MiB", "[memory][window]") {
  std::string dir = tempDir();
  const std::string tmp = dir + "/tmp";
  std::filesystem::create_directory(tmp);
  const std::string cmd = "TMPDIR=" + tmp + " " + std::string(XAB_GENTRACE) + " --records 4000000 16 --clocks | TMPDIR=" +
                          tmp + " " + XAB_BIN_DIR + "/abstat --follow --budget 64M --json --hang --messages -";
  Child a = runLimited(dir, {"/bin/sh", "-c", cmd}, 2048);
  INFO("stderr: " << a.err.substr(0, 2000));
  INFO("peak RSS " << a.maxRssKb / 1024 << " MiB");
  CHECK(a.exit == 0);
  CHECK(a.maxRssKb < 64 * 1024);
  std::ifstream json(dir + "/stdout");
  std::string report(std::istreambuf_iterator<char>(json), {});
  INFO(report.substr(0, 1500));
  std::erase(report, ' ');  // one JSON line with --follow
  CHECK(report.find("\"window\":{") != std::string::npos);
  CHECK(report.find("\"cut\":true") != std::string::npos);
  CHECK(report.find("\"runRecords\":40") != std::string::npos);  // 4,000,000 and the few clock exchanges
  CHECK(report.find("\"unmatchedReceives\":0,") != std::string::npos);
  CHECK(std::filesystem::is_empty(tmp));
  // The text report names the window on its second line, and each task's
  // records in the whole run.
  const std::string text = std::string(XAB_GENTRACE) + " --records 1500000 16 | " + XAB_BIN_DIR +
                           "/abstat --follow --budget 32M --tasks --messages -";
  Child b = runLimited(dir, {"/bin/sh", "-c", text}, 2048);
  CHECK(b.exit == 0);
  std::ifstream out(dir + "/stdout");
  std::string words(std::istreambuf_iterator<char>(out), {});
  INFO(words.substr(0, 3000));
  const auto second = words.find('\n') + 1;
  CHECK(words.compare(second, 18, "window: the newest") == 0);
  CHECK(words.find("'abstat FILE' analyses the whole of a file") != std::string::npos);
  CHECK(words.find("RUN EVENTS") != std::string::npos);
  CHECK(words.find("receives of messages sent before the window") != std::string::npos);
  CHECK(words.find(" 0 receives without a send in the trace") != std::string::npos);
  std::filesystem::remove_all(dir);
}
#endif

#if defined(XAB_HAVE_XABVIEW) && defined(XAB_GENTRACE)
// xabview opening the same kind of trace offscreen, as bench/scale_bench.sh
// does (the whole file read, put on global time, its snapshot and
// analyses made, the diagram painted and saved), with glibc's malloc on
// one arena (runLimited).  Its fixed address space (Qt's libraries and
// plugins, the loader's threads' stacks) is measured as for abstat, the
// least limit under which it opens 5,393 records of the same kind (about
// 130 MiB); above it xabview needs 40 bytes a record (the event store 12, the
// spans 5 and the arrival order 2, the message table 6 and its lines 3,
// the analyses' lists, global time's fit beside them): it is held to 48.
// With the lines a 40-byte copy of each receive it needed 41-42.  With the trace copied for
// global time, 16-byte spans rebuilt beside the old ones, the event log's
// row per record and an analysis of the task clocks beside the
// re-timing's it needed 88, and fails.
TEST_CASE("xabview opens 1 M records within 48 bytes a record above its fixed part", "[memory][scale][xabview]") {
  constexpr long kRecords = 1000000;
  const long perRecordMiB = (48 * kRecords + kMiB - 1) / kMiB;
  std::string dir = tempDir();
  const std::string small = dir + "/small.trace", big = dir + "/big.trace";
  writeRingTrace(dir, kSmallRecords, small);
  writeRingTrace(dir, kRecords, big);
  // Under too low a limit a thread of Qt's is not made and xabview may
  // wait for ever: the small trace's opens (half a second) are killed
  // after 20 s, the big one's (seconds) after 150.
  auto open = [&](const std::string& file, const std::string& dump, const char* timeout) {
    return std::vector<std::string>{"xabview", "--no-follow", "--play-to-end", "--timeout", timeout,
                                    "--dump-state", dir + "/" + dump, "--save-diagram", dir + "/d.png", file};
  };
  const long fixed = leastLimit(dir, open(small, "small.json", "10"), true, 20);
  INFO("xabview's fixed address space " << fixed << " MiB, limit " << fixed + perRecordMiB << " MiB");
  Child c = runLimited(dir, open(big, "big.json", "100"), fixed + perRecordMiB, true, 150);
  INFO("stderr: " << c.err.substr(0, 2000));
  CHECK(c.exit == 0);
  std::ifstream json(dir + "/big.json");
  std::string state(std::istreambuf_iterator<char>(json), {});
  CHECK(state.find("\"time\": \"global time\"") != std::string::npos);  // re-timed, then analysed
  CHECK(state.find("\"sent\": 165520") != std::string::npos);
  std::filesystem::remove_all(dir);
}
#endif
