// Failed calls and timeouts: marked in the diagram where the call returned
// (up to the replay position), coloured in the event log with the error in
// the tool tip, drawn in the legend.
#include "diagram_painter.h"
#include "event_log_model.h"
#include "failure_marks.h"
#include "support.h"

#include <QBrush>
#include <QImage>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// (ring, 0): a psend that fails at 0.1 s, a trecv that times out at 0.3 s,
// two unpacks that fail at 0.4 and 0.5 s, then 0.5 s of work; (ok, 0) never fails.
const char* kRing =
    "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.000000000\n"
    "1.0 1.0 t40002 mytid rc=t40002 name=ring\n"
    "1.0 1.0 t40003 mytid rc=t40003 name=ok\n"
    "1.1 1.1 t40002 psend dst=none tag=1 bytes=8 serial=0 type=double n=1 rc=-2\n"
    "1.2 1.2 t40002 trecv.begin src=any tag=5 timeout=100000 rc=0\n"
    "1.3 1.3 t40002 trecv src=any tag=5 bytes=0 serial=0 rc=0\n"
    "1.4 1.4 t40002 upkint type=int n=1 stride=1 rc=-15\n"
    "1.5 1.5 t40002 upkint type=int n=1 stride=1 rc=-15\n"
    "1.6 1.6 t40003 initsend enc=0 rc=1\n"
    "2.0 2.0 t40002 exit rc=0\n"
    "2.0 2.0 t40003 exit rc=0\n";

// Pixels of `c` within 6 px of (x, y).
int near(const QImage& img, double x, double y, const QColor& c) {
  int n = 0;
  for (int dy = -6; dy <= 6; ++dy)
    for (int dx = -6; dx <= 6; ++dx) {
      const int px = static_cast<int>(x) + dx, py = static_cast<int>(y) + dy;
      if (img.valid(px, py) && QColor(img.pixel(px, py)) == c) ++n;
    }
  return n;
}

}  // namespace

TEST_CASE("failed calls and timeouts are marked on their rows where they returned, up to the replay position") {
  ViewState state;
  state.setSnapshot(snapshotOfText(kRing));
  const ViewSnapshot& s = *state.snapshot();
  const TaskIndex ring = taskNamed(s, "ring", 0), ok = taskNamed(s, "ok", 0);
  const TimeNs t0 = 1'000'000'000;
  auto paint = [&](QImage& img, DiagramStats& stats) { return paintDiagramInto(img, state, &stats); };
  state.setPosition(s.size());
  QImage img(900, 200, QImage::Format_RGB32);
  DiagramStats stats;
  auto layout = paint(img, stats);
  CHECK(stats.outcomeMarks == 4);  // the psend, the timeout, two unpacks
  const double y = layout.rowTop(ring) + layout.rowHeight / 2;
  CHECK(near(img, layout.xOf(t0 + 100'000'000), y, kFailedCall) > 0);
  CHECK(near(img, layout.xOf(t0 + 300'000'000), y, kTimedOutCall) > 0);
  CHECK(near(img, layout.xOf(t0 + 500'000'000), y, kFailedCall) > 0);
  CHECK(near(img, layout.xOf(t0 + 800'000'000), y, kFailedCall) == 0);  // work: nothing marked
  CHECK(near(img, layout.xOf(t0 + 600'000'000), layout.rowTop(ok) + layout.rowHeight / 2, kFailedCall) == 0);

  // Replayed to just after the psend, the whole run in view: only its mark.
  state.setPosition(s.positionOf({ring, 1}) + 1);
  state.setViewRange(t0, t0 + 1'000'000'000);
  auto early = paint(img, stats);
  CHECK(stats.outcomeMarks == 1);
  CHECK(near(img, early.xOf(t0 + 100'000'000), y, kFailedCall) > 0);
  CHECK(near(img, early.xOf(t0 + 300'000'000), y, kTimedOutCall) == 0);
}

TEST_CASE("the event log shows failed calls in red and timeouts in orange, the error in the tool tip") {
  ViewState state;
  state.setSnapshot(snapshotOfText(kRing));
  state.setPosition(state.snapshot()->size());
  EventLogModel log(&state);
  auto rowOf = [&](const char* event) {
    for (int r = 0; r < log.rowCount(); ++r)
      if (log.data(log.index(r, EventLogModel::EventCol), Qt::DisplayRole).toString() == event) return r;
    return -1;
  };
  const int psend = rowOf("psend"), trecv = rowOf("trecv"), initsend = rowOf("initsend");
  REQUIRE(psend >= 0);
  REQUIRE(trecv >= 0);
  REQUIRE(initsend >= 0);
  auto colour = [&](int row) { return log.data(log.index(row, EventLogModel::EventCol), Qt::ForegroundRole).value<QBrush>().color(); };
  CHECK(colour(psend) == kFailedCall);
  CHECK(colour(trecv) == kTimedOutCall.darker(130));
  CHECK_FALSE(log.data(log.index(initsend, EventLogModel::EventCol), Qt::ForegroundRole).isValid());
  CHECK(log.data(log.index(psend, EventLogModel::EventCol), Qt::ToolTipRole).toString() == "failed: PvmBadParam (-2)");
  CHECK(log.data(log.index(psend, EventLogModel::FieldsCol), Qt::ToolTipRole).toString().endsWith("\nfailed: PvmBadParam (-2)"));
  CHECK(log.data(log.index(trecv, EventLogModel::EventCol), Qt::ToolTipRole).toString().startsWith("timed out"));
}

TEST_CASE("the legend has the failed-call and timeout marks in the diagram's colours") {
  int failed = 0, timedOut = 0;
  for (const LegendEntry& e : diagramLegend()) {
    if (e.shape == LegendEntry::Failed && e.color == kFailedCall) ++failed;
    if (e.shape == LegendEntry::TimedOut && e.color == kTimedOutCall) ++timedOut;
  }
  CHECK(failed == 1);
  CHECK(timedOut == 1);
}
