// Moving through a trace, headless: the wheel, Space, the position slider
// and panning, on the real MainWindow as a user drives it.
#include "diagram_view.h"
#include "main_window.h"
#include "replay_bar.h"
#include "row_actions.h"
#include "support.h"

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QSlider>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTest>
#include <QWheelEvent>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;

namespace {

struct NavWindow {
  ViewState state;
  MainWindow window;
  explicit NavWindow(const std::string& trace = "cholesky_hang.trace") : window(&state, options()) {
    state.setSnapshot(test::snapshotOf(test::dataPath(trace)));
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    REQUIRE(QTest::qWaitForWindowActive(&window));
    QApplication::processEvents();
  }
  static ViewerOptions options() {
    ViewerOptions o;
    o.size = {1280, 800};
    return o;
  }
  DiagramLayout layout() const { return DiagramLayout::make(window.diagram()->rect(), state); }
  // One wheel notch (120: away from the user, zoom in) at `x` of the plot.
  void wheel(double x, int delta = 120) {
    DiagramView* d = window.diagram();
    const QPointF at(x, layout().plot().center().y());
    QWheelEvent e(at, d->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                  false);
    QApplication::sendEvent(d, &e);
  }
};

}  // namespace

TEST_CASE("navigation: the wheel zooms around the pointer, in live mode as after a step") {
  NavWindow w;
  REQUIRE(w.state.live());  // a finished file opens live
  const double x = w.layout().plot().left() + w.layout().plot().width() * 0.1;
  const TimeNs under = w.layout().timeAt(x);
  const TimeNs width = w.state.viewEnd() - w.state.viewBegin();
  w.wheel(x);
  CHECK(w.state.viewEnd() - w.state.viewBegin() < width);
  // The time under the pointer stays under it (to a pixel).
  const TimeNs pixel = (w.state.viewEnd() - w.state.viewBegin()) / static_cast<TimeNs>(w.layout().plot().width());
  CHECK(std::llabs(w.layout().timeAt(x) - under) <= pixel);
  w.wheel(x, -120);  // and back out, still around the pointer
  CHECK(std::llabs(w.layout().timeAt(x) - under) <= 2 * pixel);
}

TEST_CASE("navigation: Space while following a live run pauses at the newest record, and the button says so") {
  NavWindow w;
  auto running = test::snapshotOf(test::dataPath("cholesky_hang.trace"));
  running->inputEnded = false;  // abmon still writing
  w.state.setSnapshot(running);
  REQUIRE(w.state.live());
  ReplayBar* bar = w.window.findChild<ReplayBar*>();
  QAction* play = bar->actions().front();
  CHECK(play->text() == "Pause");  // what Space does now
  const std::size_t newest = w.state.size();
  QTest::keyClick(&w.window, Qt::Key_Space);
  CHECK_FALSE(bar->playing());
  CHECK_FALSE(w.state.live());
  CHECK(w.state.position() == newest);
  CHECK(play->text() == "Play");
  QTest::keyClick(&w.window, Qt::Key_Space);  // paused at the end: play from the start
  CHECK(bar->playing());
  CHECK(play->text() == "Pause");
  QTest::keyClick(&w.window, Qt::Key_Space);
  CHECK_FALSE(bar->playing());
  CHECK(play->text() == "Play");
}

TEST_CASE("navigation: a finished trace opens live with Play on the button, and Space replays it") {
  NavWindow w;
  ReplayBar* bar = w.window.findChild<ReplayBar*>();
  QAction* play = bar->actions().front();
  CHECK(play->text() == "Play");
  QTest::keyClick(&w.window, Qt::Key_Space);
  CHECK(bar->playing());
  CHECK(w.state.position() < w.state.size());
}

TEST_CASE("navigation: a click on the position slider's groove jumps there") {
  NavWindow w("ge.trace");
  auto* slider = w.window.findChild<QSlider*>("position");
  REQUIRE(slider);
  w.state.setPosition(0);
  const QStyleOptionSlider opt = [&] {
    QStyleOptionSlider o;
    o.initFrom(slider);
    o.orientation = Qt::Horizontal;
    o.minimum = slider->minimum();
    o.maximum = slider->maximum();
    o.sliderPosition = slider->sliderPosition();
    return o;
  }();
  const QRect groove = slider->style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderGroove, slider);
  QTest::mouseClick(slider, Qt::LeftButton, {}, QPoint(groove.left() + groove.width() * 3 / 4, groove.center().y()));
  const double want = 0.75 * static_cast<double>(w.state.size());
  INFO("position " << w.state.position() << " of " << w.state.size());
  CHECK(std::abs(static_cast<double>(w.state.position()) - want) < 0.05 * static_cast<double>(w.state.size()));
}

TEST_CASE("navigation: panning and zooming out stay on the trace, with a margin") {
  NavWindow w("ge.trace");
  const ViewSnapshot& s = *w.state.snapshot();
  const TimeNs span = s.tasksEnd - s.tasksBegin;
  w.window.diagram()->setFocus();
  for (int i = 0; i < 20; ++i) QTest::keyClick(&w.window, Qt::Key_Left, Qt::ShiftModifier);
  CHECK(w.state.viewBegin() >= s.tasksBegin - span / 10);
  CHECK(w.state.viewBegin() < s.tasksBegin + span / 10);  // it went as far as it may
  for (int i = 0; i < 40; ++i) QTest::keyClick(&w.window, Qt::Key_Right, Qt::ShiftModifier);
  CHECK(w.state.viewEnd() <= s.tasksEnd + span / 10);
  CHECK(w.state.viewEnd() > s.tasksEnd - span / 10);
  const double x = w.layout().plot().left() + 10;
  for (int i = 0; i < 10; ++i) w.wheel(x, -120);  // zoom far out at the left edge
  CHECK(w.state.viewBegin() >= s.tasksBegin - span / 10);
  CHECK(w.state.viewEnd() <= s.tasksEnd + span / 10);
  CHECK(w.state.viewEnd() - w.state.viewBegin() >= span);  // the whole trace, not less
}

TEST_CASE("navigation: View > Rows folds tasks by name, a double-click on a folded name opens it, a row's menu hides it") {
  NavWindow w;
  const std::size_t tasks = w.layout().rows;
  REQUIRE(tasks >= 3);
  auto* byName = w.window.findChild<QAction*>("foldByName");
  REQUIRE(byName);
  CHECK(w.window.findChild<QAction*>("foldNone")->isChecked());  // a small trace: a row per task
  byName->trigger();
  CHECK(byName->isChecked());
  const DiagramLayout folded = w.layout();
  REQUIRE(folded.rows < tasks);
  TaskIndex row = 0;
  while (row < folded.rows && !folded.groupOfRow(row)) ++row;
  REQUIRE(row < folded.rows);
  // A double-click on the folded row's name opens it.
  DiagramView* d = w.window.diagram();
  const QPoint at(20, static_cast<int>(folded.rowTopOfRow(row) + folded.rowHeight / 2));
  QTest::mouseDClick(d, Qt::LeftButton, Qt::NoModifier, at);
  CHECK(w.state.rowChoice().unfolded.count(folded.groupOfRow(row)->key) == 1);
  CHECK(w.layout().rows == tasks);
  // A row's menu hides its task; Show every task brings it back.
  QMenu menu;
  addRowMenu(&menu, &w.state, 0);
  QAction* hide = nullptr;
  for (QAction* a : menu.actions())
    if (a->text().startsWith("Hide ")) hide = a;
  REQUIRE(hide);
  hide->trigger();
  CHECK(w.layout().rows == tasks - 1);
  CHECK(w.state.rowChoice().hidden.size() == 1);
  w.window.findChild<QAction*>("showEveryTask")->trigger();
  CHECK(w.layout().rows == tasks);
}
