// The Why slow tab's analysis (wait states, causes, critical path) is made
// only once something asks for it: opening a trace does not wait for it,
// showing the tab makes it on a thread of its own with the same answers as
// an analysis made at once, and a live run's newer records get theirs.
#include "input_session.h"
#include "main_window.h"
#include "panels.h"
#include "state_dump.h"
#include "support.h"
#include "why_models.h"

#include <QFile>
#include <QJsonArray>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// The causes as (task label, pattern, cost): what the tab ranks.
std::vector<std::tuple<std::string, int, TimeNs>> causesOf(const ViewSnapshot& s) {
  std::vector<std::tuple<std::string, int, TimeNs>> out;
  for (const WaitCause& c : s.why().causes) out.emplace_back(s.trace->label(c.task), static_cast<int>(c.pattern), c.cost);
  return out;
}

}  // namespace

TEST_CASE("lazy why: opening a trace leaves the wait states until the Why slow tab is shown") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath("late.trace");
  {
    QFile f(path);
    REQUIRE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(lateWorkersTrace()));
  }
  ViewState state;
  MainWindow window(&state, ViewerOptions{});
  InputSession input(&state, {path, false, 100, true, false, nullptr});
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  input.start();
  REQUIRE(waitUntil([&] { return state.snapshot() && state.snapshot()->inputEnded && state.snapshot()->analysisComplete(); }));
  QTest::qWait(50);  // anything queued after the last snapshot
  CHECK(state.whyRuns() == 0);
  CHECK_FALSE(state.snapshot()->whyAnalysis);
  const QJsonObject dumped = dumpState(state);
  CHECK(dumped["why_made"] == "not asked");
  CHECK(state.whyRuns() == 0);  // the dump made its own, and kept it to itself

  const auto eager = snapshotOfText(lateWorkersTrace());
  const QStringList expected = whyReportLines(*eager);
  CHECK(dumped["why"].toArray().first().toString() == expected.first());

  window.showTab("why");
  auto* panel = window.findChild<WhyPanel*>();
  REQUIRE(panel);
  CHECK(state.whyRuns() == 1);
  CHECK(panel->text().startsWith("Computing the wait states"));  // until its result is handed over
  REQUIRE(waitUntil([&] { return state.snapshot()->whyReady(); }));
  CHECK(state.whyRuns() == 1);
  CHECK(causesOf(*state.snapshot()) == causesOf(*eager));
  CHECK(panel->text() == expected.join('\n'));
  CHECK(panel->causes()->model()->rowCount() == 2);
  CHECK(dumpState(state)["why_made"] == "ready");
}

TEST_CASE("lazy why: asked for, each newer analysis gets its own and the older is shown meanwhile") {
  const std::string text = lateWorkersTrace();
  // The run up to the master's first receive, then the whole of it.
  const std::string early = text.substr(0, text.rfind('\n', text.find("recv src=")) + 1);
  auto bare = [](std::string_view t) {
    auto s = snapshotOfText(t);
    s->whyAnalysis = nullptr;  // as the loader hands them over
    s->inputEnded = false;
    return s;
  };
  ViewState state;
  state.setSnapshot(bare(early));
  CHECK(state.whyRuns() == 0);
  state.wantWhy();
  REQUIRE(waitUntil([&] { return state.snapshot()->whyReady(); }));
  const auto firstCauses = causesOf(*state.snapshot());

  state.setSnapshot(bare(text));
  REQUIRE(state.snapshot()->whyAnalysis);  // the older one, until the newer comes
  CHECK_FALSE(state.snapshot()->whyReady());
  CHECK(whyReportLines(*state.snapshot()).first().startsWith("Analysing: the report covers"));
  REQUIRE(waitUntil([&] { return state.snapshot()->whyReady(); }));
  CHECK(state.whyRuns() == 2);
  CHECK(causesOf(*state.snapshot()) == causesOf(*snapshotOfText(text)));
  CHECK(causesOf(*state.snapshot()) != firstCauses);
}
