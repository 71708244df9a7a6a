// The load strips of a real run: abmon_cpuburn's worker burning CPU in a
// private PVM under abmon, which samples them and the host (its default
// --sample-ms); `xabview --play-to-end --dump-state` on that trace gives
// the host's strip under all its rows, the host's load, and each task's
// CPU share (the task table's CPU column).
#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace xab::test;
namespace fs = std::filesystem;

TEST_CASE("a real run's samples give its host a load strip under its rows", "[xabview][e2e][pvm]") {
  auto& vm = PrivateVm::shared();
  const std::string dir = vm.dir() + "/strips";
  fs::create_directories(dir);
  const std::string evfile = dir + "/evfile";
  Monitor mon(evfile);
  // One worker: it burns one CPU at -20 (its autogroup's too), and abmon
  // samples from the other; with a worker on each CPU, abmon (in the test's
  // session at 0) got too little of either to sample a 0.6 s worker.
  auto burn = run({bin_dir() + "/abmon_cpuburn", "1", "0.6"}, {}, std::chrono::seconds(120));
  REQUIRE(burn.exit_code == 0);
  REQUIRE(mon.wait_exits(2));
  const auto records = mon.finish();
  REQUIRE(count(records, "host.load") > 0);

  auto r = run({XAB_XABVIEW, "--play-to-end", "--dump-state", dir + "/state.json", evfile},
               {{"QT_QPA_PLATFORM", "offscreen"}}, std::chrono::seconds(120));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(dir + "/state.json");
  std::stringstream text;
  text << in.rdbuf();
  const QJsonObject state = QJsonDocument::fromJson(QByteArray::fromStdString(text.str())).object();
  const QJsonObject rows = state["rows"].toObject();
  INFO(QJsonDocument(rows).toJson().toStdString());
  const QJsonArray strips = rows["load_strips"].toArray();
  REQUIRE(strips.size() == 1);  // one host, one strip, under its two tasks' rows
  const QString host = state["tasks"].toArray()[0].toObject()["host"].toString();
  CHECK(strips[0].toObject()["host"].toString() == host);
  CHECK(strips[0].toObject()["first_row"].toInt() == 0);
  CHECK(strips[0].toObject()["last_row"].toInt() == rows["count"].toInt() - 1);
  CHECK(rows["count"].toInt() == 2);
  const QJsonObject load = state["hosts"].toArray()[0].toObject();
  CHECK(load["name"].toString() == host);
  CHECK(load["cpus"].toInt() >= 1);
  // The task table's CPU column: every task sampled, the worker burning.
  double most = 0;
  for (const QJsonValue& t : state["tasks"].toArray()) {
    INFO(QJsonDocument(t.toObject()).toJson().toStdString());
    CHECK(t.toObject()["cpu_share"].isDouble());
    CHECK(t.toObject()["cpu_wait_share"].isDouble());
    most = std::max(most, t.toObject()["cpu_share"].toDouble() + t.toObject()["cpu_wait_share"].toDouble());
  }
  CHECK(most > 0.2);
}
