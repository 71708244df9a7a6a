// The window's words at the default size and at 800x500: what a narrow
// column cannot hold is cut in the middle, its end kept.
#include "diagram_view.h"
#include "event_log_view.h"
#include "main_window.h"
#include "options.h"
#include "support.h"
#include "task_table_model.h"

#include <QApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QScrollBar>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTest>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

ViewerOptions optionsAt(QSize size) {
  ViewerOptions o;
  o.size = size;
  return o;
}

// The main window at a size, shown with a trace of the tests' data.
struct Shown {
  ViewState state;
  MainWindow window;
  Shown(QSize size, const char* trace) : window(&state, optionsAt(size)) {
    state.setSnapshot(snapshotOf(dataPath(trace)));
    window.show();
  }
};

}  // namespace

TEST_CASE("layout: Doing now is on screen and keeps its end (how long) when its column is narrow") {
  for (QSize size : {QSize(1280, 800), QSize(800, 500)}) {
    INFO(size.width() << "x" << size.height());
    Shown w(size, "demo_hang_killed.trace");
    ViewState& state = w.state;
    MainWindow& window = w.window;
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    auto* table = window.findChild<QTableView*>("taskTable");
    REQUIRE(table);
    const TaskIndex worker = taskNamed(*state.snapshot(), "xabdemo", 1);
    const QString full = table->model()->index(static_cast<int>(worker), TaskTableModel::DoingCol).data().toString();
    INFO(full.toStdString());
    REQUIRE(full.contains(" for "));
    // What the view draws in the cell: the text elided as the view elides it,
    // on one line (wrapped text is cut at the end of its last visible line).
    CHECK_FALSE(table->wordWrap());
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

namespace {

// The event log shows five rows, Doing now ends inside the task table and
// the diagram keeps its least height.
void checkShortLayout(MainWindow& window) {
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
  CHECK(table->columnWidth(TaskTableModel::DoingCol) >= 100);  // its start and how long, elided between
  // The diagram keeps a readable row per task.
  CHECK(window.diagram()->height() >= window.diagram()->minimumHeight());
}

}  // namespace

TEST_CASE("layout: at 800x500 the event log shows five rows and Doing now ends inside the table") {
  // why_overload has CPU samples: the task table's CPU column too.
  for (const char* trace : {"demo_hang_killed.trace", "why_overload.trace"})
    for (QSize size : {QSize(1280, 800), QSize(800, 500)}) {
      INFO(trace << " at " << size.width() << "x" << size.height());
      Shown w(size, trace);
      REQUIRE(QTest::qWaitForWindowExposed(&w.window));
      QApplication::processEvents();
      checkShortLayout(w.window);
    }
}

TEST_CASE("layout: a window made 800x500 after it opened at 1280x800 lays out as one opened at 800x500") {
  Shown w(QSize(1280, 800), "why_overload.trace");
  REQUIRE(QTest::qWaitForWindowExposed(&w.window));
  QApplication::processEvents();
  w.window.resize(800, 500);
  QApplication::processEvents();
  REQUIRE(w.window.height() == 500);
  checkShortLayout(w.window);
}

namespace {

// `tasks` tasks on one host, each starting and exiting.
std::string manyTasks(int tasks) {
  std::string out = "#xab-trace 1 abmon=t40001 host=vm pid=4242 start=1763680000.000000000\n";
  char line[256];
  for (int i = 0; i < tasks; ++i) {
    const long long t = 1763680000'100000000LL + i * 1'000'000LL;
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x mytid rc=t%x name=w host=vm parent=none lang=c pid=%d\n",
                  t / 1000000000, t % 1000000000, t / 1000000000, t % 1000000000, 0x40002 + i, 0x40002 + i, 100 + i);
    out += line;
  }
  for (int i = 0; i < tasks; ++i) {
    const long long t = 1763680001'100000000LL + i * 1'000'000LL;
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x exit rc=0\n", t / 1000000000, t % 1000000000,
                  t / 1000000000, t % 1000000000, 0x40002 + i);
    out += line;
  }
  return out;
}

}  // namespace

TEST_CASE("layout: at 800x500 a window of many tasks stays 800x500, folded rows leave the log its rows") {
  for (int tasks : {40, 600}) {  // 600: folded by name (over 512), one row
    INFO(tasks << " tasks");
    ViewState state;
    ViewerOptions o;
    o.size = {800, 500};
    MainWindow window(&state, o);
    state.setSnapshot(snapshotOfText(manyTasks(tasks)));
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    QApplication::processEvents();
    CHECK(window.height() <= 500);
    auto* log = window.findChild<EventLogView*>("eventLog");
    INFO("log viewport " << log->viewport()->height() << " px, rows of " << log->rowHeight() << " px");
    // Folded or not, the log keeps five rows: the diagram its least height.
    CHECK(log->viewport()->height() >= 5 * log->rowHeight());
  }
}

TEST_CASE("layout: the task table's CPU column only for a trace with samples") {
  for (const char* name : {"demo_hang_killed.trace", "why_overload.trace"}) {
    INFO(name);
    Shown w(QSize(800, 500), name);
    ViewState& state = w.state;
    MainWindow& window = w.window;
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    auto* table = window.findChild<QTableView*>("taskTable");
    REQUIRE(table);
    const bool sampled = state.snapshot()->analysis->model.samples.anyTask;
    CHECK(sampled == (std::string(name) == "why_overload.trace"));
    CHECK(table->isColumnHidden(TaskTableModel::CpuCol) == !sampled);
  }
}

TEST_CASE("layout: at 800x500 the Tag box shows its placeholder whole and the Why slow causes fit their table") {
  for (QSize size : {QSize(1280, 800), QSize(800, 500)}) {
    INFO(size.width() << "x" << size.height());
    Shown w(size, "why_overload.trace");
    MainWindow& window = w.window;
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    QApplication::processEvents();
    auto* tag = window.findChild<QLineEdit*>("logTag");
    REQUIRE(tag);
    // QLineEdit draws its text inside the frame and a margin of 2 pixels a side.
    const int room = tag->width() - 2 * tag->style()->pixelMetric(QStyle::PM_DefaultFrameWidth) - 4 -
                     tag->textMargins().left() - tag->textMargins().right();
    INFO("Tag box " << tag->width() << " px, room " << room << " px");
    CHECK(tag->fontMetrics().horizontalAdvance(tag->placeholderText()) <= room);

    window.showTab("why");
    REQUIRE(waitUntil([&] { return w.state.snapshot()->whyReady(); }));
    QApplication::processEvents();
    auto* causes = window.findChild<QTableView*>("whyCauses");
    REQUIRE(causes);
    REQUIRE(causes->model()->rowCount() > 0);
    std::string widths;
    for (int c = 0; c < causes->model()->columnCount(); ++c) widths += std::to_string(causes->columnWidth(c)) + " ";
    INFO("causes " << causes->horizontalHeader()->length() << " px (" << widths << ") in a viewport of "
                   << causes->viewport()->width());
    CHECK_FALSE(causes->horizontalScrollBar()->isVisible());
    CHECK(window.width() <= size.width());
  }
}

TEST_CASE("layout: at 1280x800 the rows of a trace of few tasks fill most of the diagram") {
  Shown w(QSize(1280, 800), "deadlock.trace");
  REQUIRE(QTest::qWaitForWindowExposed(&w.window));
  QApplication::processEvents();
  DiagramView* d = w.window.diagram();
  const auto layout = DiagramLayout::make(d->rect(), w.state);
  const double plot = d->height() - layout.axisHeight - 2;
  INFO(layout.rows << " rows of " << layout.rowHeight << " px in a diagram of " << plot << " px");
  REQUIRE(layout.rows >= 2);
  REQUIRE(layout.rows <= 4);
  CHECK(layout.rowHeight * static_cast<double>(layout.rows) >= 0.6 * plot);
  CHECK(layout.rowHeight <= kMaxRowHeight);
}

namespace {

// Counts the cells the view measures to size its columns.
class CountingDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    ++measured;
    return QStyledItemDelegate::sizeHint(option, index);
  }
  mutable int measured = 0;
};

}  // namespace

TEST_CASE("layout: a Step with 10,000 tasks measures only the task table's rows in view") {
  ViewState state;
  MainWindow window(&state, optionsAt({1280, 800}));
  state.setSnapshot(snapshotOfText(manyTasks(10000)));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  QApplication::processEvents();
  auto* table = window.findChild<QTableView*>("taskTable");
  REQUIRE(table);
  auto* counting = new CountingDelegate(table);
  table->setItemDelegate(counting);
  state.setPosition(5000);
  QApplication::processEvents();
  counting->measured = 0;
  state.step(1);
  QApplication::processEvents();
  // Qt's default measures 1,000 rows a column at every change (each Step
  // changes every cell): a Step cost tens of milliseconds.
  INFO(counting->measured << " cells measured");
  CHECK(counting->measured <= 5 * 200);
  // Steps count what each task shows by the records passed over: the same
  // as counting afresh.
  for (long d : {1L, 1L, -1L, 30L, -50L}) state.step(d);
  ViewState fresh;
  fresh.setSnapshot(state.snapshotPtr());
  fresh.setPosition(state.position());
  CHECK(fresh.cursorTime() == state.cursorTime());
  bool same = true;
  for (TaskIndex t = 0; t < 10000; ++t) same = same && fresh.shownOf(t) == state.shownOf(t);
  CHECK(same);
}

TEST_CASE("layout: on a screen the default window does not fit with its frame, it opens maximized") {
  int exitCode = 0;
  const ViewerOptions plain = parseOptions({"xabview", "run.trace"}, exitCode);
  REQUIRE(exitCode < 0);  // no error: run
  CHECK(startMaximized(plain, QSize(1280, 800)));    // a 1280x800 laptop: the status bar would be off-screen
  CHECK(startMaximized(plain, QSize(1366, 740)));    // a panel takes some height
  CHECK_FALSE(startMaximized(plain, QSize(1920, 1050)));
  CHECK_FALSE(startMaximized(plain, QSize()));      // no screen known: as asked
  const ViewerOptions sized = parseOptions({"xabview", "--size", "1280x800", "run.trace"}, exitCode);
  CHECK_FALSE(startMaximized(sized, QSize(1280, 800)));  // the size asked for, exactly
  const ViewerOptions scripted = parseOptions({"xabview", "--screenshot", "a.png", "run.trace"}, exitCode);
  CHECK_FALSE(startMaximized(scripted, QSize(800, 600)));  // pictures and tests keep their size
}
