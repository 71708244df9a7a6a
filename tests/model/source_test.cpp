// TraceSource: a trace read from a file, standard input, a pipe, or a file
// that another thread is still writing; its progress line (a terminal
// only) and its messages (FILE:LINE: reason).
#include "fixtures.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <pty.h>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace xab;
using namespace std::chrono_literals;
using xab::test::dataPath;
using xab::test::readFile;

namespace {

// The writers run on threads of their own, where Catch's assertions may
// not be used: they say whether they managed, and the test checks that
// after joining them.
bool writeAll(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    s.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Appends as another writer would: open, write, close.
bool append(const std::string& path, std::string_view s) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool ok = writeAll(fd, s);
  ::close(fd);
  return ok;
}

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/xab-source-XXXXXX";
    REQUIRE(::mkdtemp(t));
    path = t;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return path + "/" + name; }
};

// Standard input replaced by the read end of a pipe while it lives; the
// write end is `writer`.
struct PipeAsStdin {
  int saved = ::dup(0);
  int writer = -1;
  PipeAsStdin() {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    REQUIRE(::dup2(p[0], 0) == 0);
    ::close(p[0]);
    writer = p[1];
  }
  void closeWriter() {
    if (writer >= 0) ::close(writer);
    writer = -1;
  }
  ~PipeAsStdin() {
    closeWriter();
    ::dup2(saved, 0);
    ::close(saved);
  }
};

// Steps until the source ends; fails instead of hanging past a deadline.
std::vector<SourceStep> readAll(TraceSource& s, std::chrono::seconds limit = 60s) {
  std::vector<SourceStep> steps;
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (steps.empty() || steps.back() != SourceStep::Ended) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    steps.push_back(s.next());
  }
  return steps;
}

// The same trace as loadTraceText makes of the same text: same records.
void checkSameTrace(const Trace& got, const std::string& text) {
  LoadResult want = loadTraceText(text);
  REQUIRE(want.trace);
  REQUIRE(got.taskCount() == want.trace->taskCount());
  CHECK(got.eventCount() == want.trace->eventCount());
  CHECK(got.monitorEvents().size() == want.trace->monitorEvents().size());
  for (TaskIndex t = 0; t < got.taskCount(); ++t) {
    REQUIRE(got.events(t).size() == want.trace->events(t).size());
    for (std::uint32_t i = 0; i < got.events(t).size(); ++i) {
      CHECK(got.events(t)[i].time == want.trace->events(t)[i].time);
      CHECK(got.events(t)[i].kind == want.trace->events(t)[i].kind);
    }
  }
}

std::string markLine(double time, std::size_t n, char c) {
  std::string s = std::to_string(time) + " " + std::to_string(time) + " t1 mark text=";
  return s + std::string(n, c) + "\n";
}

std::size_t markSize(const Trace& t, std::uint32_t index) {
  const Event& e = t.events(0)[index];
  return t.str(e.get(Key::Text, -1)).size();
}

// What has been written to a pty's other side so far (non-blocking).
std::string drain(int fd) {
  std::string out;
  char buf[4096];
  int flags = ::fcntl(fd, F_GETFL);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::fcntl(fd, F_SETFL, flags);
  return out;
}

}  // namespace

TEST_CASE("source: a file is read whole, in pieces, as loadTraceText reads its text") {
  const std::string path = dataPath("cholesky_hang.trace");
  SourceOptions o;
  o.pieceBytes = 100;  // many pieces, lines cut anywhere
  TraceSource s(path, o);
  REQUIRE(s.error().empty());
  CHECK(s.name() == path);
  CHECK(s.isFile());
  CHECK_FALSE(s.following());
  int pieces = 0;
  s.readToEnd([&](TraceReader&) { ++pieces; });
  CHECK(pieces > 10);
  CHECK(s.ended());
  CHECK(s.sawTrace());
  CHECK(s.notATrace().empty());
  const std::string text = readFile(path);
  CHECK(s.progress().bytes == text.size());
  CHECK(s.progress().total == text.size());
  CHECK(s.progress().fraction() == 1.0);
  checkSameTrace(*s.reader().take(), text);
  CHECK(s.next() == SourceStep::Ended);  // and stays ended
}

TEST_CASE("source: standard input from a pipe written in pieces by another thread") {
  const std::string text = readFile(dataPath("cholesky_hang.trace"));
  PipeAsStdin in;
  SourceOptions o;
  o.waitMs = 50;
  TraceSource s("-", o);
  REQUIRE(s.error().empty());
  CHECK(s.name() == "<stdin>");
  CHECK_FALSE(s.isFile());
  std::atomic<bool> caughtUp{false}, wrote{false};
  std::thread writer([&] {
    bool ok = writeAll(in.writer, text.substr(0, 1000));  // ends in the middle of a line
    while (!caughtUp) std::this_thread::sleep_for(10ms);
    wrote = ok && writeAll(in.writer, text.substr(1000));
    in.closeWriter();
  });
  std::vector<SourceStep> steps;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!s.ended() && std::chrono::steady_clock::now() < deadline) {
    steps.push_back(s.next());
    if (steps.back() == SourceStep::Waiting && s.reader().byteCount() == 1000) {
      CHECK(s.caughtUp());
      // The line cut at byte 1000 is not a record yet.
      CHECK(s.reader().snapshot()->eventCount() == loadTraceText(text.substr(0, text.rfind('\n', 1000) + 1)).trace->eventCount());
      caughtUp = true;
    }
  }
  writer.join();
  CHECK(wrote);
  REQUIRE(s.ended());
  CHECK(caughtUp);
  CHECK(s.error().empty());
  CHECK(s.reader().errorCount() == 0);
  checkSameTrace(*s.reader().take(), text);
}

TEST_CASE("source: abmon's own records coming faster than waitMs leave a silent program quiet and the pipe caught up") {
  // abmon samples every 100 ms: records arrive more often than the reader
  // waits, yet no task has done anything since its blocking receive.
  PipeAsStdin in;
  SourceOptions o;
  o.waitMs = 400;
  TraceSource s("-", o);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    bool ok = writeAll(in.writer, "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.0\n"
                                  "1.1 1.1 t40002 mytid rc=t40002 name=a host=vm parent=none lang=c pid=5\n"
                                  "1.2 1.2 t40002 recv.begin src=any tag=1\n");
    for (int i = 0; ok && !done; ++i) {
      ok = writeAll(in.writer, "1.3 1.3 t40001 sample tid=t40002 cpu_ms=" + std::to_string(i) + " runnable_ms=0 state=S\n");
      std::this_thread::sleep_for(30ms);
    }
    in.closeWriter();
  });
  bool quietAndCaughtUp = false;
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!quietAndCaughtUp && std::chrono::steady_clock::now() < deadline) {
    s.next();
    quietAndCaughtUp = s.caughtUp() && s.quietSeconds() >= 0.5 && s.reader().lineCount() > 6;
  }
  done = true;
  readAll(s);
  writer.join();
  CHECK(quietAndCaughtUp);
}

TEST_CASE("source: a FIFO is read until its writer closes it, even when following") {
  TempDir d;
  const std::string fifo = d.file("trace.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string text = readFile(dataPath("barrier.trace"));
  std::atomic<bool> wrote{false};
  std::thread writer([&] {
    int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);  // waits for the reader to open it
    if (fd < 0) return;
    wrote = writeAll(fd, text);
    ::close(fd);
  });
  SourceOptions o;
  o.follow = true;  // a pipe has no "more later": its end is the end
  o.waitMs = 50;
  TraceSource s(fifo, o);
  REQUIRE(s.error().empty());
  CHECK_FALSE(s.following());
  readAll(s);
  writer.join();
  CHECK(wrote);
  checkSameTrace(*s.reader().take(), text);
}

// The one following rule: a growing file is waited on at its end until
// abmon's stop record, however long the writer pauses, and a record cut
// in two by the writer is read whole.
TEST_CASE("source: a growing file written in pieces by another thread is followed until abmon.stop") {
  TempDir d;
  const std::string path = d.file("live.trace");
  const std::string text = readFile(dataPath("cholesky_hang.trace"));  // has no abmon.stop
  const std::string stop = "1763680009.000000000 1763680009.000000000 t40001 abmon.stop events=32\n";
  const std::size_t cut = text.find(" recv", text.size() / 2);  // in the middle of a record
  REQUIRE(append(path, text.substr(0, cut)));

  SourceOptions o;
  o.follow = true;
  o.waitMs = 50;
  TraceSource s(path, o);
  REQUIRE(s.error().empty());
  CHECK(s.following());
  std::atomic<int> waits{0};
  std::atomic<int> phase{0};
  std::atomic<bool> wrote{false};
  std::thread writer([&] {
    // Each piece only once the reader has caught up with the last one.
    while (waits < 1) std::this_thread::sleep_for(10ms);
    phase = 1;
    bool ok = append(path, text.substr(cut));
    while (waits < 10) std::this_thread::sleep_for(10ms);  // half a second of silence, at least
    phase = 2;
    wrote = ok && append(path, stop);
  });
  std::uint64_t eventsBeforeRest = 0;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (s.next() != SourceStep::Ended) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    if (!s.caughtUp()) continue;
    if (phase == 0) eventsBeforeRest = s.reader().eventCount();
    if (phase == 1) CHECK_FALSE(s.reader().monitorStopped());
    ++waits;
  }
  writer.join();
  CHECK(wrote);
  CHECK(phase == 2);  // it did not end before the stop record was written
  CHECK(waits >= 10);
  CHECK(s.reader().monitorStopped());
  CHECK(s.reader().errorCount() == 0);
  CHECK(eventsBeforeRest == loadTraceText(text.substr(0, text.rfind('\n', cut) + 1)).trace->eventCount());
  checkSameTrace(*s.reader().take(), text + stop);
}

// A followed file is read again when its writer writes, not at
// the end of the wait (a live picture must be at most 200 ms old).
TEST_CASE("source: a followed file at its end is read again as soon as it grows, not after waitMs") {
  TempDir d;
  const std::string path = d.file("growing.trace");
  const std::string text = readFile(dataPath("barrier.trace"));
  const std::size_t half = text.rfind('\n', text.size() / 2) + 1;
  REQUIRE(append(path, text.substr(0, half)));
  SourceOptions o;
  o.follow = true;
  o.waitMs = 30'000;  // without a wake-up at the write, each wait at the end lasts this long
  TraceSource s(path, o);
  REQUIRE(s.error().empty());
  while (s.next() == SourceStep::Read) {
  }
  // Caught up (the first wait only sets the watch up); the rest comes
  // while the reader waits.
  REQUIRE(s.caughtUp());
  std::thread writer([&] {
    std::this_thread::sleep_for(300ms);
    CHECK(append(path, text.substr(half)));
  });
  auto started = std::chrono::steady_clock::now();
  while (s.reader().byteCount() < text.size() && std::chrono::steady_clock::now() - started < 60s) s.next();
  const auto took = std::chrono::steady_clock::now() - started;
  writer.join();
  CHECK(s.reader().byteCount() == text.size());
  CHECK(took < 15s);  // loose on a loaded machine; the wait alone is 30 s (or 60)
}

TEST_CASE("source: stop() from another thread ends a followed file, and its unfinished last line is read") {
  TempDir d;
  const std::string path = d.file("killed.trace");
  std::string text = readFile(dataPath("barrier.trace"));
  text.pop_back();  // the writer died before the last '\n'
  REQUIRE(append(path, text));
  SourceOptions o;
  o.follow = true;
  o.waitMs = 120'000;  // stop() is heard long before a wait at the file's end is over
  TraceSource s(path, o);
  std::atomic<bool> read{false};
  std::thread stopper([&] {
    while (!read) std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(200ms);  // most likely inside the wait by now
    s.stop();
  });
  auto started = std::chrono::steady_clock::now();
  for (SourceStep step; (step = s.next()) != SourceStep::Ended;)
    if (step == SourceStep::Read) read = true;
  stopper.join();
  CHECK(std::chrono::steady_clock::now() - started < 60s);  // not the 120 s wait
  CHECK_FALSE(s.reader().monitorStopped());
  checkSameTrace(*s.reader().take(), text + "\n");
}

TEST_CASE("source: a last line without a newline is read, from a file and from a pipe") {
  TempDir d;
  std::string text = readFile(dataPath("malformed.trace"));
  text = text.substr(0, text.size() - 1);  // "... exit rc=0" without '\n'
  const std::string path = d.file("partial.trace");
  REQUIRE(append(path, text));
  TraceSource file(path);
  file.readToEnd();
  auto t = file.reader().take();
  REQUIRE(t->taskCount() == 1);
  CHECK(t->events(0)[t->events(0).size() - 1].kind == Kind::EXIT);

  PipeAsStdin in;
  REQUIRE(writeAll(in.writer, text));
  in.closeWriter();
  TraceSource pipe("-");
  pipe.readToEnd();
  auto p = pipe.reader().take();
  REQUIRE(p->taskCount() == 1);
  CHECK(p->events(0).size() == t->events(0).size());
}

TEST_CASE("source: huge lines, over several pieces: a 3 MB mark is read, one over the limit is skipped") {
  const std::string head = "1.0 1.0 t1 mytid rc=t1 name=big\n";
  const std::string tail = "2.0 2.0 t1 exit rc=0\n";
  const std::string text = head + markLine(1.5, 3 << 20, 'x') + markLine(1.6, kMaxTraceLine, 'y') +
                           markLine(1.7, 10, 'z') + tail;
  TempDir d;
  const std::string path = d.file("huge.trace");
  REQUIRE(append(path, text));
  auto check = [&](TraceSource& s) {
    s.readToEnd();
    REQUIRE(s.reader().errorCount() == 1);
    const ReadError& e = s.reader().errors()[0];
    CHECK(e.line == 3);
    CHECK(s.describe(e) == s.name() + ":3: line longer than " + std::to_string(kMaxTraceLine) + " bytes, skipped");
    auto t = s.reader().take();
    REQUIRE(t->events(0).size() == 4);  // mytid, the 3 MB mark, the small mark, exit
    CHECK(markSize(*t, 1) == std::size_t{3} << 20);
    CHECK(markSize(*t, 2) == 10);
  };
  TraceSource file(path);
  check(file);

  PipeAsStdin in;
  std::atomic<bool> wrote{false};
  std::thread writer([&] {
    bool ok = true;
    for (std::size_t at = 0; at < text.size() && ok; at += 65536) ok = writeAll(in.writer, text.substr(at, 65536));
    wrote = ok;
    in.closeWriter();
  });
  SourceOptions o;
  o.waitMs = 50;
  TraceSource pipe("-", o);
  check(pipe);
  writer.join();
  CHECK(wrote);
}

TEST_CASE("source: errors say FILE:LINE: reason, <stdin> for standard input") {
  const std::string path = dataPath("malformed.trace");
  TraceSource lenient(path);
  lenient.readToEnd();
  REQUIRE(lenient.reader().errors().size() == 2);
  CHECK(lenient.describe(lenient.reader().errors()[0]) == path + ":3: bad receive time '1763680000.1x0000000'");
  CHECK(lenient.describeFatal().empty());

  SourceOptions strict;
  strict.read.stopOnError = true;
  TraceSource stops(path, strict);
  auto steps = readAll(stops);
  CHECK(stops.reader().stoppedReading());
  CHECK(stops.describeFatal() == path + ":3: bad receive time '1763680000.1x0000000'");
  CHECK(stops.reader().eventCount() == 1);  // nothing after the line it stopped at

  PipeAsStdin in;
  REQUIRE(writeAll(in.writer, readFile(path)));
  in.closeWriter();
  TraceSource fromStdin("-", strict);
  fromStdin.readToEnd();
  CHECK(fromStdin.describeFatal() == "<stdin>:3: bad receive time '1763680000.1x0000000'");

  TraceSource missing(dataPath("no-such.trace"));
  CHECK(missing.error() == dataPath("no-such.trace") + ": No such file or directory");
  CHECK(missing.next() == SourceStep::Ended);
  LoadResult r = loadTraceFile(dataPath("no-such.trace"));
  CHECK_FALSE(r.trace);
  CHECK(r.fatal == missing.error());
}

TEST_CASE("source: an input with neither a header nor a record is not a trace") {
  TraceSource empty = TraceSource::fromText("");
  empty.readToEnd();
  CHECK(empty.notATrace() == "<text>: no records read (the input is empty)");
  TraceSource garbage = TraceSource::fromText("garbage line one\nmore garbage\n");
  garbage.readToEnd();
  CHECK(garbage.notATrace() == "<text>: no records read (2 malformed lines): is it an xab trace?");
  // A header alone is a trace of nothing; so is a record whose trace the
  // caller takes away after each piece (the translators stream so).
  TraceSource header = TraceSource::fromText("#xab-trace 1 abmon=t40001\n");
  header.readToEnd();
  CHECK(header.notATrace().empty());
  SourceOptions o;
  o.pieceBytes = 7;
  TraceSource taken = TraceSource::fromText("\n\n1.0 1.0 t1 mytid rc=t1 name=a\n", o);
  taken.readToEnd([](TraceReader& r) { (void)r.take(); });
  CHECK(taken.sawTrace());
}

TEST_CASE("source: raw bytes of a file or standard input, for a foreign format") {
  const std::string path = dataPath("ge.trace");
  const std::string want = readFile(path);
  SourceOptions o;
  o.pieceBytes = 333;
  std::string got;
  CHECK(readPieces(path, o, [&](std::string_view p) { return got.append(p), true; }).empty());
  CHECK(got == want);
  PipeAsStdin in;
  REQUIRE(writeAll(in.writer, want));
  in.closeWriter();
  std::string fromStdin;
  CHECK(readPieces("-", o, [&](std::string_view p) { return fromStdin.append(p), true; }).empty());
  CHECK(fromStdin == want);
  CHECK(readPieces(path + ".nope", o, [](std::string_view) { return true; }) == path + ".nope: No such file or directory");
}

TEST_CASE("progress: drawn on a terminal only, and cleared") {
  int master = -1, slave = -1;
  REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
  int p[2];
  REQUIRE(::pipe(p) == 0);
  ReadProgress at;
  at.bytes = 50'000'000;
  at.total = 100'000'000;
  at.events = 1234;
  at.seconds = 2;
  {
    ProgressOptions o;
    o.label = "tool";
    o.fd = slave;
    o.every = 3600;  // the second update below is too soon however loaded the machine
    ProgressLine line(o);
    CHECK(line.enabled());
    ReadProgress early = at;
    early.seconds = 0.1;  // before firstAfter: a quick read shows nothing
    line.update(early);
    CHECK(drain(master).empty());
    line.update(at);
    std::string drawn = drain(master);
    CHECK_THAT(drawn, Catch::Contains("tool: [###############               ]  50% 25 MB/s, 1234 events"));
    ReadProgress pipe = at;
    pipe.total = 0;  // unknown size: what was read so far
    line.update(pipe);  // too soon after the last redraw
    CHECK(drain(master).empty());
    line.clear();
    CHECK(drain(master) == "\r\033[K");
  }
  {
    ProgressOptions o;
    o.label = "tool";
    o.fd = p[1];  // not a terminal
    ProgressLine line(o);
    CHECK_FALSE(line.enabled());
    line.update(at);
  }
  ::close(p[1]);
  char c;
  CHECK(::read(p[0], &c, 1) == 0);  // nothing was written to the pipe
  ::close(p[0]);

  // A source draws it while it reads a file once, and not while it
  // follows one (barrier.trace has no abmon.stop: stopped once caught up).
  for (bool follow : {false, true}) {
    SourceOptions so;
    so.progress.emplace();
    so.progress->label = "src";
    so.progress->fd = slave;
    so.progress->firstAfter = 0;
    so.follow = follow;
    so.waitMs = 50;
    TraceSource s(dataPath("barrier.trace"), so);
    for (SourceStep step; (step = s.next()) != SourceStep::Ended;)
      if (step == SourceStep::Waiting) s.stop();
    CHECK(s.reader().eventCount() > 0);
    std::string drawn = drain(master);
    INFO("follow " << follow);
    if (follow) {
      CHECK(drawn.empty());
    } else {
      CHECK_THAT(drawn, Catch::Contains("src: [##############################] 100%"));
      CHECK_THAT(drawn, Catch::EndsWith("\r\033[K"));
    }
  }
  ::close(slave);
  ::close(master);
}
