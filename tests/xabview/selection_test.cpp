// A click on the diagram: a bar is marked where it was clicked, a message
// line is highlighted with its receive marked.
#include "diagram_hit.h"
#include "diagram_view.h"
#include "support.h"

#include <QTest>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// A point on a bar at least 40 pixels from its start, with no message line
// near it: the bar's task, its span and the point.
struct BarPoint {
  TaskIndex task = 0;
  Span span;
  QPointF at;
};
std::optional<BarPoint> barPoint(const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot& s = *st.snapshot();
  for (TaskIndex t = 0; t < s.trace->taskCount(); ++t)
    for (std::size_t i = 0; i < s.spans[t].size(); ++i) {
      const Span& sp = s.spans[t][i];
      const double x0 = layout.xOf(sp.begin), x1 = layout.xOf(std::min(spanEnd(s.spans[t], i), st.nowTime()));
      for (double x = x0 + 40; x < x1 - 5 && x < layout.plot().right() - 5; x += 7) {
        const QPointF at(x, layout.rowTop(t) + layout.rowHeight / 2);
        const auto hit = hitTest(layout, st, at);
        if (hit.span && !hit.message && !hit.mark && hit.span->begin == sp.begin) return BarPoint{t, sp, at};
      }
    }
  return std::nullopt;
}

bool yellowNear(const QImage& img, QPointF at) {
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      if (QColor(img.pixel(static_cast<int>(at.x()) + dx, static_cast<int>(at.y()) + dy)) == QColor(Qt::yellow)) return true;
  return false;
}

}  // namespace

TEST_CASE("selection: a bar clicked is marked where it was clicked and a message clicked is highlighted with its receive marked") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  const ViewSnapshot& s = *state.snapshot();
  DiagramView view(&state);
  view.resize(800, 300);
  view.show();
  REQUIRE(QTest::qWaitForWindowExposed(&view));
  const auto layout = DiagramLayout::make(view.rect(), state);

  const auto bar = barPoint(layout, state);
  REQUIRE(bar);
  QTest::mouseClick(&view, Qt::LeftButton, {}, bar->at.toPoint());
  REQUIRE(state.selected() == s.positionOf({bar->task, bar->span.first}));
  QImage img = view.grab().toImage();
  CHECK(yellowNear(img, bar->at));                                             // the dot where clicked
  CHECK_FALSE(yellowNear(img, QPointF(layout.xOf(bar->span.begin), bar->at.y())));  // not at the bar's start
  REQUIRE(state.selectedTime());
  CHECK(std::abs(layout.xOf(*state.selectedTime()) - bar->at.x()) < 1.5);
  CHECK_FALSE(state.selectedMessage());

  // A message line, clicked half-way.
  std::optional<MessageLine> line;
  QPointF half;
  for (const MessageLine& m : s.lines()) {
    const QPointF a(layout.xOf(m.send), layout.rowTop(m.sender) + layout.rowHeight / 2);
    const QPointF b(layout.xOf(m.recv), layout.rowTop(m.receiver) + layout.rowHeight / 2);
    half = (a + b) / 2;
    if (QLineF(a, b).length() > 60 && hitTest(layout, state, half).message == m.message) {
      line = m;
      break;
    }
  }
  REQUIRE(line);
  QTest::mouseClick(&view, Qt::LeftButton, {}, half.toPoint());
  CHECK(state.selectedMessage() == line->message);
  CHECK(state.selected() == line->sendPos);
  img = view.grab().toImage();
  int highlighted = 0;
  for (int dx = -2; dx <= 2; ++dx)
    for (int dy = -2; dy <= 2; ++dy)
      highlighted += QColor(img.pixel(static_cast<int>(half.x()) + dx, static_cast<int>(half.y()) + dy)) == kSelectedMessage;
  CHECK(highlighted > 0);
  CHECK(yellowNear(img, QPointF(layout.xOf(line->recv), layout.rowTop(line->receiver) + layout.rowHeight / 2)));
  CHECK(yellowNear(img, QPointF(layout.xOf(line->send), layout.rowTop(line->sender) + layout.rowHeight / 2)));

  // Selected elsewhere (the log, Find): at the record, nothing highlighted.
  state.select(line->recvPos);
  CHECK_FALSE(state.selectedTime());
  CHECK_FALSE(state.selectedMessage());
  img = view.grab().toImage();
  highlighted = 0;
  for (int dx = -2; dx <= 2; ++dx)
    for (int dy = -2; dy <= 2; ++dy)
      highlighted += QColor(img.pixel(static_cast<int>(half.x()) + dx, static_cast<int>(half.y()) + dy)) == kSelectedMessage;
  CHECK(highlighted == 0);
}
