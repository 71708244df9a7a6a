// The reader thread: a pipe that delivers records a few at a time, a file,
// a missing file.  Snapshots arrive in the GUI thread through signals.
#include "support.h"
#include "trace_loader.h"

#include <QSignalSpy>
#include <QTemporaryDir>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

const char* kHead =
    "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.0\n"
    "1763680000.1 1763680000.1 t40002 mytid rc=t40002 name=a host=vm parent=none lang=c pid=5\n";
const char* kTail =
    "1763680000.2 1763680000.2 t40002 recv.begin src=any tag=7\n"
    "garbage line\n"
    "1763680000.3 1763680000.3 t40002 recv src=t40003 tag=7 bytes=4 serial=0 rc=1\n";

bool waitFor(QSignalSpy& spy, const std::function<bool(const ViewSnapshot&)>& pred, int ms = 10000) {
  for (int waited = 0; waited < ms; waited += 50) {
    for (const auto& args : spy) {
      auto s = args.at(0).value<SnapshotPtr>();
      if (s && pred(*s)) return true;
    }
    spy.wait(50);
  }
  return false;
}

// A loader started on a pipe, kHead written into it; the test writes the
// rest and closes `writeEnd`.
struct PipedLoader {
  static QString readEnd(int* fds) {
    REQUIRE(::pipe(fds) == 0);
    return QStringLiteral("/dev/fd/%1").arg(fds[0]);
  }
  int fds[2] = {-1, -1};
  TraceLoader loader{{readEnd(fds), true, 20}};
  QSignalSpy spy{&loader, &TraceLoader::snapshotReady};
  int& writeEnd = fds[1];
  PipedLoader() {
    loader.start();
    REQUIRE(::write(fds[1], kHead, std::strlen(kHead)) > 0);
  }
  ~PipedLoader() {
    loader.stop();
    ::close(fds[0]);
  }
};

}  // namespace

TEST_CASE("records written into a pipe reach the GUI thread as they come, then the end") {
  PipedLoader in;
  CHECK(waitFor(in.spy, [](const ViewSnapshot& s) { return s.size() == 1 && !s.inputEnded; }));
  REQUIRE(::write(in.writeEnd, kTail, std::strlen(kTail)) > 0);
  ::close(in.writeEnd);
  CHECK(waitFor(in.spy, [](const ViewSnapshot& s) {
    return s.size() == 3 && s.inputEnded && s.errorCount == 1 && s.errors[0].line == 4;
  }));
}

// At the end of the input the last records (the program's exit, abmon's
// stop) are shown at once, with the analysis there is, and then again with
// a complete one: a long run's final analysis does not hold them back.
TEST_CASE("the last records are shown before their analysis, then with it") {
  PipedLoader in;
  // The input pauses: the first record is analysed.
  REQUIRE(waitFor(in.spy, [](const ViewSnapshot& s) { return s.size() == 1 && s.analysisComplete(); }));
  REQUIRE(::write(in.writeEnd, kTail, std::strlen(kTail)) > 0);
  ::close(in.writeEnd);
  REQUIRE(waitFor(in.spy, [](const ViewSnapshot& s) { return s.inputEnded; }));
  std::vector<SnapshotPtr> all;
  for (const auto& args : in.spy)
    if (auto s = args.at(0).value<SnapshotPtr>(); s && s->size() == 3) all.push_back(s);
  REQUIRE(all.size() >= 2);
  CHECK_FALSE(all.front()->inputEnded);
  CHECK(all.front()->analysis->records == 1);
  CHECK(all.back()->inputEnded);
  CHECK(all.back()->analysisComplete());
}

// Catching up with a file its writer still appends to is not
// the end of the input; abmon.stop is (and --no-follow reads it once).
TEST_CASE("a file is read to its end, and a growing one keeps being read") {
  QTemporaryDir dir;
  QString path = dir.filePath("trace");
  int fd = ::open(path.toLocal8Bit().constData(), O_WRONLY | O_CREAT, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, kHead, std::strlen(kHead)) > 0);
  TraceLoader loader({path, true, 20});
  QSignalSpy spy(&loader, &TraceLoader::snapshotReady);
  loader.start();
  CHECK(waitFor(spy, [](const ViewSnapshot& s) { return s.size() == 1 && s.caughtUp; }));
  REQUIRE(::write(fd, kTail, std::strlen(kTail)) > 0);
  CHECK(waitFor(spy, [](const ViewSnapshot& s) { return s.size() == 3 && s.caughtUp; }));
  for (const auto& args : spy) CHECK_FALSE(args.at(0).value<SnapshotPtr>()->inputEnded);
  const char* stop = "1763680000.4 1763680000.4 t40001 abmon.stop events=3 tasks=1 bad=1\n";
  REQUIRE(::write(fd, stop, std::strlen(stop)) > 0);
  ::close(fd);
  CHECK(waitFor(spy, [](const ViewSnapshot& s) { return s.inputEnded && s.caughtUp; }));
  loader.stop();

  TraceLoader once({path, false, 20});  // --no-follow
  QSignalSpy onceSpy(&once, &TraceLoader::snapshotReady);
  once.start();
  CHECK(waitFor(onceSpy, [](const ViewSnapshot& s) { return s.inputEnded && s.trace->stopped(); }));
  once.stop();
}

namespace {

std::string secondsOf(long long ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld.%09lld", ns / 1'000'000'000, ns % 1'000'000'000);
  return buf;
}

long long nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// Live, the reader is asked for its trace at the snapshot's tick: a trace it
// made when the last one was taken would wait an interval for the tick, and
// show records an interval old.  A program's record every 2 ms, stamped with
// the real time it is written (abmon's receive time), through a pipe; ticks
// 400 ms apart.
TEST_CASE("a live snapshot shows the records read at its tick, not those of an interval before") {
  int fds[2] = {-1, -1};
  REQUIRE(::pipe(fds) == 0);
  constexpr int kIntervalMs = 400;
  TraceLoader loader({QStringLiteral("/dev/fd/%1").arg(fds[0]), true, kIntervalMs});
  QSignalSpy spy(&loader, &TraceLoader::snapshotReady);
  loader.start();
  std::thread program([fd = fds[1]] {
    auto put = [fd](const std::string& s) { return ::write(fd, s.data(), s.size()) == static_cast<ssize_t>(s.size()); };
    long long t = nowNs();
    bool ok = put("#xab-trace 1 abmon=t40001 host=vm pid=1 start=" + secondsOf(t - 1'000'000'000) + "\n" +
                  secondsOf(t) + " " + secondsOf(t) + " t40002 mytid rc=t40002 name=a host=vm parent=none lang=c pid=5\n");
    for (int i = 0; ok && i < 1500; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      t = nowNs();
      ok = put(secondsOf(t) + " " + secondsOf(t) + " t40002 initsend enc=0 rc=1\n");
    }
    ::close(fd);
  });
  const bool ended = waitFor(spy, [](const ViewSnapshot& s) { return s.inputEnded; }, 30000);
  program.join();
  loader.stop();
  ::close(fds[0]);
  REQUIRE(ended);
  // How old each live snapshot's newest record was when the snapshot was
  // taken, once records flow (the first ones come while the loader starts).
  std::vector<long long> ages;
  for (const auto& args : spy)
    if (auto s = args.at(0).value<SnapshotPtr>(); s && !s->inputEnded && s->size() > 300)
      ages.push_back(s->takenMs - s->newestArrival / 1'000'000);
  REQUIRE(ages.size() >= 3);
  std::sort(ages.begin(), ages.end());
  INFO("ages " << ages.front() << " .. " << ages.back() << " ms over " << ages.size() << " snapshots");
  CHECK(ages[ages.size() / 2] < kIntervalMs / 2);  // an interval's wait: ~400 ms
}

TEST_CASE("a missing file is a message, not a crash") {
  TraceLoader loader({"/nonexistent/xab/trace", true, 20});
  QSignalSpy failed(&loader, &TraceLoader::loadFailed);
  loader.start();
  REQUIRE(failed.wait(5000));
  CHECK(failed.at(0).at(0).toString().contains("No such file"));
}

#include "export.h"

TEST_CASE("a PICL file (what the translators read) opens too, and export writes PICL and JSON") {
  QTemporaryDir dir;
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  QString picl = dir.filePath("chol.trf");
  REQUIRE(exportTrace(*s, picl).isEmpty());
  REQUIRE(exportTrace(*s, dir.filePath("chol.json")).isEmpty());
  CHECK_FALSE(exportTrace(*s, dir.filePath("chol.xyz")).isEmpty());
  TraceLoader loader({picl, true, 20});
  QSignalSpy spy(&loader, &TraceLoader::snapshotReady);
  loader.start();
  CHECK(waitFor(spy, [](const ViewSnapshot& v) {
    return v.inputEnded && v.trace->taskCount() == 4 && v.source.find("(PICL)") != std::string::npos;
  }));
  loader.stop();
}

namespace {

// A trace whose task t40002 did 16 clock exchanges with abmon, its clock
// `offsetNs` ahead of abmon's, then one more record at task time 1.5 s.
std::string clockTrace(long long offsetNs) {
  std::string text = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.0\n";
  auto secs = [](long long ns) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%lld.%09lld", ns / 1'000'000'000, ns % 1'000'000'000);
    return std::string(buf);
  };
  const long long t0 = 1'763'680'001'000'000'000;
  for (int k = 0; k < 16; ++k) {
    long long t1 = t0 + k * 100'000, t2 = t1 + 15'000, t4 = t2 + 2'000 + 15'000;  // true times
    text += secs(t2 + 2'000) + " " + secs(t1 + offsetNs) + " t40002 clock ref=t40001 ref_s=" +
            std::to_string(t2 / 1'000'000'000) + " ref_ns=" + std::to_string(t2 % 1'000'000'000) +
            " turn_ns=2000 rtt_ns=" + std::to_string(t4 - t1) + " phase=0 rc=" + std::to_string(k) +
            (k == 0 ? " name=a host=vm parent=none lang=c pid=5" : "") + "\n";
  }
  text += secs(t0 + 500'000'000) + " " + secs(t0 + 500'000'000 + offsetNs) + " t40002 exit rc=0\n";
  return text;
}

}  // namespace

// On one host every task reads abmon's clock: the viewer keeps the times as
// recorded and extends its pictures; a clock that is off is re-timed.
TEST_CASE("global time: clocks that agree keep their times, a skewed one is put on abmon's") {
  for (long long offset : {0LL, 7'200'000'000'000LL}) {
    INFO("offset " << offset << " ns");
    QTemporaryDir dir;
    QString path = dir.filePath("trace");
    std::ofstream(path.toStdString()) << clockTrace(offset);
    TraceLoader loader({path, false, 20});
    QSignalSpy spy(&loader, &TraceLoader::snapshotReady);
    loader.start();
    SnapshotPtr last;
    CHECK(waitFor(spy, [&](const ViewSnapshot& s) {
      if (s.inputEnded) last = std::make_shared<ViewSnapshot>(s);
      return s.inputEnded;
    }));
    loader.stop();
    REQUIRE(last);
    const auto& ev = last->trace->events(0);
    const TimeNs exitTime = ev[ev.size() - 1].time;
    if (offset == 0) {
      CHECK(last->timeNote == "global time, every clock agrees with abmon's");
      CHECK(exitTime == 1'763'680'001'500'000'000);  // as recorded
    } else {
      CHECK(last->timeNote == "global time");
      CHECK(std::llabs(exitTime - 1'763'680'001'500'000'000) < 10'000);  // on abmon's clock
    }
  }
}

// --compensate: the model's compensation, each record's cost (100 us, from
// the task's cost record) taken out of the times after it.
TEST_CASE("compensated view: --compensate takes each record's measured cost out of the times shown") {
  const std::string text =
      "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.0\n"
      "1763680001.000000000 1763680001.000000000 t40002 cost burst=8 total_ns=0 rc=100000 name=a host=vm parent=none lang=c pid=5\n"
      "1763680001.001000000 1763680001.001000000 t40002 config nhost=1 narch=1 rc=0\n"
      "1763680001.002000000 1763680001.002000000 t40002 exit rc=0\n";
  for (bool compensated : {false, true}) {
    INFO("compensate " << compensated);
    QTemporaryDir dir;
    QString path = dir.filePath("trace");
    std::ofstream(path.toStdString()) << text;
    TraceLoader loader({path, false, 20, false, compensated});
    QSignalSpy spy(&loader, &TraceLoader::snapshotReady);
    loader.start();
    SnapshotPtr last;
    CHECK(waitFor(spy, [&](const ViewSnapshot& s) {
      if (s.inputEnded) last = std::make_shared<ViewSnapshot>(s);
      return s.inputEnded;
    }));
    loader.stop();
    REQUIRE(last);
    const auto& ev = last->trace->events(0);
    REQUIRE(ev.size() == 3);
    CHECK(ev[2].time == (compensated ? 1'763'680'001'001'900'000 : 1'763'680'001'002'000'000));
    CHECK((last->timeNote.find("compensated") != std::string::npos) == compensated);
  }
}

// Re-timing copies the whole trace and restarts the picture
// (seconds at millions of records; a loaded machine's fits "move" the tasks
// of one host by milliseconds).  While a followed file grows, the pictures
// keep the task clocks; once it pauses, and at its end, they are re-timed.
TEST_CASE("global time: live pictures keep task clocks while records flow, re-timed when they pause") {
  const long long offset = 2'000'000;
  QTemporaryDir dir;
  QString path = dir.filePath("trace");
  std::string text = clockTrace(offset);
  const std::size_t exitLine = text.rfind('\n', text.size() - 2) + 1;
  std::ofstream(path.toStdString()) << text.substr(0, exitLine);
  TraceLoader loader({path, true, 20});
  QSignalSpy spy(&loader, &TraceLoader::snapshotReady);
  loader.start();
  SnapshotPtr live, paused, last;
  const TimeNs recorded = 1'763'680'001'000'000'000 + offset;
  CHECK(waitFor(spy, [&](const ViewSnapshot& s) {
    if (!live && s.trace->eventCount() == 16) live = std::make_shared<ViewSnapshot>(s);
    if (!s.inputEnded && s.timeNote == "global time") paused = std::make_shared<ViewSnapshot>(s);
    return paused != nullptr;
  }));
  REQUIRE(live);
  CHECK(live->timeNote == "task clocks while records flow, global time when they pause");
  CHECK(live->trace->events(0)[0].time == recorded);  // as recorded
  REQUIRE(paused);
  CHECK(std::llabs(paused->trace->events(0)[0].time - (recorded - offset)) < 10'000);  // on abmon's clock
  std::ofstream(path.toStdString(), std::ios::app)
      << text.substr(exitLine) << "1763680009.000000000 1763680009.000000000 t40001 abmon.stop events=17\n";
  CHECK(waitFor(spy, [&](const ViewSnapshot& s) {
    if (s.inputEnded) last = std::make_shared<ViewSnapshot>(s);
    return s.inputEnded;
  }));
  loader.stop();
  REQUIRE(last);
  CHECK(last->timeNote == "global time");
  const auto& ev = last->trace->events(0);
  CHECK(std::llabs(ev[ev.size() - 1].time - 1'763'680'001'500'000'000) < 10'000);  // on abmon's clock
}
