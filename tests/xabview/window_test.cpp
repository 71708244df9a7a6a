// The window's controls, headless (every control clicked while
// 16 workers did round trips with a master).  Each case drives the real
// MainWindow with keys, clicks and tool tips, as a user does.
#include "activity.h"
#include "diagram_hit.h"
#include "diagram_view.h"
#include "event_log_view.h"
#include "main_window.h"
#include "output_panel.h"
#include "panels.h"
#include "replay_bar.h"
#include "support.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSlider>
#include <QTabBar>
#include <QTableView>
#include <QElapsedTimer>
#include <QTest>
#include <QToolButton>
#include <QToolBar>
#include <QToolTip>

#include <catch2/catch.hpp>

#include <cstdio>
#include <optional>
#include <string>

using namespace xab;
using namespace xab::view;

namespace {

// A master and `workers` workers; every round the master sends each worker
// an int and waits for its answer (the 16-task round-trip run of
// docs/performance.md).
std::string roundTrips(int workers, int rounds) {
  std::string out = "#xab-trace 1 abmon=t40001 host=vm pid=4242 start=1763680000.000000000\n";
  long long t = 1763680000'100000000LL;
  char line[256];
  auto rec = [&](int tid, const std::string& rest) {
    t += 1'000'000;  // 1 ms per record
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x %s\n", t / 1000000000, t % 1000000000,
                  t / 1000000000, t % 1000000000, tid, rest.c_str());
    out += line;
  };
  const int master = 0x40002;
  auto worker = [](int i) { return 0x40003 + i; };
  auto tid = [](int v) { char b[16]; std::snprintf(b, sizeof b, "t%x", v); return std::string(b); };
  rec(master, "mytid rc=t40002 name=master host=vm parent=none lang=c pid=200");
  for (int i = 0; i < workers; ++i)
    rec(worker(i), "mytid rc=" + tid(worker(i)) + " name=worker host=vm parent=t40002 lang=c pid=" +
                       std::to_string(201 + i));
  int serial = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < workers; ++i) {
      std::string s = std::to_string(++serial);
      rec(worker(i), "recv.begin src=t40002 tag=1");
      rec(master, "initsend enc=0 rc=1");
      rec(master, "pkint type=int n=1 stride=1 rc=0");
      rec(master, "send dst=" + tid(worker(i)) + " tag=1 bytes=4 serial=" + s + " rc=0");
      rec(worker(i), "recv src=t40002 tag=1 bytes=4 serial=" + s + " rc=1");
      rec(worker(i), "upkint type=int n=1 stride=1 rc=0");
      rec(master, "recv.begin src=" + tid(worker(i)) + " tag=2");
      s = std::to_string(++serial);
      rec(worker(i), "initsend enc=0 rc=1");
      rec(worker(i), "send dst=t40002 tag=2 bytes=4 serial=" + s + " rc=0");
      rec(master, "recv src=" + tid(worker(i)) + " tag=2 bytes=4 serial=" + s + " rc=1");
    }
  }
  return out;
}

struct Window {
  ViewState state;
  MainWindow window;
  explicit Window(QSize size = {1280, 800}, int workers = 16, int rounds = 20)
      : window(&state, optionsOfSize(size)) {
    state.setSnapshot(test::snapshotOfText(roundTrips(workers, rounds)));
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    REQUIRE(QTest::qWaitForWindowActive(&window));
    QApplication::processEvents();
  }
  static ViewerOptions optionsOfSize(QSize size) {
    ViewerOptions o;
    o.size = size;
    return o;
  }
  ReplayBar* replay() { return window.findChild<ReplayBar*>(); }
  QAction* button(const QString& text) {
    for (QAction* a : replay()->actions())
      if (a->text() == text) return a;
    FAIL("no button " << text.toStdString());
    return nullptr;
  }
  QComboBox* taskBox() { return window.findChild<QComboBox*>("logTask"); }
};

// Dark pixels (text) in a rectangle of an image.
int inkIn(const QImage& img, const QRect& r) {
  int n = 0;
  for (int y = std::max(0, r.top()); y <= std::min(img.height() - 1, r.bottom()); ++y)
    for (int x = std::max(0, r.left()); x <= std::min(img.width() - 1, r.right()); ++x)
      n += qGray(img.pixel(x, y)) < 110;
  return n;
}

}  // namespace

TEST_CASE("window: PgDn/PgUp step 100 records and ] / [ change the speed") {
  Window w;
  w.state.setPosition(0);
  w.window.diagram()->setFocus();
  QTest::keyClick(&w.window, Qt::Key_PageDown);
  CHECK(w.state.position() == 100);
  QTest::keyClick(&w.window, Qt::Key_PageDown);
  CHECK(w.state.position() == 200);
  QTest::keyClick(&w.window, Qt::Key_PageUp);
  CHECK(w.state.position() == 100);
  const double speed = w.replay()->recordsPerSecond();
  QTest::keyClick(&w.window, Qt::Key_BracketRight);
  CHECK(w.replay()->recordsPerSecond() > speed * 2);
  QTest::keyClick(&w.window, Qt::Key_BracketLeft);
  QTest::keyClick(&w.window, Qt::Key_BracketLeft);
  CHECK(w.replay()->recordsPerSecond() < speed);
}

TEST_CASE("window: double-clicking a task shows it in the Task box, and 'every task' clears the filter") {
  Window w;
  auto* table = w.window.findChild<QTableView*>("taskTable");
  REQUIRE(table);
  QModelIndex row3 = table->model()->index(3, 0);
  const QPoint at = table->visualRect(row3).center();
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
  QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, at);
  REQUIRE(w.state.filter().tasks == std::set<TaskIndex>{3});
  CHECK(w.taskBox()->currentText().toStdString() == w.state.snapshot()->trace->label(3));
  w.taskBox()->setCurrentIndex(0);  // "every task"
  CHECK(w.taskBox()->currentText() == "every task");
  CHECK(w.state.filter().empty());
}

TEST_CASE("window: Home, End and arrows inside the Task drop-down are the drop-down's, not the replay's") {
  Window w;
  w.state.setPosition(50);
  w.taskBox()->setFocus();
  REQUIRE(QApplication::focusWidget() == w.taskBox());
  QTest::keyClick(w.taskBox(), Qt::Key_End);
  QTest::keyClick(w.taskBox(), Qt::Key_Home);
  CHECK(w.state.position() == 50);
  CHECK(!w.state.live());
  CHECK(w.taskBox()->currentIndex() == 0);
  // Elsewhere the keys still drive the replay.
  w.window.diagram()->setFocus();
  QTest::keyClick(&w.window, Qt::Key_Home);
  CHECK(w.state.position() == 0);
}

TEST_CASE("window: hovering over the task names tells the task, never a time before the trace") {
  Window w;
  DiagramView* d = w.window.diagram();
  auto layout = DiagramLayout::make(d->rect(), w.state);
  auto tipAt = [&](QPoint at) {
    QHelpEvent e(QEvent::ToolTip, at, d->mapToGlobal(at));
    QApplication::sendEvent(d, &e);
    return QToolTip::text();
  };
  QString label = tipAt(QPoint(20, static_cast<int>(layout.rowTop(2) + layout.rowHeight / 2)));
  CHECK(!label.contains("t = -"));
  CHECK(label.contains(QString::fromStdString(w.state.snapshot()->trace->label(2))));
  QString plot = tipAt(QPoint(static_cast<int>(layout.plot().left()) + 5, static_cast<int>(layout.rowTop(2) + layout.rowHeight / 2)));
  CHECK(plot.contains("t = 0."));
  QToolTip::hideText();
}

TEST_CASE("window: the replay line stays out of the Utilization label") {
  Window w;
  w.state.setPosition(w.state.size() / 2);
  const TimeNs now = w.state.cursorTime();
  const QRect area(0, 0, 800, 70);
  const int labelWidth = DiagramLayout{}.labelWidth;
  const TimeNs ns = 1'000'000;  // per pixel; the line would fall 60 px left of the plot
  w.state.setViewRange(now + 60 * ns, now + (60 + 800 - labelWidth) * ns);
  QImage img(area.size(), QImage::Format_RGB32);
  {
    QPainter p(&img);
    paintUtilization(p, area, labelWidth, w.state);
  }
  int red = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < labelWidth; ++x) red += QColor(img.pixel(x, y)) == QColor(0xd5, 0x00, 0x00);
  CHECK(red == 0);
}

TEST_CASE("window: First and Live bring the event log to the first and the newest rows") {
  Window w;
  auto* log = w.window.findChild<EventLogView*>("eventLog");
  REQUIRE(log);
  w.window.showTab("log");
  w.state.setPosition(w.state.size() / 2);
  QApplication::processEvents();
  REQUIRE(log->firstVisibleRow() > 100);
  w.button("First")->trigger();
  QApplication::processEvents();
  CHECK(log->firstVisibleRow() == 0);
  w.state.setPosition(w.state.size() / 2);
  w.button("Live")->trigger();
  QApplication::processEvents();
  CHECK(log->firstVisibleRow() + log->visibleRows() >= log->model()->rowCount());
  w.button("Live")->trigger();  // again, while live: stays on
  CHECK(w.button("Live")->isChecked());
  CHECK(w.state.live());
}

TEST_CASE("window: Play/Pause does not move the other buttons, and Stop stops and goes back to the start") {
  Window w;
  QWidget* live = w.replay()->widgetForAction(w.button("Live"));
  REQUIRE(live);
  const int x = live->mapTo(&w.window, QPoint(0, 0)).x();
  w.state.setPosition(100);
  QTest::keyClick(&w.window, Qt::Key_Space);
  REQUIRE(w.replay()->playing());
  QApplication::processEvents();
  CHECK(live->mapTo(&w.window, QPoint(0, 0)).x() == x);
  w.button("Stop")->trigger();
  CHECK(!w.replay()->playing());
  CHECK(w.state.position() == 0);
}

TEST_CASE("window: the replay speed is shown in records per second and follows [ and ]") {
  Window w;
  auto* speed = w.replay()->findChild<QToolButton*>("speedValue");
  REQUIRE(speed);
  CHECK(speed->text().contains(QString::number(std::lround(w.replay()->recordsPerSecond()))));
  CHECK(speed->text().contains("/s"));
  QString before = speed->text();
  QTest::keyClick(&w.window, Qt::Key_BracketRight);
  CHECK(speed->text() != before);
  CHECK(speed->text().contains(QString::number(std::lround(w.replay()->recordsPerSecond()))));
}

TEST_CASE("window: the replay speed in trace time: x1 plays the run as fast as it went, the backslash key and a click switch units") {
  // 2 workers x 20 rounds: the records are 1 ms apart, 0.4 s of run.
  Window w({1280, 800}, 2, 20);
  auto* speed = w.replay()->findChild<QToolButton*>("speedValue");
  REQUIRE(speed);
  CHECK_FALSE(w.replay()->speedInTraceTime());
  QTest::keyClick(&w.window, Qt::Key_Backslash);
  REQUIRE(w.replay()->speedInTraceTime());
  CHECK(w.replay()->timeFactor() == Approx(1.0));
  CHECK(speed->text().trimmed() == QString::fromUtf8("\u00d71"));
  QTest::keyClick(&w.window, Qt::Key_BracketRight);
  CHECK(speed->text().trimmed() == QString::fromUtf8("\u00d73.16"));
  QTest::keyClick(&w.window, Qt::Key_BracketLeft);
  // At x1, 0.4 s of run takes 0.4 s at least: after 0.15 s it is not done,
  // and the trace time shown never runs ahead of the real time played.
  w.state.setPosition(0);
  QElapsedTimer clock;
  clock.start();
  QTest::keyClick(&w.window, Qt::Key_Space);
  REQUIRE(w.replay()->playing());
  const TimeNs first = w.state.snapshot()->event(w.state.snapshot()->order[0]).time;
  QTest::qWait(150);
  CHECK(w.state.position() > 0);
  CHECK_FALSE(w.state.atEnd());
  CHECK(w.state.cursorTime() - first <= clock.elapsed() * 1'000'000 + 2'000'000);
  REQUIRE(QTest::qWaitFor([&] { return w.state.atEnd(); }, 20000));
  CHECK(clock.elapsed() >= 390);
  CHECK_FALSE(w.replay()->playing());
  // Back to records per second by a click: the rate it had.
  const double rate = w.replay()->recordsPerSecond();
  speed->click();
  CHECK_FALSE(w.replay()->speedInTraceTime());
  CHECK(speed->text().contains(QString::number(std::lround(rate)) + " rec/s"));
}

TEST_CASE("window: at 800x500 every task is labelled and the position slider is on the bar") {
  Window w({800, 500});
  CHECK(w.window.height() <= 500);
  CHECK(w.window.width() <= 800);
  auto* position = w.window.findChild<QSlider*>("position");
  REQUIRE(position);
  CHECK(position->isVisible());
  CHECK(position->width() >= 100);
  // The panels beside the task table leave it room for more than the names.
  CHECK(w.window.findChild<QTableView*>("taskTable")->width() >= 300);
  DiagramView* d = w.window.diagram();
  QImage img = d->grab().toImage();
  auto layout = DiagramLayout::make(d->rect(), w.state);
  for (std::size_t t = 0; t < layout.tasks; ++t) {
    INFO("task " << t << ", rows of " << layout.rowHeight << " px");
    CHECK(inkIn(img, QRect(2, static_cast<int>(layout.rowTop(t)), layout.labelWidth - 8, static_cast<int>(layout.rowHeight))) > 5);
  }
}

TEST_CASE("window: the task table shows all 17 tasks at the default size") {
  Window w;
  auto* table = w.window.findChild<QTableView*>("taskTable");
  REQUIRE(table->model()->rowCount() == 17);
  QRect last = table->visualRect(table->model()->index(16, 0));
  CHECK(last.bottom() < table->viewport()->height());
  CHECK(last.top() >= 0);
}

TEST_CASE("window: the Barriers tab of a trace without barriers says so and draws no bars") {
  Window w;
  w.window.showTab("barriers");
  auto* chart = w.window.findChild<BarrierChart*>("barrierChart");
  REQUIRE(chart);
  chart->resize(400, 200);
  QImage img = chart->grab().toImage();
  CHECK(inkIn(img, QRect(0, 24, img.width(), img.height() - 24)) == 0);
  CHECK(inkIn(img, QRect(0, 0, img.width(), 22)) > 20);  // the words
}

TEST_CASE("window: the legend is on screen, whole, at the default size and at 800x500") {
  for (QSize size : {QSize(1280, 800), QSize(800, 500)}) {
    Window w(size);
    auto* legend = w.window.findChild<QWidget*>("legend");
    REQUIRE(legend);
    CHECK(legend->isVisible());
    CHECK(legend->height() >= legend->heightForWidth(legend->width()));
    QImage img = legend->grab().toImage();
    CHECK(inkIn(img, img.rect()) > 100);  // the words
  }
}

TEST_CASE("window: a narrow legend keeps to three lines, the entries without room under more...") {
  LegendView legend;
  const int line = QFontMetrics(legend.font()).height() + 1;
  const auto all = diagramLegend();
  for (int width : {1200, 600, 300}) {
    INFO("width " << width);
    CHECK(legend.heightForWidth(width) <= legend.maxRows() * line + 3);
    const auto pl = legend.place(width);
    REQUIRE(pl.rects.size() == all.size());
    std::size_t shown = 0;
    for (const QRect& r : pl.rects) {
      if (r.isNull()) continue;
      ++shown;
      CHECK(r.right() < width);
      CHECK_FALSE(r.intersects(pl.more));
    }
    // Whatever has no room is under "more...", which is inside the width.
    CHECK((shown == all.size()) == pl.more.isNull());
    if (!pl.more.isNull()) CHECK(pl.more.right() < width);
  }
  CHECK(legend.place(300).rects.size() > 0);
  CHECK_FALSE(legend.place(300).more.isNull());  // 300 px cannot hold every entry in three lines
}

TEST_CASE("window: every panel's tab is whole on screen and one click away at the default size and at 800x500") {
  for (QSize size : {QSize(1280, 800), QSize(800, 500)}) {
    INFO(size.width() << "x" << size.height());
    Window w(size);
    CHECK(w.window.size() == size);  // the window itself whole on such a screen
    for (int i = 0; i < panelNames().size(); ++i) {
      const QString name = panelNames()[i];
      INFO(name.toStdString());
      if (auto* bar = w.window.findChild<QTabBar*>(); bar && bar->isVisible()) {  // a tab bar: every tab on it whole, none behind its arrows
        CHECK(bar->rect().contains(bar->tabRect(i)));
        continue;
      }
      auto* b = w.window.findChild<QToolButton*>("panelTab-" + name);
      REQUIRE(b);
      CHECK(b->isVisible());
      CHECK(b->width() >= b->sizeHint().width());  // its whole name
      const QRect inWindow(b->mapTo(&w.window, QPoint(0, 0)), b->size());
      CHECK(w.window.rect().contains(inWindow));
      CHECK(b->visibleRegion().boundingRect() == b->rect());  // nothing over it
      QTest::mouseClick(b, Qt::LeftButton);
      CHECK(w.window.currentTab() == name);
      CHECK(b->isChecked());
    }
  }
}

TEST_CASE("window: the status bar's words fit at the default size and at 800x500 with the position and the mode kept") {
  for (QSize size : {QSize(1280, 800), QSize(800, 500)}) {
    INFO(size.width() << "x" << size.height());
    Window w(size);
    w.state.setPosition(10);  // paused: the mode says so
    auto* status = w.window.findChild<QLabel*>("status");
    REQUIRE(status);
    REQUIRE(test::waitUntil([&] { return status->text().contains("paused"); }));
    const QString shown = status->text();
    INFO(shown.toStdString());
    CHECK(status->fontMetrics().horizontalAdvance(shown) <= status->width());
    CHECK(shown.contains("record 10 of"));
    CHECK(shown.contains("paused"));
    // Whatever is left out is a whole part of the full text.
    for (const QString& part : shown.split(" | ")) CHECK(w.window.statusText().contains(part));
    CHECK(status->toolTip().contains("record 10 of"));  // the whole text
  }
}

TEST_CASE("window: the barrier chart's title wraps in a narrow panel instead of being cut") {
  ViewState state;
  state.setSnapshot(test::snapshotOf(test::dataPath("barrier.trace")));
  // The title's ink: dark pixels above the first bar.
  auto titleInk = [&](int width) {
    BarrierChart chart(&state);
    chart.resize(width, 240);
    const QImage img = chart.grab().toImage();
    int firstBar = img.height();
    for (int y = 0; y < img.height() && firstBar == img.height(); ++y)
      for (int x = 0; x < img.width(); ++x)
        if (QColor(img.pixel(x, y)) == activityColor(Activity::Barrier)) {
          firstBar = y;
          break;
        }
    return inkIn(img, QRect(0, 0, img.width(), firstBar - 3));
  };
  const int wide = titleInk(1200), narrow = titleInk(260);
  INFO("title ink at 1200 px " << wide << ", at 260 px " << narrow);
  REQUIRE(wide > 100);
  CHECK(narrow >= wide * 9 / 10);  // every word, on more lines
}

TEST_CASE("window: the Messages matrix shows every column of a four-task run at the default size") {
  ViewState state;
  MainWindow window(&state, Window::optionsOfSize({1280, 800}));
  state.setSnapshot(test::snapshotOf(test::dataPath("ge.trace")));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  window.showTab("messages");
  auto* matrix = window.findChild<QTableView*>("messageMatrix");
  REQUIRE(matrix);
  REQUIRE(test::waitUntil([&] { return matrix->model()->columnCount() == 4 && matrix->isVisible(); }));
  QApplication::processEvents();
  for (int c = 0; c < matrix->model()->columnCount(); ++c) {
    INFO("column " << c);
    CHECK(matrix->columnViewportPosition(c) >= 0);
    CHECK(matrix->columnViewportPosition(c) + matrix->columnWidth(c) <= matrix->viewport()->width());
  }
}

TEST_CASE("window: typing a tag (digits, minus) in the Tag field neither zooms nor steps") {
  Window w;
  auto* tag = w.window.findChild<QLineEdit*>("logTag");
  REQUIRE(tag);
  w.state.setPosition(50);
  const TimeNs begin = w.state.viewBegin(), end = w.state.viewEnd();
  tag->setFocus();
  QTest::keyClicks(tag, "-10");
  QTest::keyClick(tag, Qt::Key_Home);
  QTest::keyClick(tag, Qt::Key_Right);
  CHECK(tag->text() == "-10");
  CHECK(w.state.viewBegin() == begin);
  CHECK(w.state.viewEnd() == end);
  CHECK(w.state.position() == 50);
}

TEST_CASE("window: the Output tab follows the replay position and highlights the selected task's lines") {
  // Two tasks PVM traced (abrun), each printing lines between its calls.
  const std::string text =
      "#xab-trace 1 abmon=t40001 host=vm pid=4242 start=1763680000.000000000\n"
      "1763680000.100000000 1763680000.100000000 t40002 mytid rc=t40002 name=master parent=none\n"
      "1763680000.200000000 1763680000.200000000 t40003 mytid rc=t40003 name=worker parent=t40002\n"
      "1763680000.300000000 1763680000.300000000 t40003 output stream=- text=worker%20line%201\n"
      "1763680000.400000000 1763680000.400000000 t40002 output stream=- text=master%20line%201\n"
      "1763680000.500000000 1763680000.500000000 t40003 output stream=- text=worker%20line%202\n"
      "1763680000.600000000 1763680000.600000000 t40003 exit rc=0\n";
  ViewState state;
  MainWindow window(&state, Window::optionsOfSize({1000, 700}));
  state.setSnapshot(test::snapshotOfText(text));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  window.showTab("output");
  CHECK(window.currentTab() == "output");
  auto* panel = window.findChild<OutputPanel*>();
  REQUIRE(panel);
  REQUIRE(panel->lines() == QStringList{"(worker, 0)  worker line 1", "(master, 0)  master line 1",
                                        "(worker, 0)  worker line 2"});
  CHECK(panel->highlightedLines().empty());
  state.setPosition(4);  // up to master's line
  CHECK(panel->lines() == QStringList{"(worker, 0)  worker line 1", "(master, 0)  master line 1"});
  state.setPosition(2);
  CHECK(panel->lines().isEmpty());
  // Before the first output record: none yet, not "none at all".
  auto* textBox = window.findChild<QPlainTextEdit*>("outputText");
  REQUIRE(textBox);
  CHECK(textBox->placeholderText().startsWith("No output yet at this position"));
  CHECK_FALSE(textBox->placeholderText().contains("abrun"));
  state.setPosition(state.size());
  EventFilter worker;
  worker.tasks.insert(test::taskNamed(*state.snapshot(), "worker", 0));
  state.setFilter(worker);
  CHECK(panel->highlightedLines() == std::vector<int>{0, 2});
  state.select(3);  // master's output record: its task is selected
  CHECK(panel->highlightedLines() == std::vector<int>{1});
}

TEST_CASE("window: the Messages panel does no work while hidden and catches up when shown") {
  // Its matrix and queue each sweep every message: at every live snapshot
  // that cost the GUI thread, for a tab no one looked at.
  Window w;
  auto* panel = w.window.findChild<MessagesPanel*>();
  REQUIRE(panel);
  REQUIRE(w.window.currentTab() == "log");
  const std::uint64_t hidden = panel->computations();
  CHECK(hidden == 0);
  // A live run behind another tab: new records, the replay moving.
  for (int rounds = 21; rounds <= 25; ++rounds) {
    w.state.setSnapshot(test::snapshotOfText(roundTrips(16, rounds)));
    w.state.setPosition(w.state.size() / 2);
    w.state.setPosition(w.state.size());
  }
  CHECK(panel->computations() == hidden);
  // Shown: caught up with the newest snapshot at once.
  w.window.showTab("messages");
  QApplication::processEvents();
  const std::uint64_t shown = panel->computations();
  CHECK(shown > hidden);
  const ViewSnapshot& s = *w.state.snapshot();
  const PairMatrix want = pairsAt(s, w.state.position());
  const auto master = test::taskNamed(s, "master", 0), worker = test::taskNamed(s, "worker", 0);
  auto* matrix = w.window.findChild<QTableView*>("messageMatrix")->model();
  CHECK(matrix->data(matrix->index(master, worker)).toULongLong() == 25);
  CHECK(matrix->data(matrix->index(master, worker)).toULongLong() == want.at({master, worker}).count);
  auto* queue = w.window.findChild<QTableView*>("pendingQueue")->model();
  w.state.setPosition(w.state.size() - 1);  // shown: it follows the replay
  CHECK(static_cast<std::size_t>(queue->rowCount()) == pendingAt(s, w.state.position()).size());
  CHECK(queue->rowCount() == 1);  // the last worker's answer, not yet received
  CHECK(panel->computations() > shown);
  // Hidden again: no more work.
  w.window.showTab("log");
  const std::uint64_t again = panel->computations();
  w.state.setSnapshot(test::snapshotOfText(roundTrips(16, 26)));
  w.state.setPosition(3);
  CHECK(panel->computations() == again);
}

TEST_CASE("window: the log's filters apply as typed, keep the current record in view, and a double click keeps Call and Tag") {
  Window w;
  auto* log = w.window.findChild<EventLogView*>("eventLog");
  auto* call = w.window.findChild<QComboBox*>("logCall");
  auto* tag = w.window.findChild<QLineEdit*>("logTag");
  REQUIRE((log && call && tag));
  w.window.showTab("log");
  const std::size_t at = w.state.size() / 2;
  w.state.setPosition(at);
  QApplication::processEvents();
  // The row shown for the current record: the last one the filter keeps at or before it.
  auto currentInView = [&] {
    QApplication::processEvents();
    const auto* m = log->model();
    int row = -1;
    for (int r = 0; r < m->rowCount(); ++r)
      if (m->index(r, 0).data(EventLogModel::PositionRole).toULongLong() < at) row = r;
    INFO("row " << row << " first visible " << log->firstVisibleRow() << " visible " << log->visibleRows());
    return row >= 0 && row >= log->firstVisibleRow() && row < log->firstVisibleRow() + log->visibleRows();
  };
  REQUIRE(currentInView());
  call->setCurrentIndex(call->findData(static_cast<int>(Kind::SEND)));
  CHECK(currentInView());
  w.taskBox()->setCurrentIndex(w.taskBox()->findData(3));
  CHECK(currentInView());
  w.taskBox()->setCurrentIndex(0);
  // The tag applies as it is typed, as the boxes do, without Enter.
  tag->setFocus();
  QTest::keyClicks(tag, "2");
  CHECK(w.state.filter().tag == 2);
  CHECK(w.state.filter().kind == Kind::SEND);
  CHECK(currentInView());
  // A double click on a task narrows to it and keeps the Call and Tag filters.
  auto* table = w.window.findChild<QTableView*>("taskTable");
  const QPoint row3 = table->visualRect(table->model()->index(3, 0)).center();
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, row3);
  QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, row3);
  CHECK(w.state.filter().tasks == std::set<TaskIndex>{3});
  CHECK(w.state.filter().kind == Kind::SEND);
  CHECK(w.state.filter().tag == 2);
  CHECK(call->currentData().toInt() == static_cast<int>(Kind::SEND));
  CHECK(tag->text() == "2");
  CHECK(currentInView());
}

TEST_CASE("window: the Call box lists the calls the trace has, by name, with their counts") {
  Window w(QSize(1280, 800), 4, 5);  // 4 workers, 5 rounds: 40 sends; recv counts recv.begin too
  auto* call = w.window.findChild<QComboBox*>("logCall");
  REQUIRE(call);
  QStringList items;
  for (int i = 0; i < call->count(); ++i) items << call->itemText(i);
  CHECK(items.join(", ").toStdString() == QStringList{"any call", "initsend (40)", "mytid (5)", "pkint (20)", "recv (80)",
                             "send (40)", "upkint (20)"}.join(", ").toStdString());
  call->setCurrentIndex(call->findData(static_cast<int>(Kind::SEND)));
  CHECK(w.state.filter().kind == Kind::SEND);
  CHECK(w.window.findChild<EventLogView*>("eventLog")->model()->rowCount() == 40);
}

TEST_CASE("window: a state's tip says its start, end and duration, and a message's tip only the message") {
  Window w(QSize(1280, 800), 4, 5);
  DiagramView* d = w.window.diagram();
  w.state.fitAll();
  QApplication::processEvents();
  auto layout = DiagramLayout::make(d->rect(), w.state);
  auto tipAt = [&](QPointF at) {
    QHelpEvent e(QEvent::ToolTip, at.toPoint(), d->mapToGlobal(at.toPoint()));
    QApplication::sendEvent(d, &e);
    return QToolTip::text();
  };
  // The middle of the master's row, half way through the run.
  const ViewSnapshot& s = *w.state.snapshot();
  const TimeNs mid = s.firstTime() + (s.lastTime() - s.firstTime()) / 2;
  const QPointF bar(layout.xOf(mid), layout.rowTop(0) + layout.rowHeight / 2);
  const DiagramHit hit = hitTest(layout, w.state, bar);
  REQUIRE(hit.span);
  REQUIRE_FALSE(hit.message);
  const QString state = tipAt(bar);
  INFO(state.toStdString());
  CHECK(state.contains(QStringLiteral("from %1 s to %2 s (%3)")
                           .arg(QString::fromStdString(formatSeconds(hit.span->begin, s.firstTime())),
                                QString::fromStdString(formatSeconds(hit.spanEnd, s.firstTime())),
                                formatDuration(hit.spanEnd - hit.span->begin))));
  CHECK(hit.spanEnd > hit.span->begin);
  // Over a message line (the middle of the first one between two rows apart).
  std::optional<QPointF> onLine;
  for (const MessageLine& m : s.lines()) {
    if (m.sender == m.receiver) continue;
    QPointF a(layout.xOf(m.send), layout.rowTop(m.sender) + layout.rowHeight / 2);
    QPointF b(layout.xOf(m.recv), layout.rowTop(m.receiver) + layout.rowHeight / 2);
    QPointF c = (a + b) / 2;
    if (hitTest(layout, w.state, c).message) {
      onLine = c;
      break;
    }
  }
  REQUIRE(onLine);
  const QString message = tipAt(*onLine);
  INFO(message.toStdString());
  CHECK(message.startsWith("message "));
  CHECK_FALSE(message.contains("from "));
  QToolTip::hideText();
}
