// Find and Go to: the query's matching rules against every record, and the
// window's Find bar driven by its keys (Ctrl+F, F3, Shift+F3, Ctrl+G, Esc).
#include "activity.h"
#include "event_log_model.h"
#include "find_bar.h"
#include "main_window.h"
#include "record_find.h"
#include "support.h"

#include <QApplication>
#include <QLineEdit>
#include <QTest>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// What a query means, spelled the slow way: every word in the task's name
// or tid, the event's name, or the fields (a word with '=': one whole field).
bool bruteMatch(const ViewSnapshot& s, std::size_t record, const QStringList& words) {
  const OrderEntry oe = s.order[record];
  const Event& e = s.event(oe);
  if (isLibabRecord(e.kind)) return false;
  const QString who = oe.task == kMonitorTask ? "abmon"
                                              : QString::fromStdString(s.trace->label(oe.task) + " " +
                                                                       formatTid(s.trace->task(oe.task).tid));
  const QStringList fields = eventArgs(*s.trace, e).split(' ');
  for (const QString& w : words) {
    bool ok = w.contains('=') ? fields.contains(w, Qt::CaseInsensitive)
                              : who.contains(w, Qt::CaseInsensitive) || eventName(*s.trace, e).contains(w, Qt::CaseInsensitive) ||
                                    eventArgs(*s.trace, e).contains(w, Qt::CaseInsensitive);
    if (!ok) return false;
  }
  return true;
}

struct Window {
  ViewState state;
  MainWindow window{&state, ViewerOptions{}};
  Window() {
    state.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    REQUIRE(QTest::qWaitForWindowActive(&window));
    QApplication::processEvents();
  }
  FindBar* bar() { return window.findBar(); }
  QLineEdit* field(const char* name) { return window.findChild<QLineEdit*>(name); }
  Event current() { return state.snapshot()->eventAt(state.position() - 1); }
};

}  // namespace

TEST_CASE("find: next and previous from every position are the nearest matching records, wrapping once") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  const std::size_t n = s->size();
  for (const QString text : {"tag=16004", "cholnode send", "t40005 RECV.begin", "1600", "tag=1600", "abmon", "cholhost tag=16040"}) {
    INFO(text.toStdString());
    const QStringList words = text.split(' ');
    const RecordQuery q(*s, text);
    for (std::size_t r = 0; r < n; ++r) REQUIRE(q.matches(r) == bruteMatch(*s, r, words));
    for (std::size_t p = 0; p <= n; ++p) {
      INFO("position " << p);
      // Forward: the first match after the current record p-1, else from the start.
      std::optional<std::size_t> want;
      for (std::size_t r = p; r < n && !want; ++r)
        if (bruteMatch(*s, r, words)) want = r;
      for (std::size_t r = 0; p > 0 && r + 1 < p && !want; ++r)
        if (bruteMatch(*s, r, words)) want = r;
      auto got = findRecord(*s, q, p, true);
      REQUIRE(got.has_value() == want.has_value());
      if (want) {
        CHECK(got->position == *want + 1);
        CHECK(got->wrapped == (*want + 1 < p));
      }
      // Backward: the last match before the current record, else from the end.
      want.reset();
      for (std::size_t r = p > 0 ? p - 1 : 0; r-- > 0 && !want;)
        if (bruteMatch(*s, r, words)) want = r;
      for (std::size_t r = n; r-- > (p > 0 ? p : 0) && !want;)
        if (bruteMatch(*s, r, words)) want = r;
      got = findRecord(*s, q, p, false);
      REQUIRE(got.has_value() == want.has_value());
      if (want) CHECK(got->position == *want + 1);
    }
  }
  // By hand: cholnode t40003 sends tag 16004 as the 14th record; "tag=1600" is no whole field.
  auto first = findRecord(*s, RecordQuery(*s, "tag=16004"), 0, true);
  REQUIRE(first);
  CHECK(first->position == 14);
  CHECK(s->eventAt(13).kind == Kind::SEND);
  CHECK_FALSE(findRecord(*s, RecordQuery(*s, "tag=1600"), 0, true));
  CHECK_FALSE(findRecord(*s, RecordQuery(*s, "   "), 0, true));
}

TEST_CASE("go to a time: the first record in arrival order at or after it becomes the current one") {
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  for (TimeNs after : {TimeNs{0}, TimeNs{100'000'000}, TimeNs{160'500'000}, TimeNs{175'000'000}, TimeNs{10'000'000'000}}) {
    const TimeNs t = s->firstTime() + after;
    const std::size_t p = positionAtTime(*s, t);
    INFO("t+" << after << " -> " << p);
    for (std::size_t r = 0; r + 1 < p; ++r)
      if (s->order[r].task != kMonitorTask) CHECK(s->eventAt(r).time < t);
    if (p < s->size() || s->eventAt(p - 1).time >= t) CHECK(s->eventAt(p - 1).time >= t);
    if (t > s->tasksEnd) CHECK(p == s->size());
  }
}

TEST_CASE("window: Ctrl+F finds, Enter and F3 go to the next match, Shift+F3 back, Esc closes the bar, not the replay") {
  Window w;
  w.state.setPosition(0);
  CHECK_FALSE(w.bar()->isVisible());
  QTest::keyClick(&w.window, Qt::Key_F, Qt::ControlModifier);
  REQUIRE(w.bar()->isVisible());
  QLineEdit* query = w.field("findText");
  REQUIRE(query);
  CHECK(query->hasFocus());
  QTest::keyClicks(query, "cholnode tag=16004");  // the space neither plays nor steps
  CHECK(query->text() == "cholnode tag=16004");
  CHECK(w.state.position() == 0);
  QTest::keyClick(query, Qt::Key_Return);
  CHECK(w.state.position() == 14);
  CHECK(w.current().kind == Kind::SEND);
  CHECK(w.state.selected() == std::optional<std::size_t>(13));
  CHECK(w.bar()->resultText().contains("record 14 of"));
  QTest::keyClick(&w.window, Qt::Key_F3);
  const std::size_t second = w.state.position();
  CHECK(second > 14);
  CHECK(w.current().kind == Kind::SEND);
  CHECK(w.state.snapshot()->order[second - 1].task != w.state.snapshot()->order[13].task);
  QTest::keyClick(&w.window, Qt::Key_F3, Qt::ShiftModifier);
  CHECK(w.state.position() == 14);
  query->setFocus();
  QTest::keyClick(query, Qt::Key_Escape);
  CHECK_FALSE(w.bar()->isVisible());
  CHECK(w.state.position() == 14);  // Esc in the bar is not Stop
  w.bar()->setQuery("no-such-thing");
  CHECK_FALSE(w.bar()->find(true));
  CHECK(w.bar()->resultText().contains("no record matches"));
  CHECK(w.state.position() == 14);
}

TEST_CASE("window: Ctrl+G goes to a time typed in seconds, the zoom kept and the time brought into view") {
  Window w;
  w.state.setPosition(w.state.size());
  const ViewSnapshot& s = *w.state.snapshot();
  // Zoomed to the first tenth of the run: 0.175 s lies outside.
  const TimeNs width = (s.tasksEnd - s.tasksBegin) / 10;
  w.state.setViewRange(s.tasksBegin, s.tasksBegin + width);
  QTest::keyClick(&w.window, Qt::Key_G, Qt::ControlModifier);
  QLineEdit* time = w.field("goToTime");
  REQUIRE(time);
  CHECK(time->hasFocus());
  QTest::keyClicks(time, "0.175");
  QTest::keyClick(time, Qt::Key_Return);
  const TimeNs t = s.firstTime() + 175'000'000;
  CHECK(w.state.position() == positionAtTime(s, t));
  CHECK(w.current().time >= t);
  CHECK(w.state.viewEnd() - w.state.viewBegin() == width);
  CHECK(w.state.viewBegin() <= w.current().time);
  CHECK(w.state.viewEnd() >= w.current().time);
  time->selectAll();
  QTest::keyClicks(time, "soon");
  QTest::keyClick(time, Qt::Key_Return);
  CHECK(w.bar()->resultText().contains("seconds"));
}
