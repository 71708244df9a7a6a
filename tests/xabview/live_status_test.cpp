// Issue 12, "Keep up, and say how far behind it is": the status bar shows
// the program's arrival rate (records per second reaching the reader,
// falling to 0 when nothing arrives) and how far the picture is behind the
// reader, in records and seconds; the GUI thread's watchdog measures a
// stall, and --frame-log writes it.  The real loader follows a real file
// the test appends to; the real window shows it.
#include "main_window.h"
#include "support.h"
#include "trace_loader.h"

#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <functional>
#include <string>
#include <thread>
#include <unistd.h>

using namespace xab;
using namespace xab::view;

namespace {

// A program's trace as abmon writes it: two tasks, the worker calling on.
class Writer {
 public:
  explicit Writer(const QString& path) {
    fd_ = ::open(path.toLocal8Bit().constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(fd_ >= 0);
    write("#xab-trace 1 abmon=t40001 host=vm pid=4242 start=1763680000.000000000\n");
    rec("t40002 mytid rc=t40002 name=master host=vm parent=none lang=c pid=200");
    rec("t40003 mytid rc=t40003 name=worker host=vm parent=t40002 lang=c pid=201");
  }
  ~Writer() { ::close(fd_); }
  void calls(int n) {
    std::string batch;
    for (int i = 0; i < n; ++i) batch += line("t40003 initsend enc=0 rc=1");
    write(batch);
    records_ += n;
  }
  int records() const { return records_; }

 private:
  std::string line(const std::string& rest) {
    t_ += 1'000;
    char buf[256];
    std::snprintf(buf, sizeof buf, "%lld.%09lld %lld.%09lld %s\n", t_ / 1000000000, t_ % 1000000000,
                  t_ / 1000000000, t_ % 1000000000, rest.c_str());
    return buf;
  }
  void rec(const std::string& rest) {
    write(line(rest));
    ++records_;
  }
  void write(const std::string& s) { REQUIRE(::write(fd_, s.data(), s.size()) == static_cast<ssize_t>(s.size())); }
  int fd_ = -1;
  long long t_ = 1763680000'100000000LL;
  int records_ = 0;
};

bool waitUntil(const std::function<bool()>& done, int ms) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > ms) return false;
    QTest::qWait(20);
  }
  return true;
}

struct Watched {
  QTemporaryDir dir;
  QString path = dir.filePath("evfile");
  Writer writer{path};
  ViewState state;
  MainWindow window;
  TraceLoader loader;
  QMetaObject::Connection shown;

  explicit Watched(ViewerOptions o = {}) : window(&state, o), loader({path, true, 100}) {
    connectLoader();
    window.watchReader([this] { return loader.recordsRead(); });
    window.show();
    loader.start();
    REQUIRE(waitUntil([&] { return state.size() == static_cast<std::size_t>(writer.records()); }, 20000));
  }
  ~Watched() { loader.stop(); }
  void connectLoader() { shown = QObject::connect(&loader, &TraceLoader::snapshotReady, &state, &ViewState::setSnapshot); }
  QString status() const { return window.findChild<QLabel*>("status")->text(); }
  double arriving() const {
    auto m = QRegularExpression("arriving (\\d+) records/s").match(status());
    return m.hasMatch() ? m.captured(1).toDouble() : -1;
  }
  // Records and seconds behind; -1 when the status bar does not say.
  std::pair<long, double> behind() const {
    auto m = QRegularExpression("behind (\\d+) records, ([0-9.]+) s").match(status());
    return m.hasMatch() ? std::pair{m.captured(1).toLong(), m.captured(2).toDouble()} : std::pair{-1L, -1.0};
  }
};

}  // namespace

TEST_CASE("live status: the arrival rate is what reaches the reader, and falls to 0 when nothing arrives") {
  Watched w;
  // About 2000 records a second for two seconds.
  QElapsedTimer clock;
  clock.start();
  double seen = 0;
  while (clock.elapsed() < 2000) {
    w.writer.calls(200);
    QTest::qWait(100);
    seen = std::max(seen, w.arriving());
  }
  INFO("status: " << w.status().toStdString());
  CHECK(seen > 300);  // loose: a loaded machine writes less often, never none
  // Nothing more: within a few seconds the rate says 0, not the catching up.
  CHECK(waitUntil([&] { return w.arriving() == 0; }, 5000));
  CHECK(w.status().contains("live, waiting for records"));
  CHECK(w.behind() == std::pair{0L, 0.0});
}

TEST_CASE("live status: records the reader holds and the picture does not are shown as behind, in records and seconds") {
  Watched w;
  // The picture stops taking snapshots (as a GUI too busy to take them);
  // the reader reads on.
  QObject::disconnect(w.shown);
  const auto before = w.state.size();
  w.writer.calls(300);
  REQUIRE(waitUntil([&] { return w.loader.recordsRead() == before + 300; }, 20000));
  QTest::qWait(1500);
  INFO("status: " << w.status().toStdString());
  auto [records, seconds] = w.behind();
  CHECK(records == 300);
  CHECK(seconds >= 1.0);
  // Snapshots again: the picture catches up, nothing behind.
  w.connectLoader();
  w.writer.calls(1);
  CHECK(waitUntil([&] { return w.behind().first == 0; }, 20000));
}

TEST_CASE("live status: the GUI thread's watchdog measures a stall, and --frame-log writes it") {
  QTemporaryDir logDir;
  ViewerOptions o;
  o.frameLog = logDir.filePath("frames.log");
  Watched w(o);
  // The GUI thread is kept busy for 1.5 s (as by a slow paint).
  QTimer::singleShot(0, [] { std::this_thread::sleep_for(std::chrono::milliseconds(1500)); });
  QTest::qWait(300);  // the stall happens in here
  QTest::qWait(300);  // and the watchdog's next tick measures it
  CHECK(w.window.watchdog().worstMs() >= 1400);
  // The next repaint logs it.
  w.writer.calls(10);
  REQUIRE(waitUntil([&] { return w.state.size() == static_cast<std::size_t>(w.writer.records()); }, 20000));
  QTest::qWait(300);
  QFile log(o.frameLog);
  REQUIRE(log.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(log.readAll()).split('\n', Qt::SkipEmptyParts);
  REQUIRE(lines.size() >= 2);
  CHECK(lines.front().startsWith("# ms paint_ms shown read behind"));
  const QStringList last = lines.back().split(' ');
  REQUIRE(last.size() == 12);
  CHECK(last[2].toLong() == w.writer.records());  // records shown
  CHECK(last[9].toDouble() >= 1400);                  // the worst stall so far
}
