// xabview's stepping controls: the Control panel against a
// real abmon --control and the real demo in a private PVM virtual machine,
// driven by its buttons, headless.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTest>

#include <set>
#include <sstream>

#include <sys/un.h>

#include "control_panel.h"
#include "options.h"
#include "xab/control_path.h"
#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;
using xab::view::ControlPanel;

namespace {

std::string resultOf(const std::string& out) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("xabdemo: result ", 0) == 0) return line;
  return "";
}

// Runs the event loop until `pred` or `ms` pass.
template <class Pred>
bool waitFor(Pred pred, int ms) {
  QElapsedTimer t;
  t.start();
  while (!pred()) {
    if (t.elapsed() > ms) return false;
    QApplication::processEvents(QEventLoop::AllEvents, 50);
    QTest::qWait(20);
  }
  return true;
}

void click(ControlPanel& p, const char* name) {
  auto* b = p.findChild<QPushButton*>(name);
  REQUIRE(b);
  QTest::mouseClick(b, Qt::LeftButton);
}

void setBreak(ControlPanel& p, const QString& kind, const QString& value) {
  auto* k = p.findChild<QComboBox*>("controlBreakKind");
  auto* v = p.findChild<QLineEdit*>("controlBreakValue");
  REQUIRE(k);
  REQUIRE(v);
  k->setCurrentText(kind);
  v->setText(value);
}

// Selects the breakpoint in the panel's list and clicks Remove; true once
// abmon has taken it away.
bool removeBreak(ControlPanel& p, const QString& text) {
  auto* list = p.findChild<QListWidget*>("controlBreaks");
  if (!list) return false;
  for (int i = 0; i < list->count(); ++i)
    if (list->item(i)->text() == text) list->setCurrentRow(i);
  click(p, "controlBreakRemoveButton");
  return waitFor([&] { return !p.breakpoints().contains(text); }, 10000);
}

}  // namespace

TEST_CASE("the Control panel steps the live demo and runs it to call, tag and task breakpoints", "[control][pvm]") {
  PrivateVm vm;
  const std::vector<std::string> args = {bin_dir() + "/xabdemo", "-n", "2", "--rounds", "1"};
  std::vector<std::string> plain = args;
  plain[0] = bin_dir() + "/xabdemo-plain";
  auto ref = run(plain, {}, std::chrono::seconds(120));
  REQUIRE(ref.exit_code == 0);
  const std::string sock = vm.dir() + "/control";
  Monitor mon(vm.dir() + "/trace", {"--control", sock});

  {  // step: one task by selection first, then "Step all" until the end
    ControlPanel panel(QString::fromStdString(sock));
    REQUIRE(waitFor([&] { return panel.connected(); }, 20000));
    BackgroundProcess prog(args, vm.dir() + "/step.out");
    REQUIRE(waitFor([&] { return !panel.waiting().isEmpty(); }, 30000));
    QString first = panel.waiting().first();
    CHECK(first.contains(" spawn "));  // the master's first communicating call
    panel.selectTask(first.section(' ', 0, 0));
    click(panel, "stepTaskButton");
    CHECK(waitFor([&] { return panel.waiting().isEmpty() || panel.waiting().first() != first; }, 10000));
    int clicks = 1;
    while (prog.running() || !panel.waiting().isEmpty()) {
      if (!panel.waiting().isEmpty()) {
        click(panel, "stepAllButton");
        ++clicks;
      }
      QApplication::processEvents(QEventLoop::AllEvents, 50);
      QTest::qWait(20);
      REQUIRE(clicks < 1000);
    }
    CHECK(clicks >= 5);  // the tasks stopped call after call (the demo test counts them exactly)
    CHECK(prog.wait(std::chrono::seconds(1)) == 0);
    CHECK(resultOf(prog.read_stdout()) == resultOf(ref.out));
  }
  {  // run to a breakpoint on barrier: all three tasks stop there
    ControlPanel panel(QString::fromStdString(sock));
    REQUIRE(waitFor([&] { return panel.connected(); }, 20000));
    setBreak(panel, "call", "barrier");
    click(panel, "runToBreakButton");
    BackgroundProcess prog(args, vm.dir() + "/break.out");
    REQUIRE(waitFor([&] { return panel.waiting().size() == 3; }, 30000));
    for (const QString& w : panel.waiting()) CHECK(w.contains(" barrier "));
    CHECK(prog.running());
    QStringList atStart = panel.waiting();
    click(panel, "continueButton");  // the breakpoint stays: the end barrier stops them again
    REQUIRE(waitFor([&] { return panel.waiting().size() == 3 && panel.waiting() != atStart; }, 30000));
    for (const QString& w : panel.waiting()) CHECK(w.contains(" barrier "));
    REQUIRE(removeBreak(panel, "call barrier"));
    click(panel, "continueButton");
    CHECK(prog.wait(std::chrono::seconds(60)) == 0);
    CHECK(resultOf(prog.read_stdout()) == resultOf(ref.out));
  }
  {  // a tag breakpoint, then a task breakpoint on the selected held task
    ControlPanel panel(QString::fromStdString(sock));
    REQUIRE(waitFor([&] { return panel.connected(); }, 20000));
    setBreak(panel, "tag", "16004");  // the workers' results (xabdemo.c)
    click(panel, "controlBreakAddButton");
    REQUIRE(waitFor([&] { return panel.breakpoints() == QStringList{"tag 16004"}; }, 10000));
    setBreak(panel, "tag", "x16004");  // abmon refuses it; the list stays
    click(panel, "controlBreakAddButton");
    REQUIRE(waitFor([&] { return panel.statusText().contains("error"); }, 10000));
    CHECK(panel.breakpoints() == QStringList{"tag 16004"});
    click(panel, "continueButton");
    BackgroundProcess prog(args, vm.dir() + "/tag.out");
    REQUIRE(waitFor([&] { return panel.waiting().size() == 3; }, 30000));  // both workers' sends, the master's recv
    for (const QString& w : panel.waiting()) CHECK(w.contains(" tag 16004 "));
    QString worker = panel.waiting().last().section(' ', 0, 0);
    panel.selectTask(worker);
    setBreak(panel, "task", "");  // empty: the selected task
    click(panel, "controlBreakAddButton");
    REQUIRE(waitFor([&] { return panel.breakpoints().contains("task " + worker); }, 10000));
    REQUIRE(removeBreak(panel, "tag 16004"));
    click(panel, "runToBreakButton");
    // Only the worker stops now, before each of its calls, until it ends:
    // the others, held at the tag, go on with the continue.
    auto onlyWorker = [&] {
      for (const QString& w : panel.waiting())
        if (!w.startsWith(worker + " ")) return false;
      return !panel.waiting().isEmpty();
    };
    int held = 0;
    while (prog.running() && held < 50) {
      if (!waitFor([&] { return onlyWorker() || !prog.running(); }, 30000)) break;
      if (!prog.running()) break;
      ++held;
      QString at = panel.waiting().first();
      click(panel, "continueButton");
      waitFor([&] { return panel.waiting().isEmpty() || panel.waiting().first() != at; }, 10000);
    }
    INFO("held: " << panel.waiting().join(" / ").toStdString());
    CHECK(held >= 2);  // its result send, its barrier (the demo test counts calls exactly)
    REQUIRE(removeBreak(panel, "task " + worker));
    click(panel, "continueButton");
    CHECK(prog.wait(std::chrono::seconds(60)) == 0);
    CHECK(resultOf(prog.read_stdout()) == resultOf(ref.out));
  }
  CHECK(mon.process().stop(SIGINT) == 0);
}

TEST_CASE("the Control panel sets the filter at the source of the selected task, then of all", "[control][pvm]") {
  PrivateVm vm;
  const std::vector<std::string> args = {bin_dir() + "/xabdemo", "-n", "2", "--rounds", "2"};
  std::vector<std::string> plain = args;
  plain[0] = bin_dir() + "/xabdemo-plain";
  auto ref = run(plain, {}, std::chrono::seconds(120));
  REQUIRE(ref.exit_code == 0);
  const std::string sock = vm.dir() + "/control";
  Monitor mon(vm.dir() + "/trace", {"--control", sock});
  ControlPanel panel(QString::fromStdString(sock));
  REQUIRE(waitFor([&] { return panel.connected(); }, 20000));
  setBreak(panel, "call", "barrier");
  click(panel, "runToBreakButton");
  BackgroundProcess prog(args, vm.dir() + "/filter.out");
  REQUIRE(waitFor([&] { return panel.waiting().size() == 3; }, 30000));  // all at the first barrier
  auto* pack = panel.findChild<QCheckBox*>("controlFilterPack");
  auto* clock = panel.findChild<QCheckBox*>("controlFilterClock");
  auto* target = panel.findChild<QComboBox*>("controlFilterTarget");
  REQUIRE((pack && clock && target));
  // The selected held task: pack.
  QString one = panel.waiting().first().section(' ', 0, 0);
  panel.selectTask(one);
  pack->setChecked(true);
  target->setCurrentIndex(1);
  click(panel, "controlFilterButton");
  REQUIRE(waitFor([&] { return panel.statusText().startsWith("filter set: "); }, 10000));
  CHECK(panel.statusText() == "filter set: " + one + " pack");
  // All: pack and clock.
  clock->setChecked(true);
  target->setCurrentIndex(0);
  click(panel, "controlFilterButton");
  REQUIRE(waitFor([&] { return panel.statusText().count(" pack clock") == 3; }, 10000));
  REQUIRE(removeBreak(panel, "call barrier"));
  click(panel, "continueButton");
  CHECK(prog.wait(std::chrono::seconds(60)) == 0);
  CHECK(resultOf(prog.read_stdout()) == resultOf(ref.out));
  REQUIRE(mon.wait_exits(3));
  auto records = parse_records(mon.process().read_stdout());
  std::set<std::string> tasks;
  for (const auto& r : records)
    if (r.event == "filter") tasks.insert(r.tid);
  CHECK(tasks.size() == 3);
  for (const auto& tid : tasks) {
    INFO("task " << tid);
    auto mine = records_of(records, tid);
    std::vector<std::string> omits;
    std::size_t after = 0;
    for (const auto& r : mine) {
      if (r.event == "filter") omits.push_back(r.get("omit"));
      else if (!omits.empty() && (r.event.rfind("pk", 0) == 0 || r.event.rfind("upk", 0) == 0)) ++after;
    }
    CHECK(omits == (tid == one.toStdString() ? std::vector<std::string>{"1", "3"} : std::vector<std::string>{"3"}));
    CHECK(after == 0);
  }
  CHECK(mon.process().stop(SIGINT) == 0);
}

TEST_CASE("xabview --control auto connects where abmon --control auto listens", "[control]") {
  char path[sizeof(sockaddr_un::sun_path)];
  REQUIRE(xab_control_default_path(path, sizeof path) > 0);
  int exitCode = -1;
  auto o = xab::view::parseOptions({"xabview", "--control", "auto"}, exitCode);
  CHECK(exitCode < 0);
  CHECK(o.control == QString::fromLocal8Bit(path));
  o = xab::view::parseOptions({"xabview", "--control", "/some/where"}, exitCode);
  CHECK(o.control == "/some/where");
}
