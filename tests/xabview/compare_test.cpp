// Two runs side by side: the second's diagram follows the first's range
// aligned at their first task records, and the Compare tab ranks what
// differs once both are read (a worker 1 s less late in the second run).
#include "compare_view.h"
#include "main_window.h"
#include "support.h"

#include <QApplication>
#include <QTemporaryDir>
#include <QTest>

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

using namespace xab;
using namespace xab::view;

TEST_CASE("window: a second run beside the first, aligned and zoomed together, and what differs ranked") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  std::string second = test::lateWorkersTrace();  // (b, 0) sends at 3.0 s ...
  for (std::size_t at; (at = second.find("1003.000000000")) != std::string::npos;)
    second.replace(at, 14, "1002.000000000");  // ... and at 2.0 s in the second run
  const QString file = dir.filePath("second.trace");
  std::ofstream(file.toStdString()) << second;

  ViewState state;
  MainWindow window(&state, ViewerOptions{});
  state.setSnapshot(test::snapshotOfText(test::lateWorkersTrace()));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  window.compareWith(file);
  ComparePanel* panel = window.comparePanel();
  QTRY_VERIFY_WITH_TIMEOUT(panel->ready(), 30000);
  REQUIRE(panel->model()->rowCount() > 0);
  const RunDifference& top = panel->model()->comparison().differences.front();
  INFO(panel->text().toStdString());
  // The master waits a second less for (b, 0), and so computes a second
  // longer before its exit: the two largest changes.
  CHECK(std::abs(top.delta) == Approx(1.0).margin(0.01));
  CHECK(panel->text().contains("wait: late sender | (master, 0) | 2.000 s | 1.000 s | -1.000 s"));

  ViewState* b = window.compareView()->second();
  REQUIRE(b->snapshot());
  auto aligned = [&] {
    return b->viewBegin() - b->snapshot()->tasksBegin == state.viewBegin() - state.snapshot()->tasksBegin &&
           b->viewEnd() - b->snapshot()->tasksBegin == state.viewEnd() - state.snapshot()->tasksBegin;
  };
  CHECK(aligned());
  state.zoom(0.5, state.snapshot()->tasksBegin + 1'000'000'000);  // the first zoomed: the second follows
  CHECK(aligned());
  b->pan(0.25);  // and the other way round
  CHECK(aligned());
  CHECK(window.currentTab() != "compare");  // opening a comparison does not take the panel
  window.showTab("compare");
  CHECK(window.currentTab() == "compare");
}
