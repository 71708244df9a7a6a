// The Details tab: a measured range's statistics against the model's own
// state intervals and messages, the selected record's words with links from
// a send to its receive and back, and Shift+drag on the diagram.
#include "details_panel.h"
#include "details_text.h"
#include "diagram_view.h"
#include "main_window.h"
#include "support.h"

#include <xab/model/states.h>

#include <QApplication>
#include <QTabWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextLayout>
#include <QTextTable>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

TEST_CASE("range statistics: time per state per task and messages, as the model's intervals and messages say") {
  for (const char* name : {"cholesky_hang.trace", "demo_hang_killed.trace", "ge.trace", "barrier.trace", "mcast.trace"}) {
    INFO(name);
    auto s = snapshotOf(dataPath(name));
    ViewState st;
    st.setSnapshot(s);  // at the end: every record shown
    const TimeNs a = s->tasksBegin, z = st.nowTime();
    for (auto [f0, f1] : {std::pair{0.0, 1.0}, {0.2, 0.6}, {0.5, 0.55}, {0.9, 1.0}}) {
      const TimeNs from = a + static_cast<TimeNs>(f0 * static_cast<double>(z - a));
      const TimeNs to = a + static_cast<TimeNs>(f1 * static_cast<double>(z - a));
      INFO(f0 << ".." << f1);
      const RangeStats r = rangeStats(st, from, to);
      REQUIRE(r.tasks.size() == s->trace->taskCount());
      std::array<TimeNs, kStateCount> total{};
      for (TaskIndex t = 0; t < s->trace->taskCount(); ++t) {
        std::array<TimeNs, kStateCount> want{};
        for (const StateInterval& iv : stateIntervals(*s->trace, t, from, to)) {
          if (iv.state == TaskState::NotStarted || iv.state == TaskState::Exited) continue;
          const TimeNs e = std::min(iv.end == kOpenEnd ? z : iv.end, to), b = std::max(iv.begin, from);
          if (e > b) want[static_cast<std::size_t>(iv.state)] += e - b;
        }
        CHECK(r.tasks[t].time == want);
        for (int k = 0; k < kStateCount; ++k) total[static_cast<std::size_t>(k)] += want[static_cast<std::size_t>(k)];
      }
      CHECK(r.total == total);
      std::uint64_t sent = 0, sentBytes = 0, received = 0;
      for (const Message& m : s->messages().messages) {
        const std::size_t copies = m.receives.size() + m.unreceived.size();
        if (m.time >= from && m.time < to) sent += copies, sentBytes += copies * static_cast<std::uint64_t>(std::max(0, m.bytes));
        for (const MessageReceive& rc : m.receives) {
          const TimeNs at = s->trace->event(rc.recv).time;
          received += at >= from && at < to;
        }
      }
      CHECK(r.sent == sent);
      CHECK(r.received == received);
      (void)sentBytes;  // a receive may say another size than its send: the line's is counted
    }
  }
}

TEST_CASE("details: the selected record, the state it opened, and its message's other end a link away") {
  ViewState st;
  MainWindow window{&st, ViewerOptions{}};
  st.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  window.showTab("details");
  REQUIRE(window.currentTab() == "details");
  auto* panel = window.findChild<DetailsPanel*>();
  REQUIRE(panel);
  CHECK(panel->text().contains("Click a bar"));
  st.select(6);  // the host's mcast of tag 16001 to the three nodes
  QString text = panel->text();
  CHECK(text.contains("mcast"));
  CHECK(text.contains("tag=16001"));
  CHECK(text.contains("Then computing: start"));
  CHECK(text.count("Received by (cholnode, ") == 3);
  // Its receive by (cholnode, 0) is record 10 (position 9): the link goes there, and back.
  const QString html = selectionHtml(st);
  CHECK(html.contains("href=\"event:9\""));
  auto* browser = panel->findChild<QTextBrowser*>("detailsText");
  REQUIRE(browser);
  emit browser->anchorClicked(QUrl("event:9"));
  CHECK(st.selected() == std::optional<std::size_t>(9));
  text = panel->text();
  CHECK(text.contains("Sent by (cholhost, 0)"));
  CHECK(selectionHtml(st).contains("href=\"event:6\""));
  st.select(13);  // (cholnode, 0)'s result, never received: the hang
  CHECK(panel->text().contains("Never received by (cholhost, 0)"));
}

TEST_CASE("details: Shift+drag across the diagram measures the range and shows its statistics") {
  ViewState st;
  MainWindow window{&st, ViewerOptions{}};
  st.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  DiagramView* d = window.diagram();
  const DiagramLayout l = DiagramLayout::make(d->rect(), st);
  const int y = static_cast<int>(l.rowTop(0) + l.rowHeight / 2);
  const QPoint a(static_cast<int>(l.plot().left() + 0.2 * l.plot().width()), y);
  const QPoint b(static_cast<int>(l.plot().left() + 0.7 * l.plot().width()), y);
  const TimeNs begin = st.viewBegin(), end = st.viewEnd();
  QTest::mousePress(d, Qt::LeftButton, Qt::ShiftModifier, a);
  QTest::mouseMove(d, b);
  QTest::mouseRelease(d, Qt::LeftButton, Qt::ShiftModifier, b);
  CHECK(st.viewBegin() == begin);  // measured, not panned
  CHECK(st.viewEnd() == end);
  CHECK(window.currentTab() == "details");
  auto* panel = window.findChild<DetailsPanel*>();
  CHECK(panel->range().from == l.timeAt(a.x()));
  CHECK(panel->range().to == l.timeAt(b.x()));
  const RangeStats want = rangeStats(st, l.timeAt(a.x()), l.timeAt(b.x()));
  CHECK(panel->range().total == want.total);
  CHECK(panel->text().contains("Range"));
  CHECK(panel->text().contains("all tasks"));
  CHECK(panel->text().contains("receiving"));
}

TEST_CASE("details: in a narrow panel the range's table scrolls sideways, no cell breaks over two lines") {
  ViewState st;
  st.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  const RangeStats r = rangeStats(st, st.snapshot()->firstTime(), st.snapshot()->lastTime());
  QTextDocument doc;
  doc.setHtml(rangeHtml(st, r));
  doc.setTextWidth(250);  // narrower than the table
  (void)doc.size();       // laid out
  QTextTable* table = nullptr;
  for (QTextFrame* f : doc.rootFrame()->childFrames())
    if ((table = qobject_cast<QTextTable*>(f))) break;
  REQUIRE(table);
  REQUIRE(table->columns() >= 6);
  int cells = 0;
  for (int row = 0; row < table->rows(); ++row)
    for (int col = 0; col < table->columns(); ++col) {
      const QTextBlock block = table->cellAt(row, col).firstCursorPosition().block();
      INFO("row " << row << " column " << col << ": " << block.text().toStdString());
      REQUIRE(block.layout());
      CHECK(block.layout()->lineCount() == 1);
      ++cells;
    }
  CHECK(cells > 10);
  CHECK(doc.size().width() > 250);  // wider than the panel: it scrolls
}
