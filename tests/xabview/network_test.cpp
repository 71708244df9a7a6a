// XPVM's network view: hosts with their tasks, state and load at the
// replay position, the traffic between hosts up to then; a click lists a
// host's tasks.
#include "main_window.h"
#include "network_view.h"
#include "state_dump.h"
#include "support.h"

#include <QJsonArray>
#include <QTest>

#include <catch2/catch.hpp>

using namespace xab;
using namespace xab::view;

namespace {

// node0: the master; node1: two workers, sampled by the relay there.
const char* kTwoHosts =
    "#xab-trace 1 abmon=t40001 host=node0 pid=1 start=1000.0\n"
    "1000.100000000 1000.100000000 t40002 mytid rc=t40002 name=master host=node0 parent=none lang=c pid=5\n"
    "1000.100000000 1000.100000000 t80002 mytid rc=t80002 name=worker host=node1 parent=t40002 lang=c pid=7\n"
    "1000.100000000 1000.100000000 t80003 mytid rc=t80003 name=worker host=node1 parent=t40002 lang=c pid=8\n"
    "1000.200000000 1000.200000000 t80001 host.load host=node1 cpus=1 load_milli=3100\n"
    "1000.200000000 1000.200000000 t40001 host.load host=node0 cpus=2 load_milli=500\n"
    "1000.300000000 1000.300000000 t40002 send dst=t80002 tag=1 bytes=1000 serial=1 rc=0\n"
    "1000.300000000 1000.300000000 t40002 send dst=t80003 tag=1 bytes=1000 serial=2 rc=0\n"
    "1000.400000000 1000.400000000 t80002 recv src=t40002 tag=1 bytes=1000 serial=1 rc=1\n"
    "1000.400000000 1000.400000000 t80003 recv src=t40002 tag=1 bytes=1000 serial=2 rc=1\n"
    "1000.500000000 1000.500000000 t40002 recv.begin src=any tag=2\n"
    "1000.600000000 1000.600000000 t80002 send dst=t40002 tag=2 bytes=10 serial=3 rc=0\n";

}  // namespace

TEST_CASE("network view: hosts, their tasks' state and load, the traffic between them at the position") {
  ViewState state;
  state.setSnapshot(test::snapshotOfText(kTwoHosts));
  NetworkPicture net = networkAt(state);
  REQUIRE(net.hosts.size() == 2);
  CHECK(net.hosts[0].name == "node0");
  CHECK(net.hosts[1].name == "node1");
  CHECK(net.hosts[1].tasks.size() == 2);
  CHECK(net.hosts[1].load == Approx(3.1));
  CHECK(net.hosts[1].cpus == 1);
  CHECK(net.hosts[0].state() == Activity::Blocked);  // the master waits in recv
  CHECK(describeHost(net.hosts[1]).contains("load 3.10 on 1 CPU"));
  REQUIRE(net.links.size() == 2);
  CHECK(net.links[0].from == 0);
  CHECK(net.links[0].messages == 2);
  CHECK(net.links[0].bytes == 2000);
  CHECK(net.links[0].bandwidth == Approx(2000 / 0.2));  // bytes over their time in transit, 0.1 s each
  CHECK(net.links[1].from == 1);
  CHECK(net.links[1].messages == 1);
  CHECK(net.maxBandwidth == Approx(2000 / 0.2));
  // Back at the first send: one message on its way, the master not blocked yet.
  state.setPosition(6);
  net = networkAt(state);
  REQUIRE(net.links.size() == 1);
  CHECK(net.links[0].messages == 1);
  CHECK(net.hosts[0].state() != Activity::Blocked);
  state.setPosition(3);  // before any load record
  CHECK(networkAt(state).hosts[1].load < 0);
  CHECK(networkAt(state).links.empty());
}

TEST_CASE("window: the Network tab draws the hosts, a click lists a host's tasks, --dump-state has them") {
  ViewState state;
  MainWindow window(&state, ViewerOptions{});
  state.setSnapshot(test::snapshotOfText(kTwoHosts));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  window.showTab("network");
  auto* panel = window.findChild<NetworkPanel*>();
  REQUIRE(panel);
  NetworkView* view = panel->view();
  QApplication::processEvents();
  view->repaint();
  REQUIRE(view->picture().hosts.size() == 2);
  QTest::mouseClick(view, Qt::LeftButton, {}, view->boxOf(1).center().toPoint());
  CHECK(panel->tasksText().startsWith("node1: 2 tasks"));
  CHECK(panel->tasksText().contains("(worker, 1) t80003"));
  CHECK(panel->tasksText().contains("to node0: 1 messages, 10 bytes"));
  // One list of hosts (`hosts`), each with its state and load; `network` has the links.
  const QJsonObject dump = dumpState(state);
  const QJsonArray hosts = dump["hosts"].toArray();
  REQUIRE(hosts.size() == 2);
  CHECK(hosts[1].toObject()["name"].toString() == "node1");
  CHECK(hosts[1].toObject()["tasks"].toInt() == 2);
  CHECK(hosts[1].toObject()["load"].toDouble() == Approx(3.1));
  CHECK(hosts[1].toObject()["cpus"].toInt() == 1);
  CHECK(hosts[0].toObject()["state"].toString() == activityName(Activity::Blocked));
  CHECK_FALSE(dump["network"].toObject().contains("hosts"));
  CHECK(dump["network"].toObject()["links"].toArray().size() == 2);
}
