// Rows you control (row_plan.h): folding by name and by host, unfolding one
// group, hiding and filtering tasks, the automatic fold of big traces; a
// folded row drawn as its members' shares, lines within it and to hidden
// tasks left out.
#include "diagram_painter.h"
#include "row_plan.h"
#include "support.h"

#include <QImage>

#include <catch2/catch.hpp>

#include <string>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// On vm: master (t40002), work x3 (t40003..5); on node1: work x2
// (t80002, t80003), helper (t80004).  The master sends each worker one
// message; from 1.5 s worker t40003 computes while t40004 and t40005
// wait in a receive until 3 s.
std::string twoHosts() {
  std::string out = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.000000000\n";
  auto rec = [&](const char* time, const char* tid, const std::string& rest) {
    out += std::string(time) + " " + time + " " + tid + " " + rest + "\n";
  };
  rec("1.0", "t40002", "mytid rc=t40002 name=master host=vm parent=none lang=c pid=10");
  const char* workers[] = {"t40003", "t40004", "t40005", "t80002", "t80003"};
  int pid = 11;
  for (const char* w : workers) {
    const std::string host = w[1] == '8' ? "node1" : "vm";
    rec("1.0", w, std::string("mytid rc=") + w + " name=work host=" + host + " parent=t40002 lang=c pid=" + std::to_string(pid++));
  }
  rec("1.0", "t80004", "mytid rc=t80004 name=helper host=node1 parent=t40002 lang=c pid=20");
  int serial = 0;
  for (const char* w : workers) {
    const std::string s = std::to_string(++serial);
    rec("1.1", "t40002", std::string("send dst=") + w + " tag=1 bytes=4 serial=" + s + " rc=0");
    rec("1.2", w, "recv src=t40002 tag=1 bytes=4 serial=" + s + " rc=1");
  }
  rec("1.5", "t40004", "recv.begin src=t40003 tag=2");
  rec("1.5", "t40005", "recv.begin src=t40003 tag=2");
  rec("3.0", "t40003", "send dst=t40004 tag=2 bytes=4 serial=9 rc=0");
  rec("3.0", "t40003", "send dst=t40005 tag=2 bytes=4 serial=10 rc=0");
  rec("3.0", "t40004", "recv src=t40003 tag=2 bytes=4 serial=9 rc=1");
  rec("3.0", "t40005", "recv src=t40003 tag=2 bytes=4 serial=10 rc=1");
  for (const char* t : {"t40002", "t40003", "t40004", "t40005", "t80002", "t80003", "t80004"}) rec("4.0", t, "exit rc=0");
  return out;
}

std::vector<std::string> labels(const Trace& trace, const RowPlan& plan) {
  std::vector<std::string> out;
  for (TaskIndex row = 0; row < plan.rows(); ++row) {
    const std::uint32_t g = plan.groupOfRow(row);
    out.push_back(g == kNoGroup ? trace.label(plan.rowTask[row]) : plan.groups[g].label);
  }
  return out;
}

}  // namespace

TEST_CASE("rows: by default a row per task, grouped by host") {
  auto s = snapshotOfText(twoHosts());
  const Trace& trace = *s->trace;
  RowPlan plan = planRows(trace, RowChoice{});
  CHECK(plan.rows() == 7);
  CHECK(plan.groups.empty());
  CHECK(plan.hostFirstRows == std::vector<TaskIndex>{0, 4});
  CHECK(labels(trace, plan) ==
        std::vector<std::string>{"(master, 0)", "(work, 0)", "(work, 1)", "(work, 2)", "(work, 3)", "(work, 4)", "(helper, 0)"});
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) CHECK(plan.rowTask[plan.taskRow[t]] == t);
}

TEST_CASE("rows: folded by name, a program's tasks on a host are one row, one task stays itself") {
  auto s = snapshotOfText(twoHosts());
  const Trace& trace = *s->trace;
  RowChoice c;
  c.fold = RowFold::ByName;
  RowPlan plan = planRows(trace, c);
  CHECK(labels(trace, plan) == std::vector<std::string>{"(master, 0)", "work \u00d73", "work \u00d72", "(helper, 0)"});
  REQUIRE(plan.groups.size() == 2);
  CHECK(plan.groups[0].key == "name:work@vm");
  CHECK(plan.groups[1].key == "name:work@node1");
  for (TaskIndex t : plan.groups[0].members) CHECK(plan.taskRow[t] == 1);
  CHECK(plan.hostFirstRows == std::vector<TaskIndex>{0, 2});

  // One group unfolded again: its tasks get their rows back, the other stays folded.
  c.unfolded.insert("name:work@vm");
  plan = planRows(trace, c);
  CHECK(labels(trace, plan) ==
        std::vector<std::string>{"(master, 0)", "(work, 0)", "(work, 1)", "(work, 2)", "work \u00d72", "(helper, 0)"});
}

TEST_CASE("rows: folded by host, one row per host") {
  auto s = snapshotOfText(twoHosts());
  RowChoice c;
  c.fold = RowFold::ByHost;
  RowPlan plan = planRows(*s->trace, c);
  CHECK(labels(*s->trace, plan) == std::vector<std::string>{"vm: 4 tasks", "node1: 3 tasks"});
  CHECK(plan.groups[1].key == "host:node1");
}

TEST_CASE("rows: hidden tasks and a filter leave out rows, a filter matches name, host or tid in any case") {
  auto s = snapshotOfText(twoHosts());
  const Trace& trace = *s->trace;
  RowChoice c;
  c.hidden = {0x40004, 0x80004};
  RowPlan plan = planRows(trace, c);
  CHECK(labels(trace, plan) == std::vector<std::string>{"(master, 0)", "(work, 0)", "(work, 2)", "(work, 3)", "(work, 4)"});
  CHECK(plan.taskRow[*trace.findTask(0x40004)] == kNoRow);
  c.hidden.clear();
  c.filter = "NODE1";
  CHECK(labels(trace, planRows(trace, c)) == std::vector<std::string>{"(work, 3)", "(work, 4)", "(helper, 0)"});
  c.filter = "t40002";
  CHECK(labels(trace, planRows(trace, c)) == std::vector<std::string>{"(master, 0)"});
  c.filter = "help";
  CHECK(planRows(trace, c).hostFirstRows.empty());  // one host left: no host lines
}

TEST_CASE("rows: a trace of more tasks than kAutoFoldTasks opens folded by name unless the user chose") {
  CHECK(effectiveFold(RowChoice{}, kAutoFoldTasks) == RowFold::None);
  CHECK(effectiveFold(RowChoice{}, kAutoFoldTasks + 1) == RowFold::ByName);
  RowChoice none;
  none.fold = RowFold::None;
  CHECK(effectiveFold(none, 100000) == RowFold::None);
}

TEST_CASE("rows: a folded row draws its members' shares, lines within it and to hidden tasks are left out") {
  ViewState state;
  state.setSnapshot(snapshotOfText(twoHosts()));
  state.setPosition(state.snapshot()->size());
  const TimeNs t0 = 1'000'000'000;
  state.setViewRange(t0, t0 + 3'000'000'000);
  auto paint = [&](QImage& img, DiagramStats& stats) { return paintDiagramInto(img, state, &stats); };
  QImage img(900, 300, QImage::Format_RGB32);
  DiagramStats all;
  paint(img, all);
  CHECK(all.messageLines == 7);

  RowChoice c;
  c.fold = RowFold::ByName;
  state.setRowChoice(c);
  DiagramStats folded;
  auto layout = paint(img, folded);
  REQUIRE(layout.rows == 4);
  REQUIRE(layout.groupOfRow(1));
  // The two lines within vm's work row are gone; the master's five remain, to its two rows.
  CHECK(folded.messageLines == 5);
  // At 2 s vm's work row is a third computing (t40003) and two thirds receiving.
  const int x = static_cast<int>(layout.xOf(t0 + 1'000'000'000));
  int computing = 0, receiving = 0;
  for (int y = static_cast<int>(layout.rowTopOfRow(1)); y < static_cast<int>(layout.rowTopOfRow(2)); ++y) {
    computing += QColor(img.pixel(x, y)) == activityColor(Activity::Computing);
    receiving += QColor(img.pixel(x, y)) == activityColor(Activity::Blocked);
  }
  CHECK(computing > 0);
  CHECK(receiving > computing);

  // Hidden: the master's lines go with it.
  c = RowChoice{};
  c.fold = RowFold::None;
  c.hidden = {0x40002};
  state.setRowChoice(c);
  DiagramStats hidden;
  paint(img, hidden);
  CHECK(hidden.messageLines == 2);
}
