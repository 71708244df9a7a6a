// Found with PVM's own examples: every task that makes a PVM call
// is in the trace whatever its first call (gmbi), the program cannot see
// the monitor (gmbi's mailbox listing, mhf_server's handler table), a
// message taken by a pvm_addmhf handler is recorded as received
// (mhf_server + mhf_tickle), and bcast records where it went (ge).  Each
// case runs xabt_prog with libab and without it, against a real pvmd and
// abmon, and compares what the program printed.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;

namespace {

std::string prog(const char* name) { return bin_dir() + "/" + name; }

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> out;
  if (list == "-" || list == "<none>") return out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

// The tasks of a trace, each with its records in order: not abmon's own
// (abmon.*, and its samples, in its tid column).
std::map<std::string, std::vector<Record>> by_task(const std::vector<Record>& rs) {
  std::map<std::string, std::vector<Record>> tasks;
  for (auto& r : rs)
    if (r.tid.rfind("t", 0) == 0 && r.event.rfind("abmon.", 0) != 0 && r.event != "sample" && r.event != "host.load")
      tasks[r.tid].push_back(r);
  return tasks;
}

// PVM's error lines name the task ("libpvm [t40005]: ..."): tids differ between runs.
std::string without_tids(const std::string& text) {
  return std::regex_replace(text, std::regex(R"(\[t[0-9a-f]+\])"), "[tid]");
}

}  // namespace

TEST_CASE("a task whose PVM calls are not message calls is in the trace", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  const std::vector<std::string> calls = {"config",   "tasks",       "getmboxinfo", "recvinfo", "archcode",
                                          "newcontext", "getnoresets", "notify",      "siblings"};
  std::map<std::string, std::string> plain;
  for (auto& call : calls) plain[call] = run({prog("xabt_prog_plain"), "first", call}).out;
  Monitor mon(vm.dir() + "/first.trace");
  for (auto& call : calls) {
    auto r = run({prog("xabt_prog"), "first", call});
    INFO(call << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == plain[call]);
  }
  REQUIRE(mon.wait_exits(calls.size()));
  auto tasks = by_task(mon.finish());
  std::set<std::string> seen;
  for (auto& [tid, recs] : tasks) {
    INFO(tid);
    REQUIRE_FALSE(recs.empty());
    CHECK(recs.front().get("lang") == "c");  // the identity leads the task's records
    CHECK(find(recs, "task.exit"));
    // A call with a field named as an identity key (getmboxinfo's and
    // recvinfo's name=) comes right after the identity on a line of its own.
    const bool ownLine = recs.front().event == "info";
    REQUIRE(recs.size() > (ownLine ? 1u : 0u));
    const auto& first = recs[ownLine ? 1 : 0];
    if (ownLine) CHECK(first.get("name") != recs.front().get("name"));
    seen.insert(first.event);
  }
  for (auto& call : calls) {
    INFO("no task whose first record is " << call);
    CHECK(seen.count(call) == 1);
  }
}

TEST_CASE("the program's mailbox has no entry of abmon's", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({prog("xabt_prog_plain"), "mailbox"});  // no abmon yet: the plain truth
  REQUIRE(plain.exit_code == 0);
  REQUIRE(plain.out.find("class xabt.box entries=1\n") != std::string::npos);
  Monitor mon(vm.dir() + "/mailbox.trace");
  auto r = run({prog("xabt_prog"), "mailbox"});
  auto rs = mon.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);
  CHECK(find(rs, "getmboxinfo", {{"n", "1"}}));  // recorded as the program saw it
}

TEST_CASE("bcast records the members it went to, and every receive matches one", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  const int nproc = 4;
  auto plain = run({prog("xabt_prog_plain"), "bcast", std::to_string(nproc)});
  REQUIRE(plain.exit_code == 0);
  Monitor mon(vm.dir() + "/bcast.trace");
  auto r = run({prog("xabt_prog"), "bcast", std::to_string(nproc)});
  REQUIRE(mon.wait_exits(nproc));
  auto rs = mon.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);  // same results, error codes and buffer ids

  std::set<std::string> members;
  for (auto& r2 : rs)
    if (r2.event == "joingroup" && r2.has("group", "xabt.ge")) members.insert(r2.tid);
  REQUIRE(members.size() == nproc);
  // (sender, serial) -> destinations
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> sent;
  for (auto& b : rs) {
    if (b.event != "bcast" || !b.has("group", "xabt.ge")) continue;
    auto dst = split_list(b.get("dst"));
    INFO(b.tid << " dst=" << b.get("dst"));
    CHECK(b.has("rc", "0"));
    CHECK(dst.size() == nproc - 1);
    std::set<std::string> expect = members;
    expect.erase(b.tid);
    CHECK(std::set<std::string>(dst.begin(), dst.end()) == expect);
    sent[{b.tid, b.get("serial")}] = dst;
  }
  CHECK(sent.size() == nproc);
  int receives = 0;
  for (auto& rv : rs) {
    if (rv.event != "recv" || !rv.has("tag", "63")) continue;
    receives++;
    auto it = sent.find({rv.get("src"), rv.get("serial")});
    INFO(rv.tid << " got serial " << rv.get("serial") << " from " << rv.get("src"));
    REQUIRE(it != sent.end());
    CHECK(std::count(it->second.begin(), it->second.end(), rv.tid) == 1);
  }
  CHECK(receives == nproc * (nproc - 1));
  // PVM's errors, and no destinations for a bcast that sent nothing.
  const Record* alone = find(rs, "bcast", {{"group", "xabt.alone"}});
  REQUIRE(alone);
  CHECK(alone->get("rc") != "0");
  CHECK(split_list(alone->get("dst")).empty());
}

TEST_CASE("a message that arrives while the program makes buffers takes the id it takes without libab",
          "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({prog("xabt_late_plain")});
  REQUIRE(plain.exit_code == 0);
  REQUIRE(plain.out.find("recv=") != std::string::npos);
  Monitor mon(vm.dir() + "/late.trace");
  auto r = run({prog("xabt_late")});
  REQUIRE(mon.wait_exits(2));
  auto rs = mon.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);  // libab's sends take nothing in before the program reads
  CHECK(find(rs, "recv", {{"tag", "71"}}));
}

TEST_CASE("message handlers: the program sees PVM's table as without libab, and their messages are received",
          "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({prog("xabt_prog_plain"), "handlers"});
  REQUIRE(plain.exit_code == 0);
  REQUIRE(plain.out.find("caught_sum=1030\n") != std::string::npos);  // 510 + 520
  Monitor mon(vm.dir() + "/handlers.trace");
  auto r = run({prog("xabt_prog"), "handlers"});
  REQUIRE(mon.wait_exits(3));  // the parent twice (it enrolls again), the child
  auto rs = mon.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);  // ids, PVM's table printout, buffer ids
  CHECK(without_tids(r.err) == without_tids(plain.err));  // PVM's errors, pvm_exit's included

  const Record* first = find(rs, "addmhf", {{"tag", "51"}});
  REQUIRE(first);
  std::string parent = first->tid;
  std::string child;
  for (auto& s : rs)
    if (s.event == "send" && s.has("tag", "53")) child = s.tid;
  REQUIRE_FALSE(child.empty());
  for (std::string tag : {"51", "52"}) {
    INFO("tag " << tag);
    const Record* send = find(rs, "send", {{"tag", tag}});
    const Record* got = find(rs, "handler", {{"tag", tag}});
    REQUIRE(send);
    REQUIRE(got);
    CHECK(got->tid == parent);
    CHECK(got->get("src") == child);
    CHECK(got->get("serial") == send->get("serial"));
    CHECK(got->get("bytes") == "4");
    const Record* added = find(rs, "addmhf", {{"tag", tag}});
    REQUIRE(added);
    CHECK(got->get("mhid") == added->get("rc"));
    CHECK_FALSE(find(rs, "recv", {{"tag", tag}}));
  }
  // Enrolled again: a new task of the same process.
  const Record* again = find(rs, "addmhf", {{"tag", "54"}});
  REQUIRE(again);
  CHECK(again->tid != parent);
  CHECK(find(records_of(rs, again->tid), "task.exit"));
}

TEST_CASE("a program handler that covers abmon's pokes never sees one", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({prog("xabt_prog_plain"), "pokecover"});
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("handler_calls=0\n") != std::string::npos);
  Monitor mon(vm.dir() + "/pokecover.trace");
  auto r = run({prog("xabt_prog"), "pokecover"});
  REQUIRE(mon.wait_exits(2));
  auto rs = mon.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);
  for (std::string tag : {"7", "8", "9"}) {
    INFO("tag " << tag);
    CHECK(find(rs, "recv.begin", {{"tag", tag}}));
    CHECK(find(rs, "recv", {{"tag", tag}, {"bytes", "0"}}));
  }
  CHECK(count(rs, "handler") == 0);
}

// ---- PVM's own examples (package pvm-examples), built from its sources
// plain and with only `-include xab.h` added (tests/examples/CMakeLists.txt),
// each under its own name.

namespace {
std::string example(const char* variant, const char* name) {
  return std::string(XAB_PVM_EXAMPLES_DIR) + "/" + variant + "/" + name;
}
}  // namespace

TEST_CASE("PVM's gmbi example: recorded, and the same listing as without abmon", "[libab][pvm][examples]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({example("plain", "gmbi")});  // no abmon yet
  Monitor mon(vm.dir() + "/gmbi.trace");
  auto r = run({example("xab", "gmbi")});
  REQUIRE(mon.wait_exits(1));
  auto rs = mon.finish();
  CHECK(r.exit_code == plain.exit_code);
  CHECK(r.out == plain.out);  // abmon's entry left out; whatever else the VM's mailbox holds, both list it
  const Record* got = find(rs, "getmboxinfo");
  REQUIRE(got);
  CHECK(find(records_of(rs, got->tid), "task.exit"));
}

TEST_CASE("PVM's ge example: every bcast names its members, every receive matches one", "[libab][pvm][examples]") {
  // ge spawns its members by its own name: a VM whose ep= is the examples'.
  PrivateVm vm({std::string(XAB_PVM_EXAMPLES_DIR) + "/xab"});
  const int nproc = 4;
  Monitor mon(vm.dir() + "/ge.trace");
  auto r = run({example("xab", "ge"), std::to_string(nproc)});
  REQUIRE(mon.wait_exits(nproc));
  auto rs = mon.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == "done\n");
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> sent;
  for (auto& b : rs)
    if (b.event == "bcast") {
      auto dst = split_list(b.get("dst"));
      CHECK(dst.size() == nproc - 1);
      CHECK(std::count(dst.begin(), dst.end(), b.tid) == 0);
      sent[{b.tid, b.get("serial")}] = dst;
    }
  CHECK(sent.size() == nproc);  // ge: one bcast per member
  int receives = 0;
  for (auto& rv : rs)
    if (rv.event == "recv" && rv.has("tag", "63")) {
      receives++;
      auto it = sent.find({rv.get("src"), rv.get("serial")});
      REQUIRE(it != sent.end());
      CHECK(std::count(it->second.begin(), it->second.end(), rv.tid) == 1);
    }
  CHECK(receives == nproc * (nproc - 1));
}
