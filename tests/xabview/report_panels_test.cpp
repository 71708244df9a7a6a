// What the trace already knows, in the window: failed calls with links to
// their records, hang counts that add up, the pack check that could not be
// made, and libab's own records in the event log only on request.
#include "main_window.h"
#include "panels.h"
#include "support.h"

#include <QApplication>
#include <QCheckBox>
#include <QRegularExpression>
#include <QTest>
#include <QTextBrowser>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;

namespace {

const char* kFailedCalls =
    "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.000000000\n"
    "1.0 1.0 t40002 mytid rc=t40002 name=ring\n"
    "1.1 1.1 t40002 psend dst=none tag=1 bytes=8 serial=0 type=double n=1 rc=-2\n"
    "1.2 1.2 t40002 trecv.begin src=any tag=5 timeout=100000 rc=0\n"
    "1.3 1.3 t40002 trecv src=any tag=5 bytes=0 serial=0 rc=0\n"
    "1.4 1.4 t40002 upkint type=int n=1 stride=1 rc=-15\n"
    "1.5 1.5 t40002 upkint type=int n=1 stride=1 rc=-15\n"
    "1.6 1.6 t40002 exit rc=0\n";

struct Window {
  ViewState state;
  MainWindow window;
  explicit Window(std::shared_ptr<ViewSnapshot> s) : window(&state, ViewerOptions{}) {
    state.setSnapshot(std::move(s));
    window.show();
    REQUIRE(QTest::qWaitForWindowExposed(&window));
    QApplication::processEvents();
  }
};

}  // namespace

TEST_CASE("window: failed calls are listed in the Hang panel, each a link to its first record") {
  Window w(test::snapshotOfText(kFailedCalls));
  QString text = w.window.hangPanel()->text();
  CHECK(text.contains("Failed calls (3)"));
  CHECK(text.contains("(ring, 0): pvm_psend failed once with PvmBadParam (-2), at 0.100000 s"));
  CHECK(text.contains("(ring, 0): pvm_upkint failed 2 times with PvmNoBuf (-15), first at 0.400000 s"));
  CHECK(text.contains("(ring, 0) took a timeout for a message: pvm_trecv timed out (rc=0)"));
  CHECK(text.contains("Receives that timed out (1)"));
  CHECK(text.contains("(ring, 0): pvm_trecv timed out once, waiting 0.100000 s, at 0.300000 s"));
  // The upkint line's link selects the first failed upkint record.
  QString html = hangReportHtml(w.state);
  auto m = QRegularExpression("<a href=\"event:(\\d+)\">\\(ring, 0\\): pvm_upkint").match(html);
  REQUIRE(m.hasMatch());
  auto* browser = w.window.findChild<QTextBrowser*>("hangText");
  REQUIRE(browser);
  emit browser->anchorClicked(QUrl("event:" + m.captured(1)));
  REQUIRE(w.state.selected());
  const Event& e = w.state.snapshot()->eventAt(*w.state.selected());
  CHECK(e.kind == Kind::UPKINT);
  CHECK(e.rc == -15);
  CHECK(e.time == 1'400'000'000);
}

TEST_CASE("window: the hang banner counts a task killed while blocked apart from the blocked") {
  Window w(test::snapshotOf(test::dataPath("demo_hang_killed.trace")));
  REQUIRE(QTest::qWaitFor([&] { return w.window.hangBannerShown(); }, 10000));
  CHECK(w.window.hangBannerText() == "Hang: 3 tasks blocked, 1 ended while blocked at the end of the input.");
  CHECK(w.window.hangPanel()->text().contains("Blocked tasks: 3 tasks blocked, 1 ended while blocked"));
}

TEST_CASE("window: a trace without pack records says the pack check was not made") {
  Window w(test::snapshotOfText("#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.000000000\n"
                                "1.0 1.0 t40002 mytid rc=t40002 name=a\n"
                                "1.1 1.1 t40002 send dst=t40003 tag=1 bytes=4 serial=1 rc=0\n"
                                "1.0 1.0 t40003 mytid rc=t40003 name=b\n"
                                "1.2 1.2 t40003 recv src=t40002 tag=1 bytes=4 serial=1 rc=3\n"));
  QString text = w.window.hangPanel()->text();
  CHECK(text.contains("pack/unpack not checked: no pack records"));
  CHECK_FALSE(text.contains("receives checked"));
}

TEST_CASE("window: a trace whose pack records were filtered at the source says so, not that it has none") {
  Window w(test::snapshotOfText("#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.000000000\n"
                                "1.0 1.0 t40002 mytid rc=t40002 name=a\n"
                                "1.0 1.0 t40002 filter omit=1 rc=0\n"
                                "1.1 1.1 t40002 send dst=t40003 tag=1 bytes=4 serial=1 rc=0\n"
                                "1.0 1.0 t40003 mytid rc=t40003 name=b\n"
                                "1.0 1.0 t40003 filter omit=1 rc=0\n"
                                "1.2 1.2 t40003 recv src=t40002 tag=1 bytes=4 serial=1 rc=3\n"));
  QString text = w.window.hangPanel()->text();
  CHECK(text.contains("pack/unpack not checked: pack records filtered at the source"));
  CHECK_FALSE(text.contains("no pack records"));
}

TEST_CASE("window: libab's own records (clock, cost, flush) are in the event log only when asked for") {
  Window w(test::snapshotOfText(
      "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.000000000\n"
      "1.0 1.0 t40002 mytid rc=t40002 name=a\n"
      "1.1 1.1 t40002 cost burst=64 total_ns=6400 cpus=3 rc=100\n"
      "1.2 1.2 t40002 clock ref=t40001 ref_s=1 ref_ns=200010000 turn_ns=2000 rtt_ns=30000 phase=0 rc=0\n"
      "1.3 1.3 t40002 barrier.begin group=g count=1\n"
      "1.4 1.4 t40002 barrier group=g count=1 rc=0\n"
      "1.5 1.5 t40002 flush dur_ns=1000 blocked=0 own_ns=10 own_calls=1 rc=4\n"
      "1.6 1.6 t40002 exit rc=0\n"));
  auto* panel = w.window.findChild<EventLogPanel*>();
  REQUIRE(panel);
  auto* box = panel->findChild<QCheckBox*>("logLibab");
  REQUIRE(box);
  CHECK_FALSE(box->isChecked());
  auto events = [&] {
    QStringList out;
    for (int r = 0; r < panel->model()->rowCount(); ++r)
      out << panel->model()->data(panel->model()->index(r, EventLogModel::EventCol), Qt::DisplayRole).toString();
    return out.join(' ');
  };
  CHECK(events() == "mytid barrier.begin barrier exit");
  box->setChecked(true);
  CHECK(w.state.filter().libabRecords);
  CHECK(events() == "mytid cost clock barrier.begin barrier flush exit");
  box->setChecked(false);
  CHECK(events() == "mytid barrier.begin barrier exit");
}
