// The overview strip and the diagram's time axis, driven by the mouse:
// dragging the box pans the diagram, pressing elsewhere centres it there,
// View > Overview hides the strip, a click on the axis moves the replay.
#include "diagram_view.h"
#include "main_window.h"
#include "overview_view.h"
#include "record_find.h"
#include "utilization.h"
#include "support.h"

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QTest>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

struct Window {
  ViewState state;
  MainWindow window{&state, ViewerOptions{}};
  Window() {
    state.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    QApplication::processEvents();
  }
  OverviewView* overview() { return window.findChild<OverviewView*>("overview"); }
};

}  // namespace

TEST_CASE("overview: the box is the diagram's range, dragging it pans, pressing elsewhere centres there") {
  Window w;
  OverviewView* o = w.overview();
  REQUIRE(o);
  REQUIRE(o->isVisible());
  const ViewSnapshot& s = *w.state.snapshot();
  const TimeNs width = (s.tasksEnd - s.tasksBegin) / 8;
  w.state.setViewRange(s.tasksBegin, s.tasksBegin + width);
  const DiagramLayout l = o->layout();
  QRectF box = o->box();
  CHECK(box.left() == Approx(l.xOf(s.tasksBegin)).margin(0.5));
  CHECK(box.width() == Approx(static_cast<double>(width) / l.nsPerPixel()).margin(1));
  // Grab the box's middle and drag it 100 px right: the range moves 100 px of the whole run.
  const QPoint from = box.center().toPoint();
  QTest::mousePress(o, Qt::LeftButton, {}, from);
  QTest::mouseMove(o, from + QPoint(100, 0));
  QTest::mouseRelease(o, Qt::LeftButton, {}, from + QPoint(100, 0));
  CHECK(w.state.viewEnd() - w.state.viewBegin() == width);
  CHECK(static_cast<double>(w.state.viewBegin() - s.tasksBegin) == Approx(100 * l.nsPerPixel()).epsilon(0.03));
  CHECK(o->box().center().x() == Approx(from.x() + 100).margin(1.5));
  // Press far right of the box: the diagram is centred there.
  const int x = static_cast<int>(l.plot().right()) - 40;
  QTest::mouseClick(o, Qt::LeftButton, {}, QPoint(x, 30));
  CHECK(w.state.viewEnd() - w.state.viewBegin() == width);
  CHECK(static_cast<double>((w.state.viewBegin() + w.state.viewEnd()) / 2) ==
        Approx(static_cast<double>(l.timeAt(x))).epsilon(1e-6));
  // The replay position is drawn from the same records as the diagram's.
  w.state.setPosition(10);
  QApplication::processEvents();
  CHECK(w.state.position() == 10);
}

TEST_CASE("overview: View > Overview hides and shows the strip") {
  Window w;
  QAction* toggle = w.window.findChild<QAction*>("showOverview");
  REQUIRE(toggle);
  bool inView = false;
  for (QAction* m : w.window.menuBar()->actions())
    if (m->text() == "&View") inView = m->menu()->actions().contains(toggle);
  CHECK(inView);
  toggle->trigger();
  CHECK_FALSE(w.overview()->isVisible());
  toggle->trigger();
  CHECK(w.overview()->isVisible());
}

TEST_CASE("diagram: a click on the time axis puts the replay at that time") {
  Window w;
  DiagramView* d = w.window.diagram();
  const DiagramLayout l = DiagramLayout::make(d->rect(), w.state);
  const ViewSnapshot& s = *w.state.snapshot();
  for (double frac : {0.1, 0.5, 0.7}) {
    const int x = static_cast<int>(l.plot().left() + frac * l.plot().width());
    QTest::mouseClick(d, Qt::LeftButton, {}, QPoint(x, static_cast<int>(l.plot().top()) - 5));
    const TimeNs t = l.timeAt(x);
    INFO("x " << x);
    CHECK_FALSE(w.state.live());
    // Every record before the position is at or before t, and the next one after it.
    const std::size_t p = w.state.position();
    for (std::size_t r = 0; r < p; ++r)
      if (s.order[r].task != kMonitorTask) CHECK(s.eventAt(r).time <= t);
    if (p < s.size()) CHECK(s.eventAt(p).time > t);
    CHECK(w.state.cursorTime() <= t);
  }
}

TEST_CASE("View > Show: message lines and barrier bands switch off and on, the diagram drawn as with those options") {
  ViewState state;
  MainWindow window{&state, ViewerOptions{}};
  state.setSnapshot(snapshotOf(dataPath("demo_hang_killed.trace")));  // messages and barriers
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  DiagramView* d = window.diagram();
  auto drawn = [&] { return d->grab().toImage().convertToFormat(QImage::Format_RGB32); };
  auto expected = [&](DiagramOptions o) {
    QImage img(d->size() * d->devicePixelRatio(), QImage::Format_RGB32);
    img.setDevicePixelRatio(d->devicePixelRatio());
    QPainter p(&img);
    paintDiagram(p, DiagramLayout::make(d->rect(), state), state, o);
    return img;
  };
  for (const char* name : {"showMessages", "showBarriers"}) {
    INFO(name);
    if (std::string(name) == "showBarriers") {
      // Bands narrower than a few pixels fold away: look at the first
      // barrier use closely enough to see its band.
      const ViewSnapshot* s = state.snapshot();
      REQUIRE(s->analysis);
      REQUIRE_FALSE(s->barriers().instances.empty());
      const BarrierInstance& b = s->barriers().instances.front();
      TimeNs first = kOpenEnd, last = 0;
      for (const BarrierVisit& v : b.visits) {
        first = std::min(first, v.arrive);
        if (v.depart != kOpenEnd) last = std::max(last, v.depart);
      }
      REQUIRE(last > first);
      state.setViewRange(first - (last - first), last + (last - first));
    }
    QAction* a = window.findChild<QAction*>(name);
    REQUIRE(a);
    CHECK(a->isChecked());
    const QImage on = drawn();
    a->trigger();
    DiagramOptions o;
    (std::string(name) == "showMessages" ? o.messages : o.barriers) = false;
    CHECK_FALSE(a->isChecked());
    const QImage off = drawn();
    CHECK(off != on);  // the trace has both messages and barriers in view
    CHECK(off == expected(o));
    a->trigger();
    CHECK(drawn() == on);
  }
}

TEST_CASE("utilization strip: the readout under the pointer counts the tasks at that time, and a scale of 0 to every task") {
  Window w;
  auto* u = w.window.findChild<UtilizationView*>("utilization");
  REQUIRE(u);
  const DiagramLayout l = DiagramLayout::make(QRect(0, 0, u->width(), 10), w.state);
  for (double frac : {0.1, 0.5, 0.9}) {
    const double x = l.plot().left() + frac * l.plot().width();
    const auto n = utilizationAt(w.state, l.timeAt(x));
    const QString text = u->readoutAt(x);
    INFO(text.toStdString());
    CHECK(text.contains(QStringLiteral("of 4 tasks: %1 computing, %2 communicating, %3 blocked, %4 in a barrier")
                            .arg(n[static_cast<std::size_t>(Activity::Computing)])
                            .arg(n[static_cast<std::size_t>(Activity::Communicating)])
                            .arg(n[static_cast<std::size_t>(Activity::Blocked)])
                            .arg(n[static_cast<std::size_t>(Activity::Barrier)])));
  }
  // At 0.16 s of the Cholesky run three nodes wait for work or unpack it: someone is counted.
  CHECK(u->readoutAt(l.xOf(w.state.snapshot()->firstTime() + 150'000'000)).contains("of 4 tasks"));
  CHECK(u->readoutAt(l.plot().left() - 10).isEmpty());  // over the label: the strip's own tip
  QImage img = u->grab().toImage();
  int ink = 0;  // the scale's numbers beside the bars
  for (int y = 0; y < img.height(); ++y)
    for (int x = DiagramLayout{}.labelWidth - 40; x < DiagramLayout{}.labelWidth - 3; ++x) ink += qGray(img.pixel(x, y)) < 150;
  CHECK(ink > 5);
}
