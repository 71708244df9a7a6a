// Replay semantics of the shared ViewState, and the hang panel's words.
#include "panel_models.h"
#include "support.h"

#include <QSignalSpy>
#include <QTest>

#include <fstream>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

TEST_CASE("live mode follows new records, stepping pauses, setLive returns") {
  ViewState state;
  QSignalSpy liveSpy(&state, &ViewState::liveChanged);
  auto all = snapshotOf(dataPath("cholesky_hang.trace"));
  auto part = snapshotOfText("#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.0\n"
                             "1.1 1.1 t40002 mytid rc=t40002 name=a host=vm parent=none lang=c pid=5\n");
  state.setSnapshot(part);
  CHECK(state.live());
  CHECK(state.position() == 1);
  state.setSnapshot(all);
  CHECK(state.position() == all->size());

  state.step(-1);  // Step back: exactly one record
  CHECK_FALSE(state.live());
  CHECK(state.position() == all->size() - 1);
  CHECK(liveSpy.count() == 1);
  state.step(1);
  CHECK(state.position() == all->size());
  state.step(1);  // past the end stays at the end
  CHECK(state.position() == all->size());
  state.setPosition(3);
  state.setSnapshot(all);  // paused: new snapshots do not move the position
  CHECK(state.position() == 3);
  state.setLive(true);
  CHECK(state.position() == all->size());
  CHECK(state.live());
}

TEST_CASE("progress is a task's record: abmon's samples arriving do not make a silent program look busy") {
  const std::string head =
      "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.0\n"
      "1.1 1.1 t40002 mytid rc=t40002 name=a host=vm parent=none lang=c pid=5\n"
      "1.2 1.2 t40002 recv.begin src=any tag=1\n";
  const std::string samples =
      "1.3 1.3 t40001 host.load host=vm cpus=2 load_milli=100 busy_permille=10\n"
      "1.3 1.3 t40001 sample tid=t40002 cpu_ms=10 runnable_ms=0 state=S\n";
  ViewState state;
  state.setSnapshot(snapshotOfText(head));
  QTest::qWait(120);
  state.setSnapshot(snapshotOfText(head + samples));
  CHECK(state.size() > 2);              // the samples are records of the trace ...
  CHECK(state.msSinceProgress() >= 120);  // ... but no progress of the program
  const qint64 before = state.msSinceProgress();
  state.setSnapshot(snapshotOfText(head + samples + "1.4 1.4 t40002 recv src=t40003 tag=1 bytes=4 serial=1 rc=1\n"));
  CHECK(state.msSinceProgress() < before);
}

TEST_CASE("the position decides what each task has shown and the cursor time") {
  ViewState state;
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  state.setSnapshot(s);
  TaskIndex host = taskNamed(*s, "cholhost", 0);
  state.setPosition(0);
  CHECK(state.shownOf(host) == 0);
  state.setPosition(4);
  CHECK(state.shownOf(host) == 3);
  CHECK(state.cursorTime() == s->trace->events(host)[2].time);
  state.step(-4);
  CHECK(state.position() == 0);
}

TEST_CASE("selection, zoom and pan are shared state") {
  ViewState state;
  state.setSnapshot(snapshotOf(dataPath("cholesky_hang.trace")));
  QSignalSpy sel(&state, &ViewState::selectionChanged);
  state.select(5);
  CHECK(state.selected() == std::optional<std::size_t>(5));
  state.select(100000);  // out of range: nothing selected
  CHECK_FALSE(state.selected());
  CHECK(sel.count() == 2);
  TimeNs w = state.viewEnd() - state.viewBegin();
  state.zoom(0.5, state.viewBegin());
  CHECK(state.viewEnd() - state.viewBegin() == Approx(w / 2).margin(2));
  TimeNs b = state.viewBegin();
  state.pan(0.5);
  CHECK(state.viewBegin() > b);
  state.fitAll();
  CHECK(state.viewBegin() == state.snapshot()->tasksBegin);
}

TEST_CASE("single-stepping the hung Cholesky run ends with the hang panel naming the tags") {
  ViewState state;
  auto s = snapshotOf(dataPath("cholesky_hang.trace"));
  state.setSnapshot(s);
  state.setPosition(0);
  QString mid;
  for (std::size_t i = 0; i < s->size(); ++i) {
    state.step(1);
    if (i == 10) mid = hangReportHtml(state);
  }
  CHECK(mid.contains("Replaying"));
  QString html = hangReportHtml(state);
  CHECK(html.contains("16040"));
  CHECK(html.contains("16004"));
  CHECK(html.contains("href=\"event:"));
  QStringList lines = hangReportLines(*s);
  REQUIRE_FALSE(lines.isEmpty());
  CHECK(lines.join('\n').contains("tag 16040"));
  CHECK(lines.join('\n').contains("tag 16004"));
}

TEST_CASE("bad input: errors with line numbers, the rest still shown") {
  auto s = snapshotOf(dataPath("malformed.trace"));
  REQUIRE(s->errorCount >= 2);
  CHECK(s->errors[0].line == 3);
  CHECK(s->size() >= 3);  // mytid, the unknown call, the mark, exit
  ViewState state;
  state.setSnapshot(s);
  CHECK(state.position() == s->size());
}

namespace {
// The first `lines` lines of a fixture: the trace as it was when abmon had
// written that much (live input).
std::shared_ptr<ViewSnapshot> prefixOf(const std::string& name, int lines) {
  std::ifstream in(dataPath(name));
  std::string text, line;
  for (int i = 0; i < lines && std::getline(in, line); ++i) text += line + "\n";
  return snapshotOfText(text);
}
}  // namespace

TEST_CASE("live follow: a zoomed diagram keeps its width and the newest time in view, and Live restores following") {
  ViewState state;
  auto early = prefixOf("cholesky_hang.trace", 15);
  auto later = prefixOf("cholesky_hang.trace", 30);
  auto all = snapshotOf(dataPath("cholesky_hang.trace"));
  REQUIRE(early->tasksEnd < later->tasksEnd);
  REQUIRE(later->tasksEnd < all->tasksEnd);
  state.setSnapshot(early);
  REQUIRE(state.live());
  state.zoom(0.25, state.zoomCenter());  // zoomed in (the keys), live
  const TimeNs width = state.viewEnd() - state.viewBegin();
  CHECK(state.viewEnd() >= early->tasksEnd);  // the newest stays in view
  state.setSnapshot(later);
  CHECK(state.viewEnd() - state.viewBegin() == width);
  CHECK(state.viewBegin() <= later->tasksEnd);
  CHECK(state.viewEnd() >= later->tasksEnd);

  state.pan(-2);  // the user looks at history: the view stays there
  const TimeNs begin = state.viewBegin();
  state.setSnapshot(all);
  CHECK(state.viewBegin() == begin);
  state.setLive(true);  // Live: follow again, at the zoomed width
  CHECK(state.viewEnd() - state.viewBegin() == width);
  CHECK(state.viewEnd() >= all->tasksEnd);
  CHECK(state.viewBegin() <= all->tasksEnd);

  // The wheel zooms around the pointer: away from the newest records, the
  // view stays where the user looks.
  state.zoom(0.5, state.viewBegin());
  const TimeNs looked = state.viewBegin();
  state.setSnapshot(all);
  CHECK(state.viewBegin() == looked);

  state.fitAll();  // 0: the whole trace again, and it keeps growing with the input
  state.setSnapshot(later);
  state.setSnapshot(all);
  CHECK(state.viewBegin() == all->tasksBegin);
  CHECK(state.viewEnd() >= all->tasksEnd);
}

TEST_CASE("a run of 30 us fills the diagram: the axis fits the trace's span, zoomed out as far as it goes") {
  std::string text = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000\n";
  char line[160];
  for (int i = 0; i <= 3; ++i) {  // two tasks, a record each 10 us
    for (int task : {2, 3}) {
      std::snprintf(line, sizeof line, "1763680000.1000%02d000 1763680000.1000%02d000 t4000%d %s\n", i * 10, i * 10, task,
                    i == 0 ? (task == 2 ? "mytid rc=t40002 name=m host=vm parent=none lang=c pid=2"
                                        : "mytid rc=t40003 name=w host=vm parent=t40002 lang=c pid=3")
                           : i == 3 ? "exit rc=0" : "initsend enc=0 rc=1");
      text += line;
    }
  }
  ViewState state;
  state.setSnapshot(test::snapshotOfText(text));
  const ViewSnapshot& s = *state.snapshot();
  const TimeNs span = s.tasksEnd - s.tasksBegin;
  REQUIRE(span == 30'000);
  INFO("view " << state.viewEnd() - state.viewBegin() << " ns for a span of " << span);
  CHECK(state.viewBegin() <= s.tasksBegin);
  CHECK(state.viewEnd() >= s.tasksEnd);
  CHECK(state.viewEnd() - state.viewBegin() <= span + span / 10);
  state.zoom(8.0, s.tasksBegin);  // out: no further than the trace and its margin
  CHECK(state.viewEnd() - state.viewBegin() <= span + span / 10 + 2 * 1000);
}
