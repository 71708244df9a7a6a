// Filtering at the source changed live: abmon --control's "filter" request
// (xab/control_protocol.h) reaches each task as a filter poke (wire.h,
// "Pokes").  A master/worker program of ours (abmon_filterprog) packs and
// sends in a loop; halfway the test asks every task to omit its pack
// records.  The trace then has each task's `filter` record and no pack
// record of that task after it, the program's output is byte for byte the
// plain build's, and abstat checks only the messages whose packs and
// unpacks were recorded.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "xab/test/control_client.h"
#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;

namespace {

bool isPack(const std::string& event) {
  return event.rfind("pk", 0) == 0 || event.rfind("upk", 0) == 0 || event == "packf" || event == "unpackf";
}

// The tasks whose records the trace holds so far (abmon's own, the first
// record's, left out).
std::set<std::string> tasksIn(const std::string& text) {
  auto rs = parse_records(text);
  std::set<std::string> tids;
  for (const auto& r : rs)
    if (r.tid != rs.front().tid) tids.insert(r.tid);
  return tids;
}

}  // namespace

TEST_CASE("abmon --control: filter all pack midway drops later pack records, output unchanged",
          "[pvm][abmon][filter]") {
  PrivateVm vm;
  // The plain build, its gate open from the start.
  const std::string plainGate = vm.dir() + "/plain-gate";
  REQUIRE(run({"mkdir", "-p", plainGate}).exit_code == 0);
  std::ofstream(plainGate + "/go").close();
  auto ref = run({bin_dir() + "/abmon_filterprog_plain", plainGate}, {}, 120s);
  INFO(ref.err);
  REQUIRE(ref.exit_code == 0);
  REQUIRE(ref.out.find("done\n") != std::string::npos);

  const std::string sock = vm.dir() + "/control", gate = vm.dir() + "/gate";
  REQUIRE(run({"mkdir", "-p", gate}).exit_code == 0);
  Monitor mon(vm.dir() + "/trace", {"--control", sock});
  ControlClient c(sock);
  REQUIRE(c.connected());
  REQUIRE(c.line(10s) == std::optional<std::string>("xab-control 1"));
  REQUIRE(c.request("continue") == "ok");  // no stepping: the program runs

  // Bad requests change nothing.
  CHECK(c.request("filter all sends").rfind("error unknown filter word \"sends\"", 0) == 0);
  CHECK(c.request("filter t7ffff pack").rfind("error t7ffff is not a task of this abmon", 0) == 0);
  CHECK(c.request("filter all").rfind("error usage: filter", 0) == 0);
  CHECK(c.request("filter x12 pack").rfind("error usage: filter", 0) == 0);
  CHECK(c.request("filter all none") == "ok 0");  // no task yet

  BackgroundProcess prog({bin_dir() + "/abmon_filterprog", gate}, vm.dir() + "/prog.out");
  // Halfway, once abmon has heard from the master and both workers.
  bool ready = false;
  for (auto end = std::chrono::steady_clock::now() + 60s; !ready && std::chrono::steady_clock::now() < end;
       std::this_thread::sleep_for(50ms))
    ready = std::ifstream(gate + "/half").good() && tasksIn(mon.process().read_stdout()).size() == 3;
  REQUIRE(ready);

  c.data.clear();
  REQUIRE(c.request("filter all pack") == "ok 3");
  REQUIRE(c.data.size() == 3);
  std::vector<std::string> told;
  for (const auto& d : c.data) {
    std::istringstream in(d);
    std::string w, tid, rest;
    in >> w >> tid;
    std::getline(in, rest);
    CHECK(w == "filter");
    CHECK(rest == " pack");
    told.push_back(tid);
  }
  // One task by its tid: pack and clock.
  c.data.clear();
  REQUIRE(c.request("filter " + told[0] + " pack,clock") == "ok 1");
  CHECK(c.data == std::vector<std::string>{"filter " + told[0] + " pack clock"});

  std::ofstream(gate + "/go").close();
  REQUIRE(prog.wait(120s) == 0);
  CHECK(prog.read_stdout() == ref.out);  // byte for byte the plain build's
  REQUIRE(mon.wait_exits(3));

  const std::string text = mon.process().read_stdout();
  auto records = parse_records(text);
  for (const auto& tid : told) {
    INFO("task " << tid);
    auto mine = records_of(records, tid);
    std::size_t firstFilter = mine.size(), packsBefore = 0, packsAfter = 0;
    std::string lastOmit;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (mine[i].event == "filter") {
        firstFilter = std::min(firstFilter, i);
        lastOmit = mine[i].get("omit");
      } else if (isPack(mine[i].event)) {
        (i < firstFilter ? packsBefore : packsAfter)++;
      }
    }
    REQUIRE(firstFilter < mine.size());
    CHECK(packsBefore > 0);  // the first half was recorded in full
    CHECK(packsAfter == 0);
    CHECK(lastOmit == (tid == told[0] ? "3" : "1"));
    CHECK(count(mine, "send") > 0);  // the rest of the second half is there
  }

  // abstat: the messages sent or received once packs were filtered are not
  // checked (no false mismatch), the first half is.
  std::ofstream(vm.dir() + "/run.trace") << text;
  auto report = run({bin_dir() + "/abstat", "--mismatch", vm.dir() + "/run.trace"}, {}, 60s);
  INFO(report.out << report.err);
  CHECK_THAT(report.out, Catch::Contains(" 0 mismatched"));
  CHECK_THAT(report.out, Catch::Contains("receives not checked: pack records filtered at the source"));
  // The first half's 20 rounds of work and sums to two workers, all but
  // the messages the filter cut into, were checked; the second half's not.
  std::size_t checked = 0, unchecked = 0;
  std::istringstream lines(report.out);
  for (std::string l; std::getline(lines, l);) {
    if (l.find(" receives checked,") != std::string::npos) checked = std::stoul(l);
    if (l.find("incomplete: ") != std::string::npos) unchecked = std::stoul(l.substr(l.find(':') + 1));
  }
  CHECK(checked >= 70);
  CHECK(checked <= 80);
  CHECK(unchecked >= 80);
}
