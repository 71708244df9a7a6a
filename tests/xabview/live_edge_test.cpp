// The real loader follows a real file that the
// test keeps appending to (a master blocked in a receive, a worker still
// busy), and the real window shows it.  Catching up with the writer, or
// pausing and stepping at the live edge, is not the end of the trace and not
// a hang; only --hang-after seconds of silence with tasks blocked is, and
// then a banner says so while the tab the user chose stays in front.
#include "diagram_view.h"
#include "main_window.h"
#include "panels.h"
#include "support.h"
#include "trace_loader.h"

#include <QApplication>
#include <QDateTime>
#include <QRegularExpression>
#include <QFrame>
#include <QLabel>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <iterator>
#include <string>

using namespace xab;
using namespace xab::view;
using xab::view::test::waitUntil;

namespace {

struct LiveWindow {
  QTemporaryDir dir;
  QString path = dir.filePath("evfile");
  test::GrowingTrace trace{path};  // the master blocks in a receive nobody answers; the worker calls on
  ViewState state;
  MainWindow window;
  TraceLoader loader;
  static constexpr double kHangAfter = 3;

  LiveWindow() : window(&state, options()), loader({path, true, 20}) {
    QObject::connect(&loader, &TraceLoader::snapshotReady, &state, &ViewState::setSnapshot);
    window.showTab("log");  // the user's choice
    trace.rec("t40002 recv.begin src=any tag=99");
    window.show();
    loader.start();
    REQUIRE(waitUntil([&] { return state.size() == static_cast<std::size_t>(trace.records()); }, 20000));
  }
  ~LiveWindow() { loader.stop(); }
  static ViewerOptions options() {
    ViewerOptions o;
    o.hangAfter = kHangAfter;
    return o;
  }
  // One more worker record, and wait until the window has it.
  void append() {
    trace.workerCalls();
    REQUIRE(waitUntil([&] { return state.size() == static_cast<std::size_t>(trace.records()); }, 20000));
  }
  QString status() const { return window.findChild<QLabel*>("status")->toolTip(); }  // the whole text
  QFrame* banner() const { return window.findChild<QFrame*>("hangBanner"); }
  bool bannerShown() const { return banner() && !banner()->isHidden(); }
};

}  // namespace

TEST_CASE("live edge: a followed file that keeps growing is not ended and not hung, and silence then is a hang shown as a banner") {
  LiveWindow w;
  // Records keep coming, each well within --hang-after of the last, for
  // longer than --hang-after in all: every moment is "live", no alarm.
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < 2 * LiveWindow::kHangAfter * 1000) {
    w.append();
    INFO("status: " << w.status().toStdString());
    CHECK_FALSE(w.state.snapshot()->inputEnded);
    CHECK_FALSE(w.status().contains("end of input"));
    CHECK_FALSE(w.window.hangPanel()->alarmed());
    CHECK_FALSE(w.bannerShown());
    CHECK(w.window.currentTab() == "log");
    QTest::qWait(300);
  }
  // The writer falls silent with the master blocked: after --hang-after the
  // banner reports it; the tab stays the user's, the input is still live.
  CHECK(waitUntil([&] { return w.window.hangPanel()->alarmed(); }, 30000));
  CHECK(w.bannerShown());
  CHECK(w.window.currentTab() == "log");
  CHECK_FALSE(w.status().contains("end of input"));
  CHECK(w.banner()->findChild<QLabel*>()->text().contains("1 task blocked"));
  // Its button brings the panel to the front, on request.
  auto* show = w.window.findChild<QPushButton*>("hangBannerShow");
  REQUIRE(show);
  show->click();
  CHECK(w.window.currentTab() == "hang");
  CHECK(w.window.hangPanel()->text().contains("tag 99"));
  // Records again: the alarm and the banner go away.
  w.window.showTab("messages");
  w.append();
  CHECK_FALSE(w.window.hangPanel()->alarmed());
  CHECK_FALSE(w.bannerShown());
  CHECK(w.window.currentTab() == "messages");
}

TEST_CASE("live edge: pausing or stepping at the newest record of a running program raises no alarm") {
  LiveWindow w;
  w.append();
  // Step back and forward to the newest record (the Step button, the Right key).
  w.state.step(-1);
  w.state.step(1);
  QApplication::processEvents();
  CHECK(w.state.atEnd());
  CHECK_FALSE(w.state.live());
  CHECK_FALSE(w.window.hangPanel()->alarmed());
  CHECK_FALSE(w.bannerShown());
  CHECK(w.window.currentTab() == "log");
  // Paused at the newest record while the program goes on.
  w.state.setLive(true);
  w.append();
  w.state.setPosition(w.state.size());
  QApplication::processEvents();
  CHECK_FALSE(w.state.live());
  CHECK_FALSE(w.window.hangPanel()->alarmed());
  CHECK_FALSE(w.bannerShown());
  CHECK(w.window.currentTab() == "log");
}

TEST_CASE("live edge: the banner, the panel and the task table give one count as the diagnosis changes") {
  // The demo hung, then its master was killed: the pvmd's notice (the last
  // record) makes one of the blocked tasks one that ended while blocked.
  std::ifstream in(test::dataPath("demo_hang_killed.trace"));
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string notice = all.substr(all.find("t40014 task.exit how=notify"));
  std::string before = all.substr(0, all.rfind('\n', all.size() - notice.size() - 1) + 1);
  REQUIRE(before.size() < all.size());
  ViewState state;
  ViewerOptions o;
  o.size = {1280, 800};
  MainWindow window(&state, o);
  state.setSnapshot(test::snapshotOfText(before));
  REQUIRE(window.hangBannerShown());
  CHECK(window.hangBannerText().contains("4 tasks blocked"));
  state.setSnapshot(test::snapshotOfText(all));
  REQUIRE(window.hangBannerShown());
  const QString headline = QString::fromStdString(state.snapshot()->hangText().headline);
  CHECK(headline == "3 tasks blocked, 1 ended while blocked");
  CHECK(window.hangBannerText().contains(headline));
  CHECK(window.hangPanel()->text().contains(headline));
}

TEST_CASE("live edge: during a live hang the present keeps moving, the banner says how long, and nothing shifts") {
  QTemporaryDir dir;
  const QString path = dir.filePath("evfile");
  test::GrowingTrace trace(path, 1'000'000, QDateTime::currentMSecsSinceEpoch() * 1'000'000);  // a program running now
  trace.rec("t40002 recv.begin src=any tag=99");
  ViewState state;
  ViewerOptions o;
  o.size = {1280, 800};
  o.hangAfter = 2;
  MainWindow window(&state, o);
  TraceLoader loader({path, true, 20});
  QObject::connect(&loader, &TraceLoader::snapshotReady, &state, &ViewState::setSnapshot);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  loader.start();
  REQUIRE(waitUntil([&] { return state.size() == static_cast<std::size_t>(trace.records()); }));
  QApplication::processEvents();
  const QRect before(window.diagram()->mapTo(&window, QPoint(0, 0)), window.diagram()->size());
  REQUIRE(waitUntil([&] { return window.hangBannerShown(); }, 30000));
  QApplication::processEvents();
  CHECK(QRect(window.diagram()->mapTo(&window, QPoint(0, 0)), window.diagram()->size()) == before);
  auto silence = [&] {  // "no new record for N s", N in whole seconds
    QRegularExpressionMatch m = QRegularExpression("no new record for (\\d+) s\\.").match(window.hangBannerText());
    return m.hasMatch() ? m.captured(1).toInt() : -1;
  };
  INFO(window.hangBannerText().toStdString());
  CHECK(silence() >= 2);
  CHECK_FALSE(window.hangBannerText().contains("or more"));
  const TimeNs last = state.snapshot()->tasksEnd;
  // The master's blocked bar grows with the present: the view ends at now.
  CHECK(waitUntil([&] { return silence() >= 4 && state.viewEnd() > last + 3'500'000'000LL; }, 15000));
  loader.stop();
}
