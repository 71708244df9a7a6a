// The status bar shows
// the program's arrival rate (records per second reaching the reader,
// falling to 0 when nothing arrives) and how far the picture is behind the
// reader, in records and seconds; the GUI thread's watchdog measures a
// stall, and --frame-log writes it.  The real loader follows a real file
// the test appends to; the real window shows it.
#include "main_window.h"
#include "state_dump.h"
#include "support.h"
#include "trace_loader.h"

#include <QAction>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFile>
#include <QLabel>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

using namespace xab;
using namespace xab::view;
using xab::view::test::waitUntil;

namespace {

struct Watched {
  QTemporaryDir dir;
  QString path = dir.filePath("evfile");
  test::GrowingTrace writer{path, 1'000};  // 1 µs apart
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
  // The whole status text (the bar shows what fits of it).
  QString status() const { return window.findChild<QLabel*>("status")->toolTip(); }
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
    w.writer.workerCalls(200);
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
  w.writer.workerCalls(300);
  REQUIRE(waitUntil([&] { return w.loader.recordsRead() == before + 300; }, 20000));
  QTest::qWait(1500);
  INFO("status: " << w.status().toStdString());
  auto [records, seconds] = w.behind();
  CHECK(records == 300);
  CHECK(seconds >= 1.0);
  // Snapshots again: the picture catches up, nothing behind.
  w.connectLoader();
  w.writer.workerCalls(1);
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
  w.writer.workerCalls(10);
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

// View > Time > Compensated re-times the trace read so far (the
// --compensate of the command line, as a menu), live on a followed file and
// after the input's end; the dump (--dump-state's) gives the compensated
// times, unchecking gives the recorded ones back, and the position stays.
TEST_CASE("window: View > Time > Compensated re-times the trace live and after its end, and back") {
  for (bool live : {true, false}) {
    INFO((live ? "live, a followed file" : "a finished file"));
    QTemporaryDir dir;
    const QString path = dir.filePath("evfile");
    test::GrowingTrace writer(path, 1'000'000);  // 1 ms apart
    // The worker's record costs it 100 µs (its cost record): compensated,
    // each of its records comes 100 µs earlier per record of its before it
    // (mytid, the initsends: each record's cost is paid after its date).
    writer.rec("t40003 cost burst=8 total_ns=0 rc=100000");
    writer.workerCalls(10);
    if (!live) writer.rec("t40003 exit rc=0");
    ViewState state;
    MainWindow window(&state, ViewerOptions{});
    TraceLoader loader({path, live, 20});
    QObject::connect(&loader, &TraceLoader::snapshotReady, &state, &ViewState::setSnapshot);
    QObject::connect(&window, &MainWindow::timeBaseChosen, &loader, &TraceLoader::setTimeBase);
    window.show();
    loader.start();
    const auto records = static_cast<std::size_t>(writer.records());
    REQUIRE(waitUntil([&] { return state.size() == records && (live || state.snapshot()->inputEnded); }));
    auto workerLast = [&] {
      const QJsonObject d = dumpState(state);
      for (const auto& t : d["tasks"].toArray())
        if (t.toObject()["task"].toString().startsWith("(worker")) return t.toObject()["last_s"].toDouble();
      FAIL("no worker in the dump: " << QJsonDocument(d).toJson().toStdString());
      return 0.0;
    };
    const double recorded = workerLast();
    // The whole-trace analysis (message lines, mipmaps, hang) is made again
    // on the new times: none of the old time base is kept.
    auto analysedOnShownTimes = [&] {
      const ViewSnapshot* s = state.snapshot();
      if (!s->analysisComplete() || !s->analysis->model.trace) return false;
      const TaskIndex w = test::taskNamed(*s, "worker", 0);
      return s->analysis->model.trace->task(w).lastTime == s->trace->task(w).lastTime;
    };
    state.setPosition(5);
    auto* compensated = window.findChild<QAction*>("timeCompensated");
    REQUIRE(compensated);
    CHECK_FALSE(compensated->isChecked());
    compensated->trigger();
    REQUIRE(waitUntil([&] { return state.snapshot()->timeNote.find("compensated") != std::string::npos; }));
    const int after = live ? 10 : 11;  // the worker's records before its last (the cost record aside)
    CHECK(workerLast() == Approx(recorded - after * 100e-6).margin(1e-9));
    CHECK(waitUntil(analysedOnShownTimes, 10000));
    CHECK(state.position() == 5);
    CHECK(state.size() == records);
    CHECK(window.statusText().contains("compensated"));
    // Plain words: no brackets in brackets, no command-line flags.
    CHECK_FALSE(window.statusText().contains('('));
    compensated->trigger();  // off again: the recorded times
    REQUIRE(waitUntil([&] { return state.snapshot()->timeNote.find("compensated") == std::string::npos; }));
    CHECK(workerLast() == Approx(recorded).margin(1e-9));
    CHECK(waitUntil(analysedOnShownTimes, 10000));
    CHECK(state.position() == 5);
    CHECK_FALSE(window.statusText().contains("compensated"));
    auto* raw = window.findChild<QAction*>("timeRaw");
    REQUIRE(raw);
    raw->trigger();
    REQUIRE(waitUntil([&] { return state.snapshot()->timeNote.find("as recorded") != std::string::npos; }));
    CHECK(window.statusText().contains("task clocks as recorded"));
    CHECK_FALSE(window.statusText().contains("--"));
    CHECK_FALSE(window.statusText().contains('('));
    loader.stop();
  }
}

TEST_CASE("live status: the status bar says while the analysis (messages, barriers, hang) is still running") {
  ViewState state;
  ViewerOptions o;
  o.size = {1280, 800};
  MainWindow window(&state, o);
  auto s = test::snapshotOf(test::dataPath("barrier.trace"));
  auto done = s->analysis;
  s->analysis = std::make_shared<view::Analysis>();  // as the loader's first snapshots have it: nothing analysed yet
  state.setSnapshot(s);
  CHECK(window.statusText().contains("analysing"));
  auto finished = std::make_shared<ViewSnapshot>(*s);
  finished->analysis = done;
  state.setSnapshot(finished);
  CHECK_FALSE(window.statusText().contains("analysing"));
}
