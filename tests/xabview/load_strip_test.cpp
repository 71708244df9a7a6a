// The hosts' load strips (load_strips.h, load_strip_painter.cpp): a strip
// under each host's rows, coloured by its load per CPU up to the replay
// position, that follows the row plan, takes no row's place, is in
// --dump-state and is absent from a trace without samples.
#include "diagram_painter.h"
#include "load_strips.h"
#include "state_dump.h"
#include "support.h"

#include <QImage>
#include <QJsonArray>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

constexpr TimeNs kS = 1'000'000'000;

// The colour in the middle of strip i at `seconds` after 1000 s.
QRgb stripPixel(const QImage& img, const DiagramLayout& layout, std::size_t i, double seconds) {
  const double y = layout.stripTop(i) + layout.stripHeight / 2;
  return img.pixel(static_cast<int>(layout.xOf(1000 * kS + static_cast<TimeNs>(seconds * 1e9))), static_cast<int>(y));
}

}  // namespace

TEST_CASE("load strips: one under each host's rows, coloured by its load per CPU, up to the replay position") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("why_overload.trace")));  // vm: master, w; node1: w
  state.setPosition(state.size());
  QImage img(800, 300, QImage::Format_RGB32);
  DiagramLayout layout = paintDiagramInto(img, state);
  REQUIRE(layout.strips.size() == 2);
  CHECK(layout.strips[0].host == "vm");
  CHECK(layout.strips[0].firstRow == 0);
  CHECK(layout.strips[0].lastRow == 1);
  CHECK(layout.strips[1].host == "node1");
  CHECK(layout.strips[1].firstRow == 2);
  CHECK(layout.strips[1].lastRow == 2);
  CHECK(layout.stripHeight == kLoadStripHeight);
  // Under its host's last row, above the next host's first: no row covers it.
  CHECK(layout.stripTop(0) == layout.rowTopOfRow(1) + layout.rowHeight);
  CHECK(layout.rowTopOfRow(2) == layout.stripTop(0) + layout.stripHeight);
  CHECK(layout.rowTopOfRow(2) + layout.rowHeight + 2 * layout.stripHeight <= img.height());
  const double onStrip = layout.stripTop(1) + 2;
  CHECK(layout.stripAt(onStrip) == std::optional<std::size_t>(1));
  CHECK_FALSE(layout.taskAt(onStrip));
  CHECK(layout.rowAt(layout.rowTopOfRow(2) + layout.rowHeight / 2) == 2);
  CHECK(layout.taskAt(layout.rowTopOfRow(2) + 1) == state.snapshot()->trace->findTask(0x80002));
  // node1: load 3.0 then 3.1, 3.2 on 1 CPU: red; vm: 0.5 on 2 CPUs: a quarter per CPU.
  CHECK(loadColor(3.0) == QColor(0xc6, 0x28, 0x28));
  CHECK(stripPixel(img, layout, 1, 1.5) == loadColor(3.0).rgb());
  CHECK(stripPixel(img, layout, 1, 2.5) == loadColor(3.1).rgb());
  CHECK(stripPixel(img, layout, 0, 1.5) == loadColor(0.25).rgb());
  CHECK(loadColor(0.25) != loadColor(3.0));
  // Before a host's first sample (1001 s) the strip is empty.
  CHECK(stripPixel(img, layout, 1, 0.5) == qRgb(255, 255, 255));

  // Replayed to before node1's second point (1002 s): its strip ends at the position.
  std::size_t before = 0;
  while (before < state.size() && state.snapshot()->eventAt(before).time < 1002 * kS) ++before;
  state.setPosition(before);
  REQUIRE(state.cursorTime() >= 1001 * kS + kS / 20);
  REQUIRE(state.cursorTime() < 1002 * kS);
  QImage early(800, 300, QImage::Format_RGB32);
  const DiagramLayout earlyLayout = paintDiagramInto(early, state);
  CHECK(stripPixel(early, earlyLayout, 1, 1.0 + static_cast<double>(state.cursorTime() - 1001 * kS) / 2e9) ==
        loadColor(3.0).rgb());
  CHECK(stripPixel(early, earlyLayout, 1, 2.5) == qRgb(255, 255, 255));

  // The tool tip: host, load, CPUs, time.
  const QString tip = loadStripText(layout.strips[1], 1002 * kS + kS / 2, 1000 * kS);
  CHECK(tip.startsWith("node1: load 3.10 on 1 CPU (3.10 per CPU)"));
  CHECK(tip.contains("t = 2.5"));
  CHECK(loadStripText(layout.strips[1], 1000 * kS, state.snapshot()->firstTime()).contains("no load sample yet"));
}

TEST_CASE("load strips follow the row plan: hidden, filtered and folded rows, none without samples or with the layer off") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("why_overload.trace")));
  state.setPosition(state.size());
  const QRect area(0, 0, 800, 300);
  auto hosts = [&](const DiagramLayout& l) {
    std::vector<std::string> out;
    for (const LoadStrip& s : l.strips) out.push_back(s.host + " " + std::to_string(s.firstRow) + "-" + std::to_string(s.lastRow));
    return out;
  };
  RowChoice hideNode1;
  hideNode1.hidden.insert(0x80002);
  state.setRowChoice(hideNode1);
  CHECK(hosts(DiagramLayout::make(area, state)) == std::vector<std::string>{"vm 0-1"});
  RowChoice filter;
  filter.filter = "node1";
  state.setRowChoice(filter);
  CHECK(hosts(DiagramLayout::make(area, state)) == std::vector<std::string>{"node1 0-0"});
  RowChoice fold;
  fold.fold = RowFold::ByHost;
  state.setRowChoice(fold);
  CHECK(hosts(DiagramLayout::make(area, state)) == std::vector<std::string>{"vm 0-0", "node1 1-1"});
  // --dump-state says the same.
  const QJsonArray dumped = dumpState(state)["rows"].toObject()["load_strips"].toArray();
  REQUIRE(dumped.size() == 2);
  CHECK(dumped[1].toObject()["host"].toString() == "node1");
  CHECK(dumped[1].toObject()["first_row"].toInt() == 1);
  CHECK(dumped[1].toObject()["last_row"].toInt() == 1);
  state.setRowChoice(RowChoice{});

  // The layer off: no strip, the rows as without samples.
  const DiagramLayout off = DiagramLayout::make(area, state, false);
  CHECK(off.strips.empty());
  CHECK(off.stripHeight == 0);
  CHECK(off.rowTopOfRow(2) == off.rowTopOfRow(0) + 2 * off.rowHeight);
  QImage img(800, 300, QImage::Format_RGB32);
  img.fill(Qt::white);
  {
    QPainter p(&img);
    DiagramOptions o;
    o.loadStrips = false;
    paintDiagram(p, DiagramLayout::make(area, state, o.loadStrips), state, o);
  }
  int red = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) red += img.pixel(x, y) == loadColor(3.0).rgb();
  CHECK(red == 0);

  // A trace without samples: no strip anywhere.
  ViewState plain;
  plain.setSnapshot(snapshotOf(dataPath("barrier.trace")));
  plain.setPosition(plain.size());
  CHECK(DiagramLayout::make(area, plain).strips.empty());
  CHECK(dumpState(plain)["rows"].toObject()["load_strips"].toArray().isEmpty());
}
