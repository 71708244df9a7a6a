// xabview's stepping controls (issue 16 §3): the Control panel against a
// real abmon --control and the real demo in a private PVM virtual machine,
// driven by its buttons, headless.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTest>

#include <sstream>

#include "control_panel.h"
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

}  // namespace

TEST_CASE("the Control panel steps the live demo and runs it to a breakpoint", "[control][pvm]") {
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
    panel.findChild<QLineEdit*>("controlBreakCall")->setText("barrier");
    click(panel, "runToBreakButton");
    BackgroundProcess prog(args, vm.dir() + "/break.out");
    REQUIRE(waitFor([&] { return panel.waiting().size() == 3; }, 30000));
    for (const QString& w : panel.waiting()) CHECK(w.contains(" barrier "));
    CHECK(prog.running());
    QStringList atStart = panel.waiting();
    click(panel, "continueButton");  // the breakpoint stays: the end barrier stops them again
    REQUIRE(waitFor([&] { return panel.waiting().size() == 3 && panel.waiting() != atStart; }, 30000));
    for (const QString& w : panel.waiting()) CHECK(w.contains(" barrier "));
    panel.findChild<QLineEdit*>("controlBreakCall")->setText("no_such_call");
    click(panel, "runToBreakButton");
    CHECK(prog.wait(std::chrono::seconds(60)) == 0);
    CHECK(resultOf(prog.read_stdout()) == resultOf(ref.out));
  }
  CHECK(mon.process().stop(SIGINT) == 0);
}
