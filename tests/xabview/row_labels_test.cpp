// The diagram's rows: with many tasks, names within their rows and groups;
// user marks on their task's row.
#include "diagram_hit.h"
#include "diagram_painter.h"
#include "marks.h"
#include "support.h"

#include <QImage>

#include <cstdio>
#include <string>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// `tasks` workers spread over `hosts` hosts (round robin, as pvm_spawn
// places them), each starting, packing and exiting a millisecond apart.
std::string manyTasksOnHosts(int tasks, int hosts) {
  std::string text = "#xab-trace 1 abmon=t40001 host=node0 pid=1 start=1000.0\n";
  char line[256];
  for (int t = 0; t < tasks; ++t) {
    const int tid = ((t % hosts) + 1) * 0x40000 + 2 + t;
    for (int r = 0; r < 3; ++r) {
      long long time = 1'000'000'000'000LL + r * 1'000'000 + t * 1000;
      std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x ", time / 1000000000, time % 1000000000,
                    time / 1000000000, time % 1000000000, tid);
      text += line;
      if (r == 0)
        std::snprintf(line, sizeof line, "mytid rc=t%x name=worker host=node%d parent=none lang=c pid=%d\n", tid,
                      t % hosts, 100 + t);
      else
        std::snprintf(line, sizeof line, "%s\n", r == 1 ? "initsend enc=0 rc=1" : "exit rc=0");
      text += line;
    }
  }
  return text;
}

}  // namespace

TEST_CASE("rows: with 63 tasks on three hosts no name crosses a host's line and each group's first row is named") {
  ViewState state;
  state.setSnapshot(snapshotOfText(manyTasksOnHosts(63, 3)));
  REQUIRE(state.snapshot()->trace->taskCount() == 63);
  // Rows of 5 pixels: the axis (22), 2, then 63 rows.
  QImage img(800, 22 + 2 + 63 * 5, QImage::Format_RGB32);
  QPainter p(&img);
  const auto layout = DiagramLayout::make(img.rect(), state);
  paintDiagram(p, layout, state);
  p.end();
  REQUIRE(layout.rowHeight == 5.0);
  REQUIRE(layout.hostFirstRows == std::vector<TaskIndex>{0, 21, 42});
  const QRgb line = QColor(Qt::darkGray).rgb();
  for (TaskIndex row : layout.hostFirstRows) {
    INFO("host group from row " << row);
    const int y = static_cast<int>(layout.rowTopOfRow(row));
    // The line above the group, whole across the names: no glyph on it.
    int crossed = 0;
    for (int x = 0; x < layout.labelWidth - 4; ++x) crossed += img.pixel(x, y) != line;
    CHECK(crossed == 0);
    // The group's first task is named on its first rows (ink on the left),
    // and the host's name on the right.
    auto ink = [&](int x0, int x1) {
      int n = 0;
      for (int yy = y + 1; yy < y + 10; ++yy)
        for (int x = x0; x < x1; ++x) n += qGray(img.pixel(x, yy)) < 160;
      return n;
    };
    CHECK(ink(4, 40) > 0);
    CHECK(ink(layout.labelWidth - 40, layout.labelWidth - 4) > 0);
  }
}

TEST_CASE("marks: the demo's xab_mark is drawn on its task's row and in the legend and under the pointer and can be hidden") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("demo_hang_killed.trace")));
  const ViewSnapshot& s = *state.snapshot();
  REQUIRE(s.marks().size() == 1);
  const MarkAt mark = s.marks().front();
  CHECK(s.trace->label(mark.task) == "(xabdemo, 0)");
  CHECK(s.trace->str(s.trace->events(mark.task)[mark.index].get(Key::Text, -1)) == "round 1");
  state.setViewRange(mark.time - 1'000'000, mark.time + 1'000'000);  // 2 ms around it
  auto markPixels = [&](const DiagramOptions& o, DiagramLayout* out = nullptr) {
    QImage img(800, 300, QImage::Format_RGB32);
    QPainter p(&img);
    const auto layout = DiagramLayout::make(img.rect(), state);
    paintDiagram(p, layout, state, o);
    p.end();
    if (out) *out = layout;
    int n = 0;
    const int x = static_cast<int>(layout.xOf(mark.time));
    for (int y = static_cast<int>(layout.rowTop(mark.task)); y < layout.rowTop(mark.task) + layout.rowHeight; ++y)
      for (int dx = -3; dx <= 3; ++dx) n += QColor(img.pixel(x + dx, y)) == kMarkColor;
    return n;
  };
  DiagramLayout layout;
  CHECK(markPixels({}, &layout) > 5);
  DiagramOptions hidden;
  hidden.marks = false;
  CHECK(markPixels(hidden) == 0);  // View > Show > Marks off
  // Under the pointer: the mark, on its row.
  const QPointF at(layout.xOf(mark.time) + 1, layout.rowTop(mark.task) + layout.rowHeight / 2);
  const auto hit = hitTest(layout, state, at);
  REQUIRE(hit.mark);
  CHECK(*hit.mark == 0);
  // Before its record the replay does not show it.
  state.setPosition(s.positionOf({mark.task, mark.index}));
  CHECK(markPixels({}) == 0);
  CHECK_FALSE(hitTest(layout, state, at).mark);
  // The legend names it, in its colour.
  const auto legend = diagramLegend();
  CHECK(std::any_of(legend.begin(), legend.end(), [](const LegendEntry& e) {
    return e.shape == LegendEntry::Mark && e.color == kMarkColor && e.name == "mark";
  }));
}

TEST_CASE("marks: a mark every pixel or so folds to a thin strip on the row's top: the states under it stay in sight") {
  // One task computing for a second with a mark every 100 µs (10,000), and
  // one lone mark on a second task; at full zoom-out a tick each would
  // paint the first row solid (the demo's 3,000 marks did).
  std::string text = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.0\n";
  char line[200];
  auto add = [&](long long ns, const char* tid, const char* rec) {
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld %s %s\n", ns / 1000000000, ns % 1000000000,
                  ns / 1000000000, ns % 1000000000, tid, rec);
    text += line;
  };
  const long long t0 = 1'000'000'000'000LL;
  add(t0, "t40002", "mytid rc=t40002 name=dense host=vm parent=none lang=c pid=2");
  add(t0, "t40003", "mytid rc=t40003 name=lone host=vm parent=none lang=c pid=3");
  for (int i = 1; i < 10000; ++i) add(t0 + i * 100'000LL, "t40002", "mark text=m rc=0");
  add(t0 + 500'000'000LL, "t40003", "mark text=half rc=0");
  add(t0 + 1'000'000'000LL, "t40002", "exit rc=0");
  add(t0 + 1'000'000'000LL, "t40003", "exit rc=0");
  ViewState state;
  state.setSnapshot(snapshotOfText(text));
  REQUIRE(state.snapshot()->marks().size() == 10000);
  QImage img(800, 200, QImage::Format_RGB32);
  img.fill(Qt::white);
  QPainter p(&img);
  const auto layout = DiagramLayout::make(img.rect(), state);
  paintDiagram(p, layout, state, {false, false, true});
  p.end();
  auto count = [&](TaskIndex t, const QColor& c, int x0, int x1) {
    int n = 0;
    for (int y = static_cast<int>(layout.rowTop(t)); y < layout.rowTop(t) + layout.rowHeight; ++y)
      for (int x = x0; x < x1; ++x) n += QColor(img.pixel(x, y)) == c;
    return n;
  };
  const TaskIndex dense = taskNamed(*state.snapshot(), "dense", 0), lone = taskNamed(*state.snapshot(), "lone", 0);
  const int left = static_cast<int>(layout.xOf(t0 + 10'000'000)), right = static_cast<int>(layout.xOf(t0 + 990'000'000));
  const int area = (right - left) * static_cast<int>(layout.rowHeight);
  INFO("row of " << layout.rowHeight << " px, " << right - left << " columns");
  CHECK(count(dense, kMarkColor, left, right) > 0);                    // the marks are shown
  CHECK(count(dense, kMarkColor, left, right) * 6 < area);            // as a strip, not over the row
  CHECK(count(dense, stateColor(TaskState::Computing), left, right) * 4 > area * 3);  // the state shows
  // A lone mark keeps its tick across the row.
  const int x = static_cast<int>(layout.xOf(t0 + 500'000'000LL));
  CHECK(count(lone, kMarkColor, x - 1, x + 2) >= static_cast<int>(layout.rowHeight) - 2);
}
