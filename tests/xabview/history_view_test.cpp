// Under a memory budget: a double-click on the diagram at a time only the
// run's summary holds reads those records again and shows them; Live (End)
// goes back to the newest window.
#include "diagram_painter.h"
#include "diagram_view.h"
#include "find_bar.h"
#include "input_session.h"
#include "main_window.h"
#include "support.h"

#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <catch2/catch.hpp>

#include <fstream>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

TEST_CASE("a double-click before a budget's window shows the past read again, and End the newest records") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath("ring.trace");
  {
    std::ofstream out(path.toStdString());
    out << slowRingTrace(3000, 8);  // 96,000 task records: more than the least window
  }
  ViewState state;
  MainWindow window(&state, ViewerOptions{});
  TraceLoader::Options options{path, false, 100, false, false, nullptr};
  options.budget = 8 << 20;  // the least window: 65,536 records
  InputSession input(&state, options);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  input.start();
  REQUIRE(waitUntil([&] { return state.snapshot() && state.snapshot()->inputEnded && state.snapshot()->analysisComplete(); }));
  const SnapshotPtr live = state.snapshotPtr();
  REQUIRE(live->history);
  REQUIRE(live->windowStart() > 0);
  CHECK(live->runRecords() == 96'000 + 8 + 8);  // and the mytids and exits
  state.fitAll();
  CHECK(state.viewBegin() == live->runBegin());  // the whole run, not the window

  // A double-click a little right of the run's start: the past.
  auto* diagram = window.findChild<DiagramView*>();
  REQUIRE(diagram);
  const DiagramLayout layout = DiagramLayout::make(diagram->rect(), state);
  const TimeNs target = live->runBegin() + (live->trace->cut().time - live->runBegin()) / 5;
  const int x = static_cast<int>(layout.xOf(target));
  const int y = static_cast<int>(layout.rowTopOfRow(0) + layout.rowHeight / 2);
  bool shown = false;
  QObject::connect(&input, &InputSession::historyShown, [&](bool on) { shown = on; });
  INFO("x " << x << " y " << y << " plot " << layout.plot().left() << ".." << layout.plot().right() << " target " << target
            << " history " << live->history->origin() << ".." << live->history->end() << " cut " << live->trace->cut().time);
  QString failure;
  QObject::connect(&input, &InputSession::loadFailed, [&](const QString& why) { failure = why; });
  QTest::mouseDClick(diagram, Qt::LeftButton, {}, QPoint(x, y));
  INFO(failure.toStdString());
  REQUIRE(waitUntil([&] { return shown; }));
  const ViewSnapshot* past = state.snapshot();
  REQUIRE(past->fromHistory);
  CHECK(past->windowStart() < live->windowStart());
  CHECK(past->tasksBegin <= target);
  CHECK(past->tasksEnd >= target);
  CHECK(state.cursorTime() <= target + 10'000'000);
  CHECK_FALSE(state.live());
  CHECK(window.statusText().contains("the past: records"));

  // Live goes back to the newest window, which stayed current.
  state.setLive(true);
  REQUIRE_FALSE(state.snapshot()->fromHistory);
  CHECK(state.snapshot()->windowStart() == live->windowStart());
  CHECK(state.live());
  CHECK_FALSE(shown);
}
