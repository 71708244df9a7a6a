// The window's words at the default size and at 800x500: what a narrow
// column cannot hold is cut in the middle, its end kept.
#include "diagram_view.h"
#include "event_log_view.h"
#include "main_window.h"
#include "support.h"
#include "task_table_model.h"

#include <QApplication>
#include <QHeaderView>
#include <QTableView>
#include <QTest>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

TEST_CASE("layout: Doing now is on screen and keeps its end (how long) when its column is narrow") {
  for (QSize size : {QSize(1280, 800), QSize(800, 500)}) {
    INFO(size.width() << "x" << size.height());
    ViewState state;
    ViewerOptions o;
    o.size = size;
    MainWindow window(&state, o);
    state.setSnapshot(snapshotOf(dataPath("demo_hang_killed.trace")));
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    auto* table = window.findChild<QTableView*>("taskTable");
    REQUIRE(table);
    const TaskIndex worker = taskNamed(*state.snapshot(), "xabdemo", 1);
    const QString full = table->model()->index(static_cast<int>(worker), TaskTableModel::DoingCol).data().toString();
    INFO(full.toStdString());
    REQUIRE(full.contains(" for "));
    // What the view draws in the cell: the text elided as the view elides it.
    const int width = table->columnWidth(TaskTableModel::DoingCol) - 2 * table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) - 8;
    const QString shown = table->fontMetrics().elidedText(full, table->textElideMode(), width);
    INFO(shown.toStdString());
    CHECK(shown.endsWith(full.mid(full.lastIndexOf(" for ") + 5)));  // how long
    CHECK(shown.startsWith(size.width() >= 1280 ? "blocked in recv" : "blocke"));
    // The column itself on screen (whole at the default size).
    CHECK(table->columnViewportPosition(TaskTableModel::DoingCol) >= 0);
    CHECK(table->columnViewportPosition(TaskTableModel::DoingCol) < table->viewport()->width());
    if (size.width() >= 1280)
      CHECK(table->columnViewportPosition(TaskTableModel::DoingCol) + table->columnWidth(TaskTableModel::DoingCol) <=
            table->viewport()->width());
  }
}

TEST_CASE("layout: at 800x500 the event log shows five rows and Doing now ends inside the table") {
  for (QSize size : {QSize(1280, 800), QSize(800, 500)}) {
    INFO(size.width() << "x" << size.height());
    ViewState state;
    ViewerOptions o;
    o.size = size;
    MainWindow window(&state, o);
    state.setSnapshot(snapshotOf(dataPath("demo_hang_killed.trace")));
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    QApplication::processEvents();
    auto* log = window.findChild<EventLogView*>("eventLog");
    REQUIRE(log);
    REQUIRE(log->isVisible());
    INFO("log viewport " << log->viewport()->height() << " px, rows of " << log->rowHeight() << " px");
    CHECK(log->viewport()->height() >= 5 * log->rowHeight());
    auto* table = window.findChild<QTableView*>("taskTable");
    const int end = table->columnViewportPosition(TaskTableModel::DoingCol) + table->columnWidth(TaskTableModel::DoingCol);
    std::string widths;
    for (int c = 0; c < table->model()->columnCount(); ++c) widths += std::to_string(table->columnWidth(c)) + " ";
    INFO("columns " << widths);
    INFO("Doing now ends at " << end << ", the table's viewport is " << table->viewport()->width() << " px wide");
    CHECK(end <= table->viewport()->width());
    // The diagram keeps a readable row per task.
    CHECK(window.diagram()->height() >= window.diagram()->minimumHeight());
  }
}
