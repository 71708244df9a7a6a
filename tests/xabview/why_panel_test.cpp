// The Why slow tab in the window: choosing a cause highlights its waits
// and its work on the diagram, the critical path is drawn on request, a
// double-click zooms to the cause's waits.
#include "main_window.h"
#include "panels.h"
#include "support.h"

#include <QApplication>
#include <QCheckBox>
#include <QPlainTextEdit>
#include <QTableView>
#include <QTest>

#include <catch2/catch.hpp>

#include <algorithm>

using namespace xab;
using namespace xab::view;

TEST_CASE("window: the Why slow tab highlights a chosen cause, draws the critical path, zooms to the waits") {
  ViewState state;
  MainWindow window(&state, ViewerOptions{});
  state.setSnapshot(test::snapshotOfText(test::lateWorkersTrace()));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  QApplication::processEvents();
  auto* panel = window.findChild<WhyPanel*>();
  REQUIRE(panel);
  CHECK(panel->text().contains("(b, 0)"));
  CHECK(state.highlights().empty());

  QTableView* causes = panel->causes();
  REQUIRE(causes->model()->rowCount() == 2);
  causes->setCurrentIndex(causes->model()->index(0, 0));
  const TaskIndex master = test::taskNamed(*state.snapshot(), "master", 0);
  const TaskIndex b = test::taskNamed(*state.snapshot(), "b", 0);
  auto has = [&](Highlight::Kind kind, TaskIndex task) {
    return std::any_of(state.highlights().begin(), state.highlights().end(),
                       [&](const Highlight& h) { return h.kind == kind && h.task == task; });
  };
  CHECK(has(Highlight::Wait, master));
  CHECK(has(Highlight::CauseWork, b));
  CHECK_FALSE(has(Highlight::Critical, master));

  auto* critical = window.findChild<QCheckBox*>("whyCriticalPath");
  REQUIRE(critical);
  critical->click();
  CHECK(has(Highlight::Critical, master));
  CHECK(has(Highlight::Wait, master));  // the cause stays chosen

  // The chosen cause survives a new snapshot of the same run.
  state.setSnapshot(test::snapshotOfText(test::lateWorkersTrace()));
  CHECK(has(Highlight::Wait, master));

  panel->zoomToCause();
  const TimeNs wait0 = 1000LL * 1'000'000'000 + 1100LL * 1'000'000, wait1 = 1000LL * 1'000'000'000 + 3000LL * 1'000'000;
  CHECK(state.viewBegin() < wait0);
  CHECK(state.viewBegin() > wait0 - (wait1 - wait0) / 2);
  CHECK(state.viewEnd() > wait1);
  CHECK(state.viewEnd() < wait1 + (wait1 - wait0) / 2);

  critical->click();
  causes->clearSelection();
  causes->setCurrentIndex({});
  CHECK(state.highlights().empty());
}
