// The diagram painter: it draws, it folds, it stays bounded at full zoom-out;
// hit testing finds spans and messages; the state dump says what is shown.
#include "diagram_hit.h"
#include "diagram_painter.h"
#include "span_search.h"
#include "utilization.h"
#include "state_dump.h"
#include "support.h"

#include <QImage>
#include <QJsonArray>
#include <QPicture>

#include <array>
#include <optional>
#include <cstdio>
#include <string>

#include <catch2/catch.hpp>

#include <tuple>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// tasks x rounds of pack/send/recv: many spans a pixel wide at full zoom-out.
std::string syntheticTrace(int tasks, int rounds) {
  std::string out = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.0\n";
  char line[256];
  for (int t = 0; t < tasks; ++t) {
    long long time = 1'000'000'000'000LL;
    int tid = 0x40002 + t;
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x mytid rc=t%x name=w host=vm parent=none lang=c pid=%d\n",
                  time / 1000000000, time % 1000000000, time / 1000000000, time % 1000000000, tid, tid, t);
    out += line;
    for (int r = 0; r < rounds; ++r) {
      const char* recs[] = {"initsend enc=0 rc=1", "pkint type=int n=4 stride=1 rc=0",
                            "recv.begin src=any tag=3", "recv src=any tag=3 bytes=0 serial=0 rc=0"};
      for (const char* rec : recs) {
        time += 1000 + (r % 7) * 100;
        std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x %s\n", time / 1000000000, time % 1000000000,
                      time / 1000000000, time % 1000000000, tid, rec);
        out += line;
      }
    }
  }
  return out;
}

int nonWhite(const QImage& img) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      if (img.pixel(x, y) != qRgb(255, 255, 255)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the diagram draws bars, messages and the cursor") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  QImage img(800, 300, QImage::Format_RGB32);
  QPainter p(&img);
  auto layout = DiagramLayout::make(img.rect(), state);
  auto stats = paintDiagram(p, layout, state);
  p.end();
  CHECK(stats.rects > 4);
  CHECK(stats.messageLines == 3);  // the mcast reaches three nodes; tag 16004 never arrives
  CHECK(nonWhite(img) > 5000);
  // The host's row is spawning (purple) in the middle of its first 50 ms.
  TaskIndex host = taskNamed(*state.snapshot(), "cholhost", 0);
  const auto& ev = state.snapshot()->trace->events(host);
  double x = (layout.xOf(ev[1].time) + layout.xOf(ev[2].time)) / 2;
  double y = layout.rowTop(host) + layout.rowHeight / 2;
  CHECK(QColor(img.pixel(static_cast<int>(x), static_cast<int>(y))) == stateColor(TaskState::Spawning));
  auto hit = hitTest(layout, state, QPointF(x, y));
  REQUIRE(hit.span);
  CHECK(hit.span->state == TaskState::Spawning);
  CHECK(hit.position == state.snapshot()->positionOf({host, 1}));
}

TEST_CASE("at full zoom-out the diagram folds: bounded rectangles and span visits per row") {
  const int tasks = 8, rounds = 5000;  // 160k records
  ViewState state;
  state.setSnapshot(snapshotOfText(syntheticTrace(tasks, rounds)));
  REQUIRE(state.size() == static_cast<std::size_t>(tasks * (1 + 4 * rounds)));
  QImage img(1000, 400, QImage::Format_RGB32);
  QPainter p(&img);
  auto layout = DiagramLayout::make(img.rect(), state);
  auto stats = paintDiagram(p, layout, state, {false, false, true});
  p.end();
  const auto width = static_cast<std::size_t>(layout.plot().width());
  CHECK(stats.rects <= tasks * width);
  CHECK(stats.spansVisited <= tasks * width * (kMaxSpansPerColumn + 3));
  CHECK(nonWhite(img) > 1000);
  // Zoomed in to a few rounds, spans are wide and drawn one by one.
  TimeNs mid = (state.viewBegin() + state.viewEnd()) / 2;
  state.setViewRange(mid, mid + 40'000);
  QImage img2(1000, 400, QImage::Format_RGB32);
  QPainter p2(&img2);
  auto stats2 = paintDiagram(p2, DiagramLayout::make(img2.rect(), state), state);
  p2.end();
  CHECK(stats2.rects > 0);
  CHECK(stats2.spansVisited < 1000);
}

// Rows are at least 2 px high, so a trace of many tasks reaches far below
// the area: only the rows in it are painted, whatever the task count.
TEST_CASE("the diagram paints only the rows in its area: 20,000 tasks cost the rows shown") {
  const int tasks = 20000;
  ViewState state;
  state.setSnapshot(snapshotOfText(syntheticTrace(tasks, 1)));
  RowChoice unfolded;  // a row per task (by default so many fold by name)
  unfolded.fold = RowFold::None;
  state.setRowChoice(unfolded);
  QImage img(800, 300, QImage::Format_RGB32);
  QPainter p(&img);
  auto layout = DiagramLayout::make(img.rect(), state);
  const std::size_t fit = 300 / 2 + 1;  // rows of 2 px, one cut by the bottom edge
  auto [first, last] = layout.visibleRows();
  CHECK(first == 0);
  CHECK(last <= fit);
  CHECK(layout.rowTop(last) >= img.rect().bottom());
  auto stats = paintDiagram(p, layout, state);
  p.end();
  CHECK(stats.rects > 0);
  CHECK(stats.rects <= fit * 8);
  CHECK(stats.spansVisited <= fit * 8);
}

TEST_CASE("utilization counts tasks per activity at a moment") {
  ViewState state;
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  state.setSnapshot(s);
  auto n = utilizationAt(state, s->lastTime() - 1);
  CHECK(n[static_cast<int>(Activity::Blocked)] == 3);  // the host enters its recv at the very end
  CHECK(n[static_cast<int>(Activity::Computing)] == 1);
  QImage img(600, 60, QImage::Format_RGB32);
  QPainter p(&img);
  paintUtilization(p, img.rect(), 150, state);
  p.end();
  CHECK(nonWhite(img) > 500);
}

// The strip's counts come from one sweep over the spans in view (or, with
// many more spans than columns, a look-up per column); they must be what
// utilizationAt says at each column's centre, at any replay position and
// zoom.
TEST_CASE("utilization per column, swept, equals utilizationAt at each column centre") {
  for (const char* name : {"cholesky_hang.trace", "barrier_hang.trace", "deadlock.trace", "mcast.trace", "ge.trace"}) {
    INFO(name);
    ViewState state;
    state.setSnapshot(snapshotOf(dataPath(name)));
    const std::size_t size = state.size();
    for (std::size_t pos : {size, size / 2, size / 5, std::size_t{1}}) {
      state.setPosition(pos);
      const TimeNs b = state.viewBegin(), e = state.viewEnd();
      for (auto [from, to, columns] : {std::tuple{b, e, 450}, std::tuple{b + (e - b) / 3, b + (e - b) / 2, 97},
                                       std::tuple{b - (e - b), e + (e - b), 13},
                                       // Far more spans than columns: each column's centre is looked up.
                                       std::tuple{b, e, 2}, std::tuple{b + (e - b) / 4, e, 3}}) {
        const double ns = static_cast<double>(to - from) / columns;
        auto swept = utilizationColumns(state, from, ns, columns);
        REQUIRE(swept.size() == static_cast<std::size_t>(columns));
        int differ = 0;
        for (int x = 0; x < columns; ++x)
          differ += swept[static_cast<std::size_t>(x)] != utilizationAt(state, from + static_cast<TimeNs>((x + 0.5) * ns));
        INFO("position " << pos << ", " << columns << " columns");
        CHECK(differ == 0);
      }
    }
  }
}

// A long trace at full zoom-out (live): many more spans than columns.  A
// task whose mipmap has bins no wider than a column counts in the state
// that covers most of the bin at the column's centre (computed here from
// the spans), up to where the bins end or the last shown span begins; in
// the columns after, in its state at the centre (utilizationAt's).
TEST_CASE("utilization per column of a long trace: the bin's dominant state where the mipmap reaches, else the state at the centre") {
  ViewState state;
  state.setSnapshot(snapshotOfText(syntheticTrace(4, 3000)));
  const ViewSnapshot& s = *state.snapshot();
  const std::size_t size = state.size();
  int fromMipmap = 0;
  for (std::size_t pos : {size, size / 3, std::size_t{5}}) {
    state.setPosition(pos);
    const TimeNs b = state.viewBegin(), e = state.viewEnd();
    for (auto [from, to, columns] : {std::tuple{b, e, 300}, std::tuple{b + (e - b) / 3, b + (e - b) / 2, 41}}) {
      const double ns = static_cast<double>(to - from) / columns;
      const TimeNs start = from;  // a lambda may not capture a structured binding (clang)
      auto center = [&](int x) { return start + static_cast<TimeNs>((x + 0.5) * ns); };
      std::vector<std::array<int, kActivityCount>> want(static_cast<std::size_t>(columns));
      for (TaskIndex t = 0; t < s.spans.size(); ++t) {
        const SpanList& spans = s.spans[t];
        const StateMipmap& mip = s.mipmaps[t];
        const std::uint32_t shown = state.shownOf(t);
        // Where the mipmap's knowledge of the shown spans ends, at its level for this column width.
        std::size_t level = 0;
        TimeNs reach = INT64_MIN;
        if (mip.width0 > 0 && static_cast<double>(mip.width0) <= ns) {
          while (level + 1 < mip.levels.size() && static_cast<double>(mip.binWidth(level + 1)) <= ns) ++level;
          std::size_t lastShown = 0;
          while (lastShown + 1 < spans.size() && spans[lastShown + 1].first < shown) ++lastShown;
          if (spans.size() > 0 && spans[0].first < shown) reach = std::min(mip.endOf(level), spans[lastShown].begin);
        }
        bool mipmapped = true;
        for (int x = 0; x < columns; ++x) {
          const TimeNs c = center(x);
          const TimeNs w = mip.binWidth(level);
          const TimeNs binBegin = c >= mip.origin ? mip.origin + (c - mip.origin) / w * w : 0;
          mipmapped = mipmapped && reach != INT64_MIN && from + static_cast<TimeNs>((x + 1) * ns) <= reach &&
                      (c < mip.origin || binBegin + w <= reach);
          std::optional<TaskState> st;
          if (mipmapped && c >= mip.origin) {  // the state covering most of [binBegin, binBegin + w)
            std::array<TimeNs, 11> cover{};
            for (std::size_t i = 0; i + 1 < spans.size() && spans[i].state != TaskState::Exited; ++i) {
              const TimeNs sb = std::max(spans[i].begin, binBegin), se = std::min(spans[i + 1].begin, binBegin + w);
              if (se > sb) cover[static_cast<std::size_t>(spans[i].state)] += se - sb;
            }
            auto best = std::max_element(cover.begin(), cover.end());
            if (*best > 0) st = static_cast<TaskState>(best - cover.begin());
            ++fromMipmap;
          } else if (!mipmapped) {  // as utilizationAt
            if (spans.empty() || spans.beginAt(0) > c) continue;
            const std::size_t i = spanAtOrBefore(spans, c);
            if (spans.firstAt(i) >= shown || c >= shownEnd(spans, i, shown, shownLimit(state, t))) continue;
            st = spans.stateAt(i);
          }
          if (st) ++want[static_cast<std::size_t>(x)][static_cast<std::size_t>(activityOf(*st))];
        }
      }
      auto counts = utilizationColumns(state, from, ns, columns);
      REQUIRE(counts.size() == static_cast<std::size_t>(columns));
      int differ = 0, busy = 0;
      for (int x = 0; x < columns; ++x) {
        differ += counts[static_cast<std::size_t>(x)] != want[static_cast<std::size_t>(x)];
        for (int n : counts[static_cast<std::size_t>(x)]) busy += n;
      }
      INFO("position " << pos << ", " << columns << " columns");
      CHECK(differ == 0);
      if (pos == size) CHECK(busy > 0);
    }
  }
  CHECK(fromMipmap > 1000);  // the mipmaps were read, not only the spans
}

TEST_CASE("the state dump holds what every view shows") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  QJsonObject d = dumpState(state);
  CHECK(d["events"].toInt() == 33);
  CHECK(d["position"].toInt() == 33);
  CHECK(d["hung"].toBool());
  QJsonArray tasks = d["tasks"].toArray();
  REQUIRE(tasks.size() == 4);
  CHECK(tasks[0].toObject()["task"].toString() == "(cholhost, 0)");
  CHECK(tasks[0].toObject()["doing"].toString().startsWith("blocked in recv(src any, tag 16040)"));
  CHECK(d["messages"].toObject()["pending"].toArray().size() == 3);
  CHECK(d["current"].toObject()["event"].toString() == "recv.begin");
}

TEST_CASE("a state mipmap holds each bin's dominant state, level by level, and nothing after an exit") {
  // 6000 spans of 1000 ns: 3 computing, 1 receiving, repeated; then an exit.
  std::vector<Span> spans;
  const TimeNs t0 = 1'000'000;
  for (std::uint32_t i = 0; i < 6000; ++i)
    spans.push_back({t0 + TimeNs{i} * 1000, i, i % 4 == 3 ? TaskState::Receiving : TaskState::Computing});
  spans.push_back({t0 + 6'000'000, 6000, TaskState::Exited});
  StateMipmap m = buildMipmap(SpanList({}, spans));
  REQUIRE(m.width0 > 0);
  CHECK(m.levels.front().size() <= kMipBins);
  CHECK(m.levels.back().size() == 1);
  // A level's bins are its closed pairs below: it ends where they do, or a bin short.
  for (std::size_t l = 1; l < m.levels.size(); ++l) CHECK(m.levels[l].size() == m.levels[l - 1].size() / 2);
  CHECK(m.endOf(0) == t0 + 6'000'000);
  // A bin a span wide at level 0 is that span's state; wide bins are mostly computing.
  REQUIRE(m.width0 <= 1000);
  CHECK(m.at(0, t0 + 3 * 1000 + 10) == static_cast<std::uint8_t>(TaskState::Receiving));
  CHECK(m.at(0, t0 + 1 * 1000 + 10) == static_cast<std::uint8_t>(TaskState::Computing));
  CHECK(m.at(m.levels.size() - 1, t0) == static_cast<std::uint8_t>(TaskState::Computing));
  // After the exit, and before the origin: nothing.
  CHECK(m.at(0, t0 + 7'000'000) == kNoState);
  CHECK(m.at(0, t0 - 1) == kNoState);
  // Few spans: no mipmap (the spans are cheap to walk).
  spans.resize(100);
  CHECK(buildMipmap(SpanList({}, spans)).width0 == 0);
}

TEST_CASE("a mipmap made as spans come keeps at most kMipBins bins, its bins widening as the time grows") {
  // Spans of 700 ns, alternately computing (500) and receiving (200), for
  // 64 times the first bins' reach: the width doubles six times.
  MipmapBuilder b;
  const TimeNs t0 = 5'000, reach = 1000 * static_cast<TimeNs>(kMipBins) * 64;
  TimeNs t = t0;
  while (t - t0 < reach) {
    b.fold(t, t + 500, TaskState::Computing);
    b.fold(t + 500, t + 700, TaskState::Receiving);
    t += 700;
  }
  StateMipmap m = b.freeze();
  CHECK(m.width0 >= 64 * 1000);
  CHECK(m.levels[0].size() <= kMipBins);
  CHECK(m.levels[0].size() >= kMipBins / 2);
  // Every closed bin is mostly computing, at every level.
  for (std::size_t l = 0; l < m.levels.size(); ++l)
    for (std::size_t j = 0; j < m.levels[l].size(); j += 97)
      CHECK(m.at(l, m.origin + static_cast<TimeNs>(j) * m.binWidth(l)) == static_cast<std::uint8_t>(TaskState::Computing));
  // Nothing past the last closed bin: the open one is not known yet.
  CHECK(m.endOf(0) <= t);
  CHECK(m.at(0, m.endOf(0)) == kNoState);
  // Intervals that overlap the last one's end are cut to start there.
  MipmapBuilder c;
  c.fold(0, 2000, TaskState::Computing);
  c.fold(1000, 2300, TaskState::Receiving);  // counts from 2000: 300 ns of the bin
  c.fold(2300, 3000, TaskState::Computing);
  c.fold(3000, 4000, TaskState::Receiving);
  StateMipmap n = c.freeze();
  REQUIRE(n.levels[0].size() == 4);
  CHECK(n.at(0, 1000) == static_cast<std::uint8_t>(TaskState::Computing));
  CHECK(n.at(0, 2500) == static_cast<std::uint8_t>(TaskState::Computing));
  CHECK(n.at(0, 3500) == static_cast<std::uint8_t>(TaskState::Receiving));
}

// Per task row and pixel column: does the picture show the state that
// really covers most of the column (by the spans, as the replay position
// shows them)?  The share of columns where it does.
double faithfulness(const QImage& img, const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot& s = *st.snapshot();
  const double ns = layout.nsPerPixel();
  const int columns = static_cast<int>(layout.plot().width());
  int checked = 0, right = 0;
  for (TaskIndex t = 0; t < layout.tasks; ++t) {
    const auto& spans = s.spans[t];
    const std::uint32_t shown = st.shownOf(t);
    const TimeNs limit = shownLimit(st, t);
    std::vector<std::array<TimeNs, 11>> cover(static_cast<std::size_t>(columns), std::array<TimeNs, 11>{});
    for (std::size_t i = 0; i < spans.size() && spans[i].first < shown && spans[i].state != TaskState::Exited; ++i) {
      TimeNs b = spans[i].begin;
      TimeNs e = i + 1 < spans.size() && spans[i + 1].first < shown ? spans[i + 1].begin : std::max(b, limit);
      for (int c = std::max(0, static_cast<int>((b - layout.begin) / ns)); c < columns; ++c) {
        TimeNs cb = layout.begin + static_cast<TimeNs>(c * ns), ce = layout.begin + static_cast<TimeNs>((c + 1) * ns);
        if (cb >= e) break;
        cover[static_cast<std::size_t>(c)][static_cast<std::size_t>(spans[i].state)] += std::min(e, ce) - std::max(b, cb);
      }
    }
    int y = static_cast<int>(layout.rowTop(t) + layout.rowHeight / 2);
    for (int c = 0; c < columns; ++c) {
      const auto& cv = cover[static_cast<std::size_t>(c)];
      auto best = std::max_element(cv.begin(), cv.end());
      if (*best <= 0) continue;
      ++checked;
      auto state = static_cast<TaskState>(best - cv.begin());
      right += QColor(img.pixel(static_cast<int>(layout.plot().left()) + c, y)) == stateColor(state);
    }
  }
  return checked ? static_cast<double>(right) / checked : 1.0;
}

TEST_CASE("at full zoom-out the mipmap draws each column's dominant state, reading one bin per column") {
  const int tasks = 8, rounds = 5000;
  ViewState state;
  state.setSnapshot(snapshotOfText(syntheticTrace(tasks, rounds)));
  auto paint = [&](bool mipmaps, DiagramStats& stats) {
    QImage img(1000, 400, QImage::Format_RGB32);
    QPainter p(&img);
    stats = paintDiagram(p, DiagramLayout::make(img.rect(), state), state, {false, false, true, mipmaps});
    return img;
  };
  auto compare = [&](const char* when) {
    INFO(when);
    DiagramStats withMip, without;
    QImage a = paint(true, withMip), b = paint(false, without);
    auto layout = DiagramLayout::make(a.rect(), state);
    const auto width = static_cast<std::size_t>(layout.plot().width());
    CHECK(withMip.spansVisited <= tasks * (width + 2 * (kMaxSpansPerColumn + 3)));
    CHECK(nonWhite(a) > 1000);
    // The mipmap shows the dominant state in nearly every column (bins
    // and columns do not align exactly), and at least as often as folding
    // the spans, which looks at only the first spans of each column.
    double mip = faithfulness(a, layout, state), fold = faithfulness(b, layout, state);
    INFO("mipmap " << mip << ", folded spans " << fold);
    CHECK(mip >= 0.95);
    CHECK(mip >= fold);
    return std::pair{withMip.spansVisited, without.spansVisited};
  };
  auto [mipVisits, foldVisits] = compare("at the end");
  CHECK(mipVisits * 4 < foldVisits);
  state.setPosition(state.size() / 2);  // replaying: nothing after the position may appear
  compare("at mid replay");
  state.setPosition(state.size() / 10);
  compare("early in the replay");
}

TEST_CASE("barrier bands drawn as stretched strips look as the rectangles and lines of vector output") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("barrier.trace")));
  REQUIRE(state.snapshot()->barriers().instances.size() == 2);
  // On a raster image: the strips.  Through a QPicture (a vector device, as
  // SVG is): rectangles and lines, then replayed onto an image.
  QImage raster(900, 300, QImage::Format_RGB32), vector(900, 300, QImage::Format_RGB32);
  const DiagramOptions bandsOnly{false, true, true};
  {
    QPainter p(&raster);
    paintDiagram(p, DiagramLayout::make(raster.rect(), state), state, bandsOnly);
  }
  QPicture picture;
  {
    QPainter p(&picture);
    paintDiagram(p, DiagramLayout::make(vector.rect(), state), state, bandsOnly);
  }
  {
    vector.fill(Qt::white);
    QPainter p(&vector);
    p.drawPicture(0, 0, picture);
  }
  int differ = 0, orange = 0;
  for (int y = 0; y < raster.height(); ++y)
    for (int x = 0; x < raster.width(); ++x) {
      differ += qAbs(qRed(raster.pixel(x, y)) - qRed(vector.pixel(x, y))) > 8 ||
                qAbs(qBlue(raster.pixel(x, y)) - qBlue(vector.pixel(x, y))) > 8;
      orange += raster.pixel(x, y) == qRgb(0xe6, 0x51, 0x00);
    }
  CHECK(orange > 50);                                  // the bands' edges are there
  CHECK(differ < raster.width() * raster.height() / 200);  // and the picture is the same
}

TEST_CASE("legend: every state the diagram draws has its own colour and an entry in the legend") {
  const auto legend = diagramLegend();
  std::set<QRgb> barColours;
  for (TaskState s : {TaskState::Computing, TaskState::Packing, TaskState::Sending, TaskState::Unpacking,
                      TaskState::Receiving, TaskState::Blocked, TaskState::Barrier, TaskState::Collective,
                      TaskState::Spawning}) {
    INFO(std::string(stateName(s)));
    auto it = std::find_if(legend.begin(), legend.end(), [&](const LegendEntry& e) {
      return e.shape == LegendEntry::Bar && e.name.toStdString() == stateName(s);
    });
    REQUIRE(it != legend.end());
    CHECK(it->color == stateColor(s));
    CHECK(!it->meaning.isEmpty());
    barColours.insert(stateColor(s).rgb());
  }
  CHECK(barColours.size() == 9);  // every state its own colour: receiving and blocked apart
  CHECK(stateColor(TaskState::Receiving) != stateColor(TaskState::Blocked));
  auto named = [&](const QColor& c) {
    return std::any_of(legend.begin(), legend.end(),
                       [&](const LegendEntry& e) { return e.shape == LegendEntry::Name && e.color == c; });
  };
  CHECK(named(kNameBlocked));
  CHECK(named(kNameBarrier));
}

TEST_CASE("legend: a task's name is on pink while it is blocked at the replay position") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("deadlock.trace")));  // ping and pong wait for each other
  QImage img(800, 200, QImage::Format_RGB32);
  QPainter p(&img);
  auto layout = DiagramLayout::make(img.rect(), state);
  paintDiagram(p, layout, state);
  TaskIndex ping = taskNamed(*state.snapshot(), "ping", 0);
  CHECK(QColor(img.pixel(layout.labelWidth - 6, static_cast<int>(layout.rowTop(ping) + 2))) == kNameBlocked);
}

// On several hosts the diagram groups its rows by host (hosts in
// the order of their first task), with the host's name on each group's
// first row; on one host the rows stay in trace order.
TEST_CASE("the diagram groups task rows by host, each group labelled with its host") {
  // w0 on node0, w1 on node1, w2 on node0, w3 on node1: interleaved in the trace.
  std::string text = "#xab-trace 1 abmon=t40001 host=node0 pid=1 start=1000.0\n";
  char line[256];
  for (int t = 0; t < 4; ++t) {
    int tid = (t % 2 ? 0x80002 : 0x40002) + t;
    for (int r = 0; r < 3; ++r) {
      long long time = 1'000'000'000'000LL + r * 1'000'000 + t * 1000;
      const char* rec = r == 0 ? "mytid rc=" : r == 1 ? "initsend enc=0 rc=1" : "exit rc=0";  // mytid: rc= the tid, then its identity
      std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x %s", time / 1000000000, time % 1000000000,
                    time / 1000000000, time % 1000000000, tid, rec);
      text += line;
      if (r == 0)
        std::snprintf(line, sizeof line, "t%x name=w host=node%d parent=none lang=c pid=%d\n", tid, t % 2, t),
            text += line;
      else
        text += "\n";
    }
  }
  ViewState state;
  state.setSnapshot(snapshotOfText(text));
  REQUIRE(state.snapshot()->trace->taskCount() == 4);
  QImage img(800, 200, QImage::Format_RGB32);
  QPainter p(&img);
  auto layout = DiagramLayout::make(img.rect(), state);
  paintDiagram(p, layout, state);
  p.end();
  // Rows: node0's w0, w2, then node1's w1, w3.
  CHECK(layout.rowOf(0) == 0);
  CHECK(layout.rowOf(2) == 1);
  CHECK(layout.rowOf(1) == 2);
  CHECK(layout.rowOf(3) == 3);
  CHECK(layout.hostFirstRows == std::vector<TaskIndex>{0, 2});
  auto middle = [&](TaskIndex row) { return layout.rowTopOfRow(row) + layout.rowHeight / 2; };
  CHECK(layout.taskAt(middle(1)) == std::optional<TaskIndex>(2));
  CHECK(layout.taskAt(middle(2)) == std::optional<TaskIndex>(1));
  // The host's name, right-aligned in the name column: dark pixels on each
  // group's first row, none on the other rows (short task names on the left).
  auto darkRight = [&](TaskIndex row) {
    int n = 0;
    for (int y = static_cast<int>(layout.rowTopOfRow(row)) + 2; y < static_cast<int>(layout.rowTopOfRow(row + 1)) - 1; ++y)
      for (int x = layout.labelWidth - 60; x < layout.labelWidth - 4; ++x) n += qGray(img.pixel(x, y)) < 160;
    return n;
  };
  CHECK(darkRight(0) > 0);
  CHECK(darkRight(2) > 0);
  CHECK(darkRight(1) == 0);
  CHECK(darkRight(3) == 0);

  // One host: trace order, no groups.
  ViewState one;
  one.setSnapshot(snapshotOfText(syntheticTrace(3, 1)));
  auto flat = DiagramLayout::make(img.rect(), one);
  CHECK(flat.rowTask == std::vector<TaskIndex>{0, 1, 2});
  CHECK(flat.hostFirstRows.empty());
  CHECK(flat.rowOf(2) == 2);
}

namespace {
// Three workers passing barrier 'w' `n` times, 10 ms apart, 1 ms in each.
std::string manyBarriers(int n) {
  std::string out = "#xab-trace 1 abmon=t40001 host=vm pid=4242 start=1763680000.000000000\n";
  const long long start = 1763680001'000000000LL;
  char line[200];
  auto rec = [&](long long t, int tid, const std::string& rest) {
    std::snprintf(line, sizeof line, "%lld.%09lld %lld.%09lld t%x %s\n", t / 1000000000, t % 1000000000,
                  t / 1000000000, t % 1000000000, tid, rest.c_str());
    out += line;
  };
  for (int w = 0; w < 3; ++w) {
    const int tid = 0x40002 + w;
    rec(start, tid, "mytid rc=t" + std::to_string(40002 + w) + " name=worker host=vm parent=none lang=c pid=" +
                        std::to_string(300 + w));
    rec(start + 1'000'000, tid, "joingroup group=w rc=" + std::to_string(w));
    for (int i = 0; i < n; ++i) {
      const long long t = start + 2'000'000 + i * 10'000'000LL;
      rec(t + 8'000'000 + w * 100'000, tid, "barrier.begin group=w count=3");
      rec(t + 9'000'000, tid, "barrier group=w count=3 rc=0");
    }
    rec(start + 3'000'000 + n * 10'000'000LL, tid, "exit rc=0");
  }
  return out;
}
}  // namespace

TEST_CASE("barrier bands narrower than a few pixels fold away: they never hide the states") {
  ViewState state;
  state.setSnapshot(snapshotOfText(manyBarriers(500)));
  REQUIRE(state.snapshot()->barriers().instances.size() == 500);
  auto render = [&](bool bands) {
    QImage img(900, 300, QImage::Format_RGB32);
    QPainter p(&img);
    paintDiagram(p, DiagramLayout::make(img.rect(), state), state, DiagramOptions{false, bands, true});
    return img;
  };
  // Zoomed out: each band is under a pixel; the states are as without bands.
  CHECK(render(true) == render(false));
  // Zoomed in to a few barriers: the bands are there, edges and all.
  const TimeNs b = state.snapshot()->tasksBegin + 1'000'000'000;
  state.setViewRange(b, b + 50'000'000);
  const QImage near = render(true);
  int orange = 0;
  for (int y = 0; y < near.height(); ++y)
    for (int x = 0; x < near.width(); ++x) orange += near.pixel(x, y) == qRgb(0xe6, 0x51, 0x00);
  CHECK(orange > 50);
  CHECK(near != render(false));
}

TEST_CASE("the time axis speaks in the unit of its zoom (s, ms, µs) and marks zero") {
  CHECK(axisLabel(0, 100'000'000) == "0");
  CHECK(axisLabel(0, 2'000) == "0");
  CHECK(axisLabel(2'000'000'000, 1'000'000'000) == "2 s");
  CHECK(axisLabel(1'500'000'000, 500'000'000) == "1.5 s");
  CHECK(axisLabel(358'400'000, 200'000) == "358.4 ms");
  CHECK(axisLabel(40'000'000, 20'000'000) == "40 ms");
  CHECK(axisLabel(1'500'000, 500'000) == "1.5 ms");
  CHECK(axisLabel(1'250'000, 50'000) == QString::fromUtf8("1250 µs"));
  CHECK(axisLabel(3'000, 1'000) == QString::fromUtf8("3 µs"));
  CHECK(axisLabel(3'500, 500) == QString::fromUtf8("3.5 µs"));
  CHECK(axisLabel(120, 20) == "120 ns");
  CHECK(axisLabel(-1'000'000'000, 1'000'000'000) == "-1 s");
}

TEST_CASE("the time a task waited for a CPU is hatched over its row, up to the replay position") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("why_overload.trace")));
  const ViewSnapshot& s = *state.snapshot();
  TaskIndex busy = *s.trace->findTask(0x80002), quiet = *s.trace->findTask(0x40003), master = *s.trace->findTask(0x40002);
  // Pixels of the hatching's colour in task t's row over [from, to] s after 1000 s.
  auto hatched = [&](const QImage& img, const DiagramLayout& layout, TaskIndex t, double from, double to) {
    int n = 0;
    const TimeNs s0 = 1000LL * 1'000'000'000;
    for (int x = static_cast<int>(layout.xOf(s0 + static_cast<TimeNs>(from * 1e9)));
         x < static_cast<int>(layout.xOf(s0 + static_cast<TimeNs>(to * 1e9))); ++x)
      for (int y = static_cast<int>(layout.rowTop(t)) + 2; y < static_cast<int>(layout.rowTop(t) + layout.rowHeight) - 2; ++y)
        n += img.pixel(x, y) == qRgb(0x21, 0x21, 0x21);
    return n;
  };
  auto paint = [&](QImage& img) {
    QPainter p(&img);
    auto layout = DiagramLayout::make(img.rect(), state);
    paintDiagram(p, layout, state);
    return layout;
  };
  state.setPosition(s.size());
  QImage img(800, 300, QImage::Format_RGB32);
  img.fill(Qt::white);
  auto layout = paint(img);
  // node1's worker was runnable without a CPU most of 1001..1003 s (1..3 s after 1000 s).
  CHECK(hatched(img, layout, busy, 1.1, 2.9) > 20);
  CHECK(hatched(img, layout, quiet, 0.2, 0.9) == 0);
  CHECK(hatched(img, layout, master, 1.1, 2.9) == 0);
  // Replayed to before the samples' second round: nothing hatched yet.
  state.setPosition(8);
  QImage early(800, 300, QImage::Format_RGB32);
  early.fill(Qt::white);
  auto earlyLayout = paint(early);
  CHECK(hatched(early, earlyLayout, busy, 1.1, 2.9) == 0);
}

TEST_CASE("the time axis keeps every label inside the diagram's area, the last one too") {
  // An area narrower than the image: what is drawn past the area's right
  // edge lands on the image (in the window it would be cut off, "50 m").
  // The view's end moves in small steps, so that the last tick passes
  // every distance from the edge.
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  const TimeNs begin = state.snapshot()->firstTime(), full = state.viewEnd() - state.viewBegin();
  const int width = 700;
  int labelsAtEdge = 0;
  for (int i = 0; i < 80; ++i) {
    const TimeNs end = begin + full / 5 + full * i / 100;
    INFO("view " << begin << " to " << end);
    state.setViewRange(begin, end);
    QImage img(width + 100, 120, QImage::Format_RGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    auto layout = DiagramLayout::make(QRect(0, 0, width, 120), state);
    paintDiagram(p, layout, state, {false, false, false});
    p.end();
    auto inked = [&](int x0, int x1, int y0, int y1) {
      int n = 0;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) n += img.pixel(x, y) != qRgb(255, 255, 255);
      return n;
    };
    const int labels = layout.axisHeight - 6, ticks = layout.axisHeight - 1;  // label rows, then tick rows
    CHECK(inked(width, img.width(), 0, layout.axisHeight) == 0);
    if (inked(width - 30, width - 1, labels, ticks) > 0) {  // a tick within 30 px of the edge
      ++labelsAtEdge;
      CHECK(inked(width - 80, width, 0, labels) > 0);  // has its label, left of it
    }
  }
  CHECK(labelsAtEdge > 2);  // some views put a tick at the very edge
}
