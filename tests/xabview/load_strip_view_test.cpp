// The load strips in the window: View > Show > Load strips takes them (and
// their room) away and back, and hovering one tells the host's load, CPUs
// and the time under the pointer.
#include "diagram_view.h"
#include "main_window.h"
#include "support.h"

#include <QAction>
#include <QApplication>
#include <QHelpEvent>
#include <QTest>
#include <QToolTip>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

TEST_CASE("window: View > Show > Load strips switches the strips off and on, a strip's tool tip is the host's load then") {
  ViewState state;
  MainWindow window{&state, ViewerOptions{}};
  state.setSnapshot(snapshotOf(dataPath("why_overload.trace")));  // node1: load 3.0 to 3.2 on 1 CPU
  state.setPosition(state.size());
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  QApplication::processEvents();
  DiagramView* d = window.diagram();
  QAction* a = window.findChild<QAction*>("showLoadStrips");
  REQUIRE(a);
  CHECK(a->isChecked());
  const DiagramLayout on = DiagramLayout::make(d->rect(), state, d->layers().loadStrips);
  REQUIRE(on.strips.size() == 2);
  auto tipAt = [&](QPointF at) {
    QHelpEvent e(QEvent::ToolTip, at.toPoint(), d->mapToGlobal(at.toPoint()));
    QApplication::sendEvent(d, &e);
    return QToolTip::text();
  };
  const double y = on.stripTop(1) + on.stripHeight / 2;
  const QString tip = tipAt(QPointF(on.xOf(1002'500'000'000), y));
  INFO(tip.toStdString());
  CHECK(tip.startsWith("node1: load 3.10 on 1 CPU (3.10 per CPU)"));
  CHECK((tip.contains("t = 2.49") || tip.contains("t = 2.50")));  // from the first record, 1000.0001 s
  // Over the names: the load at the replay position (the end: 3.2).
  CHECK(tipAt(QPointF(20, y)).startsWith("node1: load 3.20 on 1 CPU"));
  // Over a row: the row's own tip, not the strip's.
  CHECK_FALSE(tipAt(QPointF(20, on.rowTopOfRow(2) + on.rowHeight / 2)).contains("load"));
  QToolTip::hideText();

  const QImage shown = d->grab().toImage();
  a->trigger();
  CHECK_FALSE(d->layers().loadStrips);
  const DiagramLayout off = DiagramLayout::make(d->rect(), state, d->layers().loadStrips);
  CHECK(off.strips.empty());
  CHECK(off.rowTopOfRow(2) < on.rowTopOfRow(2));  // no strip between vm's rows and node1's
  CHECK(d->grab().toImage() != shown);
  a->trigger();
  CHECK(d->grab().toImage() == shown);
}
