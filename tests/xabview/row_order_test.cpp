// Rows in the user's order (row_plan.h, row_actions.h): a row's name
// dragged to another place, Move up / Move down in its menu; the order in
// --dump-state's rows, kept while records arrive and across folds.
#include "diagram_view.h"
#include "main_window.h"
#include "row_actions.h"
#include "row_plan.h"
#include "state_dump.h"
#include "support.h"

#include <QAction>
#include <QJsonArray>
#include <QJsonObject>
#include <QMenu>
#include <QTest>

#include <catch2/catch.hpp>

#include <string>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// On vm: master (t40002), work x3 (t40003..5); on node1: work (t80002);
// with `late`, a task (t40006, work) that starts later.
std::string fourAndOne(bool late = false) {
  std::string out = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.000000000\n";
  auto rec = [&](const char* time, const std::string& tid, const std::string& rest) {
    out += std::string(time) + " " + time + " " + tid + " " + rest + "\n";
  };
  rec("1.0", "t40002", "mytid rc=t40002 name=master host=vm parent=none lang=c pid=10");
  int pid = 11;
  for (const char* w : {"t40003", "t40004", "t40005", "t80002"})
    rec("1.0", w, std::string("mytid rc=") + w + " name=work host=" + (w[1] == '8' ? "node1" : "vm") +
                      " parent=t40002 lang=c pid=" + std::to_string(pid++));
  if (late) rec("2.0", "t40006", "mytid rc=t40006 name=work host=vm parent=t40002 lang=c pid=30");
  return out;
}

std::vector<std::string> rowKeys(const ViewState& st) {
  std::vector<std::string> out;
  for (TaskIndex row = 0; row < st.rowPlan().rows(); ++row) out.push_back(rowKey(*st.snapshot()->trace, st.rowPlan(), row));
  return out;
}

std::vector<std::string> dumpedOrder(const ViewState& st) {
  std::vector<std::string> out;
  for (const auto& v : dumpState(st)["rows"].toObject()["order"].toArray()) out.push_back(v.toString().toStdString());
  return out;
}

}  // namespace

TEST_CASE("row order: a row's name dragged onto another row moves it there, and the dump says so") {
  ViewState st;
  ViewerOptions o;
  MainWindow window{&st, o};
  st.setSnapshot(snapshotOfText(fourAndOne()));
  RowChoice none;
  none.fold = RowFold::None;
  st.setRowChoice(none);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  REQUIRE(rowKeys(st) == std::vector<std::string>{"task:t40002", "task:t40003", "task:t40004", "task:t40005", "task:t80002"});
  DiagramView* d = window.diagram();
  const DiagramLayout l = DiagramLayout::make(d->rect(), st);
  auto nameOf = [&](TaskIndex row) { return QPoint(20, static_cast<int>(l.rowTopOfRow(row) + l.rowHeight / 2)); };
  // The master's name dragged down onto the third worker's row.
  QTest::mousePress(d, Qt::LeftButton, {}, nameOf(0));
  QTest::mouseMove(d, nameOf(2));
  QTest::mouseMove(d, nameOf(3));
  QTest::mouseRelease(d, Qt::LeftButton, {}, nameOf(3));
  const std::vector<std::string> want{"task:t40003", "task:t40004", "task:t40005", "task:t40002", "task:t80002"};
  CHECK(rowKeys(st) == want);
  CHECK(dumpedOrder(st) == want);
  // The painter follows the plan: the master's row is the fourth.
  CHECK(st.rowPlan().taskRow[taskNamed(*st.snapshot(), "master", 0)] == 3);
  // A drag above the first row puts the row first; a click on a name moves nothing.
  QTest::mousePress(d, Qt::LeftButton, {}, nameOf(4));
  QTest::mouseMove(d, QPoint(20, static_cast<int>(l.plot().top()) - 30));
  QTest::mouseRelease(d, Qt::LeftButton, {}, QPoint(20, static_cast<int>(l.plot().top()) - 30));
  CHECK(rowKeys(st).front() == "task:t80002");
  const auto before = rowKeys(st);
  QTest::mouseClick(d, Qt::LeftButton, {}, nameOf(1));
  CHECK(rowKeys(st) == before);
}

TEST_CASE("row order: Move up and Move down in a row's menu") {
  ViewState st;
  st.setSnapshot(snapshotOfText(fourAndOne()));
  RowChoice none;
  none.fold = RowFold::None;
  st.setRowChoice(none);
  auto trigger = [&](TaskIndex row, const char* name) {
    QMenu menu;
    addRowMenu(&menu, &st, row);
    auto* a = menu.findChild<QAction*>(name);
    REQUIRE(a);
    if (a->isEnabled()) a->trigger();
    return a->isEnabled();
  };
  CHECK_FALSE(trigger(0, "moveRowUp"));  // the first row has nothing above it
  CHECK(trigger(1, "moveRowDown"));
  CHECK(rowKeys(st) == std::vector<std::string>{"task:t40002", "task:t40004", "task:t40003", "task:t40005", "task:t80002"});
  CHECK(trigger(1, "moveRowUp"));
  CHECK(rowKeys(st) == std::vector<std::string>{"task:t40004", "task:t40002", "task:t40003", "task:t40005", "task:t80002"});
  CHECK_FALSE(trigger(4, "moveRowDown"));  // nor the last below it
}

TEST_CASE("row order: kept while records arrive, across folding and unfolding, a folded row moved as one") {
  ViewState st;
  st.setSnapshot(snapshotOfText(fourAndOne()));
  RowChoice c;
  c.fold = RowFold::None;
  st.setRowChoice(c);
  REQUIRE(moveRow(&st, 0, 3));  // the master after the vm's workers
  const std::vector<std::string> moved{"task:t40003", "task:t40004", "task:t40005", "task:t40002", "task:t80002"};
  REQUIRE(rowKeys(st) == moved);
  // A new task arrives (live): the order stays, the new task after the row
  // before it in the plain order (the last vm worker).
  st.setSnapshot(snapshotOfText(fourAndOne(true)));
  CHECK(rowKeys(st) ==
        std::vector<std::string>{"task:t40003", "task:t40004", "task:t40005", "task:t40006", "task:t40002", "task:t80002"});
  // Folded by name: vm's workers are one row, in their first member's place.
  c = st.rowChoice();
  c.fold = RowFold::ByName;
  st.setRowChoice(c);
  CHECK(rowKeys(st) == std::vector<std::string>{"name:work@vm", "task:t40002", "task:t80002"});
  // The folded row moved below the master, then unfolded: its tasks take its place.
  REQUIRE(moveRow(&st, 0, 1));
  CHECK(rowKeys(st) == std::vector<std::string>{"task:t40002", "name:work@vm", "task:t80002"});
  c = st.rowChoice();
  c.fold = RowFold::None;
  st.setRowChoice(c);
  const auto unfolded = rowKeys(st);
  REQUIRE(unfolded.size() == 6);
  CHECK(unfolded.front() == "task:t40002");
  CHECK(unfolded.back() == "task:t80002");
  // Hosts: a line where the host changes, the moved rows included.
  CHECK(st.rowPlan().hostFirstRows == std::vector<TaskIndex>{0, 5});
  // Hidden and shown again, a task keeps its place.
  REQUIRE(moveRow(&st, 5, 0));
  c = st.rowChoice();
  c.hidden.insert(0x80002);
  st.setRowChoice(c);
  CHECK(rowKeys(st).front() == "task:t40002");
  c.hidden.clear();
  st.setRowChoice(c);
  CHECK(rowKeys(st).front() == "task:t80002");
}
