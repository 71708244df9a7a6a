// The Why-slow tab's models and the diagram's highlights: a master whose
// two workers answer late, one much later than the other (its truth is
// known: late sender, 1.9 s caused by (b, 0), 0.1 s by (a, 0)).
#include "diagram_painter.h"
#include "highlights.h"
#include "state_dump.h"
#include "support.h"
#include "why_models.h"

#include <QImage>
#include <QJsonArray>

#include <catch2/catch.hpp>

#include <algorithm>


using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

constexpr TimeNs kMs = 1'000'000;
constexpr TimeNs kStart = 1000 * 1'000'000'000LL;

}  // namespace

TEST_CASE("why: the causes ranked, a cause's waits and its work as highlights, the critical path") {
  ViewState state;
  state.setSnapshot(snapshotOfText(lateWorkersTrace()));
  const ViewSnapshot& s = *state.snapshot();
  const TaskIndex master = taskNamed(s, "master", 0), a = taskNamed(s, "a", 0), b = taskNamed(s, "b", 0);
  WhyCauseModel model(&state);
  ModelChecker checker(&model);
  REQUIRE(model.rowCount() == 2);
  CHECK(model.index(0, WhyCauseModel::TaskCol).data() == "(b, 0)");
  CHECK(model.index(0, WhyCauseModel::PatternCol).data() == "late sender");
  CHECK(model.index(0, WhyCauseModel::CostCol).data() == formatDuration(1900 * kMs));
  CHECK(model.index(1, WhyCauseModel::TaskCol).data() == "(a, 0)");
  CHECK(checker.messages().isEmpty());

  const auto h = causeHighlights(s, 0);
  REQUIRE(h.size() == 2);
  CHECK(h[0] == Highlight{Highlight::Wait, master, kStart + 1100 * kMs, kStart + 3000 * kMs});
  CHECK(h[1] == Highlight{Highlight::CauseWork, b, kStart + 1100 * kMs, kStart + 3000 * kMs});
  CHECK(causeHighlights(s, 1).front() == Highlight{Highlight::Wait, master, kStart + 1000 * kMs, kStart + 1100 * kMs});
  CHECK(causeHighlights(s, 2).empty());

  // The path: b's work to its late send, then the master's to its exit.
  const auto path = criticalPathHighlights(s);
  REQUIRE(path.size() >= 2);
  CHECK(path.front().task == b);
  CHECK(path.back().task == master);
  CHECK(path.back().end == kStart + 3500 * kMs);
  for (const Highlight& step : path) CHECK(step.task != a);

  const QStringList lines = whyReportLines(s);
  REQUIRE_FALSE(lines.isEmpty());
  CHECK(lines.join('\n').contains("(b, 0)"));
  CHECK(lines.join('\n').contains("critical path"));
}

TEST_CASE("why: a cause that kept others waiting only through a chain shows the waits it cost") {
  // (b) waits at barrier g for (c) from 1.0 s to 3.0 s, then sends to the
  // master at 3.1 s; the master waits in recv from 1.0 s.  (c) is the root
  // of the master's late-sender wait, yet made no late-sender wait itself.
  auto line = [](const char* t, int task, const std::string& rest) {
    return std::string(t) + " " + t + " t" + std::to_string(40000 + task) + " " + rest + "\n";
  };
  std::string text = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.000000000\n";
  text += line("1000.0", 2, "mytid rc=t40002 name=master host=vm parent=none lang=c pid=2");
  text += line("1000.0", 3, "mytid rc=t40003 name=b host=vm parent=t40002 lang=c pid=3");
  text += line("1000.0", 4, "mytid rc=t40004 name=c host=vm parent=t40002 lang=c pid=4");
  text += line("1000.1", 3, "joingroup group=g rc=0") + line("1000.1", 4, "joingroup group=g rc=1");
  text += line("1001.0", 2, "recv.begin src=t40003 tag=1");
  text += line("1001.0", 3, "barrier.begin group=g count=2");
  text += line("1003.0", 4, "barrier.begin group=g count=2") + line("1003.0", 4, "barrier group=g count=2 rc=0");
  text += line("1003.0", 3, "barrier group=g count=2 rc=0");
  text += line("1003.1", 3, "send dst=t40002 tag=1 bytes=4 serial=1 rc=0");
  text += line("1003.1", 2, "recv src=t40003 tag=1 bytes=4 serial=1 rc=1");
  text += line("1003.2", 2, "exit rc=0") + line("1003.2", 3, "exit rc=0") + line("1003.2", 4, "exit rc=0");
  auto s = snapshotOfText(text);
  const TaskIndex master = taskNamed(*s, "master", 0), b = taskNamed(*s, "b", 0), c = taskNamed(*s, "c", 0);
  const auto& causes = s->why().causes;
  auto rank = std::find_if(causes.begin(), causes.end(),
                           [&](const WaitCause& x) { return x.task == c && x.pattern == WaitPattern::LateSender; });
  REQUIRE(rank != causes.end());
  const auto h = causeHighlights(*s, static_cast<std::size_t>(rank - causes.begin()));
  REQUIRE_FALSE(h.empty());
  CHECK(std::any_of(h.begin(), h.end(), [&](const Highlight& x) { return x.kind == Highlight::Wait && x.task == master; }));
  CHECK(std::none_of(h.begin(), h.end(), [&](const Highlight& x) { return x.kind == Highlight::Wait && x.task == b; }));
  CHECK(std::any_of(h.begin(), h.end(), [&](const Highlight& x) { return x.kind == Highlight::CauseWork && x.task == c; }));
}

TEST_CASE("why: before the analysis has run there is nothing to rank and the report says so") {
  auto s = snapshotOfText(lateWorkersTrace());
  s->analysis = std::make_shared<view::Analysis>();  // as the snapshot thread hands it over first
  s->whyAnalysis = nullptr;
  ViewState state;
  state.setSnapshot(s);
  WhyCauseModel model(&state);
  CHECK(model.rowCount() == 0);
  CHECK(causeHighlights(*s, 0).empty());
  CHECK(whyReportLines(*s) == QStringList{"Analysing: the report comes when the analysis has run."});
}

TEST_CASE("why: highlights are drawn over the states on their rows only, and the dump counts them") {
  ViewState state;
  state.setSnapshot(snapshotOfText(lateWorkersTrace()));
  const ViewSnapshot& s = *state.snapshot();
  const TaskIndex master = taskNamed(s, "master", 0), a = taskNamed(s, "a", 0), b = taskNamed(s, "b", 0);
  auto paint = [&] {
    QImage img(900, 200, QImage::Format_RGB32);
    img.fill(Qt::white);
    QPainter p(&img);
    paintDiagram(p, DiagramLayout::make(img.rect(), state), state);
    return img;
  };
  const QImage plain = paint();
  state.setHighlights(causeHighlights(s, 0));
  const QImage marked = paint();
  const auto layout = DiagramLayout::make(plain.rect(), state);
  auto differs = [&](TaskIndex t, int ms) {
    const int x = static_cast<int>(layout.xOf(kStart + ms * kMs));
    for (int y = static_cast<int>(layout.rowTop(t)); y < static_cast<int>(layout.rowTop(t) + layout.rowHeight); ++y)
      if (plain.pixel(x, y) != marked.pixel(x, y)) return true;
    return false;
  };
  CHECK(differs(master, 2000));  // its wait for b
  CHECK(differs(b, 2000));       // b's work meanwhile
  CHECK_FALSE(differs(a, 2000));
  CHECK_FALSE(differs(master, 500));  // before any wait
  CHECK(dumpState(state)["highlights"].toInt() == 2);
  CHECK(dumpState(state)["why"].toArray().size() > 1);
}
