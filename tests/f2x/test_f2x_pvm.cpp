// f2x against a real pvmd and a real abmon.
//
// f2xt_master (fixed form) and f2xt_worker (free form) are each built twice
// from one source: against PVM's libfpvm3, and against libf2x + libab.
// 1. Both builds print the same, with abmon running or not: relinking
//    changes nothing the program can see.
// 2. abmon's records of the f2x build are what the program did: the calls,
//    tags, sizes, types and counts, receives matched to sends by serial,
//    lang=fortran.
// 3. A Fortran master with C workers (xab.h + libab) prints the same again,
//    and the records say which task is Fortran and which is C.
// 4. f2xt_misc (one task) calls every routine the master does not: same
//    output and same PVM messages on stderr, and each call is recorded.
#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;
using Catch::Matchers::Contains;

namespace {

// "type/n/stride" of every pack (or unpack) record, in order.
std::vector<std::string> packs(const std::vector<Record>& rs, const std::string& prefix) {
  std::vector<std::string> out;
  for (auto& r : rs)
    if (r.event.rfind(prefix, 0) == 0 && r.event != prefix + "mesg")
      out.push_back(r.get("type") + "/" + r.get("n") + "/" + r.get("stride"));
  return out;
}

std::string prog(const std::string& name) { return bin_dir() + "/" + name; }

// The master's run: its stdout, and that it ended well.
std::string run_master(const std::string& master, const std::string& worker) {
  auto r = run({prog(master), worker}, {}, 90s);
  INFO(master << " " << worker << " stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// Waits until `tasks` tasks have ended, stops abmon, returns the records.
std::vector<Record> finish(Monitor& mon, std::size_t tasks) {
  mon.wait_exits(tasks, 15s);
  int rc = -1;
  auto rs = mon.finish(&rc);
  CHECK(rc == 0);
  return rs;
}

std::string master_tid(const std::vector<Record>& rs, const std::string& name) {
  for (auto& r : rs)
    if (r.event == "mytid" && r.has("name", name) && r.has("parent", "none")) return r.tid;
  return {};
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::istringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(item);
  return out;
}

// Every receive that got a message names a serial its sender recorded for
// a send to the receiver (send, mcast, psend, bcast), with the same tag and
// size; returns how many receives were matched.
std::size_t check_serials(const std::vector<Record>& rs) {
  std::size_t matched = 0;
  for (auto& in : rs) {
    // A serial is only there when a message was got (precv's rc is then 0).
    bool got = (in.event == "recv" || in.event == "nrecv" || in.event == "trecv" || in.event == "precv") &&
               in.get("serial") != "0" && in.get("serial") != "<none>" && in.get("rc")[0] != '-';
    if (!got) continue;
    INFO(in.tid << " " << in.event << " src=" << in.get("src") << " serial=" << in.get("serial"));
    std::size_t senders = 0;
    for (auto& out : records_of(rs, in.get("src"))) {
      bool sends = out.event == "send" || out.event == "mcast" || out.event == "psend" || out.event == "bcast";
      if (!sends || out.get("serial") != in.get("serial")) continue;
      auto dst = split(out.get("dst"));
      bool to_me = out.event == "bcast" || std::find(dst.begin(), dst.end(), in.tid) != dst.end();
      if (to_me && out.get("tag") == in.get("tag") && out.get("bytes") == in.get("bytes")) senders++;
    }
    CHECK(senders == 1);
    matched++;
  }
  return matched;
}

const std::vector<std::string> kSentTypes = {"int/4/1",  "float/3/1", "double/3/1", "cplx/2/1", "dcplx/2/1",
                                             "short/3/1", "byte/4/1",  "byte/11/1",  "int/2/2"};

}  // namespace

TEST_CASE("a Fortran program prints the same linked with libfpvm3 or with libf2x", "[f2x][pvm]") {
  auto& vm = PrivateVm::shared();
  std::string pvm = run_master("f2xt_master_fpvm3", "f2xt_worker_fpvm3");
  std::string f2x = run_master("f2xt_master_f2x", "f2xt_worker_f2x");  // no abmon: unmonitored
  std::string monitored;
  {
    Monitor mon(vm.dir() + "/same.trace");
    monitored = run_master("f2xt_master_f2x", "f2xt_worker_f2x");
    finish(mon, 3);
  }
  CHECK(f2x == pvm);
  CHECK(monitored == pvm);
  // What PVM's own library produced, so the comparison means something.
  CHECK_THAT(pvm, Contains("spawned  2\n"));
  CHECK_THAT(pvm, Contains("reduce sum  0     6    12\n"));
  CHECK_THAT(pvm, Contains("reduce product  0     6    48\n"));
  CHECK_THAT(pvm, Contains("reduce max  0     3     6\n"));
  CHECK_THAT(pvm, Contains("reduce min  0     1     2\n"));
  CHECK_THAT(pvm, Contains("reduce dsum  0   3.000\n"));
  CHECK_THAT(pvm, Contains("gather  0  100  101  102\n"));
  CHECK_THAT(pvm, Contains("  string [HELLO f2x  ] scatter bcast  2000   777\n"));
  CHECK_THAT(pvm, Contains("getmboxinfo [f2xbox                          ]  1  0  99\n"));
  CHECK_THAT(pvm, Contains("long group  -2\n"));
  CHECK_THAT(pvm, Contains("exit  0\n"));
}

TEST_CASE("abmon records what the Fortran program did", "[f2x][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/records.trace");
  run_master("f2xt_master_f2x", "f2xt_worker_f2x");
  auto rs = finish(mon, 3);
  CHECK(count(rs, "abmon.bad") == 0);

  std::string master = master_tid(rs, "f2xt_master_f2x");
  REQUIRE_FALSE(master.empty());
  auto m = records_of(rs, master);
  CHECK(count(m, "mytid", {{"lang", "fortran"}, {"rc", master}}) == 1);
  REQUIRE(count(m, "spawn", {{"file", "f2xt_worker_f2x"}, {"count", "2"}, {"rc", "2"}}) == 1);
  CHECK(count(m, "spawn.begin", {{"where", ""}, {"flags", "0"}, {"count", "2"}}) == 1);
  auto workers = split(std::find_if(m.begin(), m.end(), [](auto& r) { return r.event == "spawn"; })->get("tids"));
  REQUIRE(workers.size() == 2);

  // The message of every type, multicast.
  auto sent = packs(m, "pk");
  REQUIRE(sent.size() >= kSentTypes.size());
  CHECK(std::vector<std::string>(sent.begin(), sent.begin() + kSentTypes.size()) == kSentTypes);
  CHECK(count(m, "mcast", {{"dst", workers[0] + "," + workers[1]}, {"tag", "10"}, {"bytes", "136"},
                           {"serial", "1"}, {"rc", "0"}}) == 1);
  // Reduce with each function, as PVM's own functions.
  const Fields ops[] = {{{"tag", "31"}, {"op", "PvmSum"}, {"type", "int"}, {"n", "2"}},
                        {{"tag", "32"}, {"op", "PvmProduct"}, {"type", "int"}},
                        {{"tag", "33"}, {"op", "PvmMax"}, {"type", "int"}},
                        {{"tag", "34"}, {"op", "PvmMin"}, {"type", "int"}},
                        {{"tag", "35"}, {"op", "PvmSum"}, {"type", "double"}, {"n", "1"}}};
  for (auto& op : ops) {
    Fields end = op;
    end.push_back({"rc", "0"});
    CHECK(count(rs, "reduce.begin", op) == 3);
    CHECK(count(rs, "reduce", end) == 3);
  }
  CHECK(count(rs, "gather", {{"tag", "40"}, {"root", "0"}, {"type", "int"}, {"rc", "0"}}) == 3);
  CHECK(count(rs, "scatter", {{"tag", "41"}, {"root", "0"}, {"type", "int"}, {"rc", "0"}}) == 3);
  CHECK(count(m, "bcast", {{"group", "f2xgrp"}, {"tag", "50"}, {"bytes", "4"}, {"rc", "0"}}) == 1);
  CHECK(count(rs, "barrier", {{"group", "f2xgrp"}, {"count", "3"}, {"rc", "0"}}) == 6);
  // The replies, got in a nonblocking loop; psend/precv; notify by trecv.
  CHECK(count(m, "nrecv", {{"tag", "20"}, {"bytes", "140"}}) == 2);
  CHECK(count(m, "precv", {{"tag", "21"}, {"bytes", "12"}, {"type", "int"}, {"n", "3"}, {"rc", "0"}}) == 2);
  CHECK(count(m, "trecv.begin", {{"tag", "60"}, {"timeout", "30000000"}}) == 2);
  CHECK(count(m, "notify", {{"what", "1"}, {"tag", "60"}, {"tids", workers[0] + "," + workers[1]}}) == 1);
  // The mailbox.
  CHECK(count(m, "putinfo", {{"name", "f2xbox"}, {"flags", "0"}, {"rc", "0"}}) == 1);
  CHECK(count(m, "recvinfo", {{"name", "f2xbox"}, {"index", "0"}}) == 2);
  CHECK(count(m, "recvinfo", {{"name", "f2xbox"}, {"rc", "-32"}}) == 1);
  CHECK(count(m, "getmboxinfo", {{"name", "f2xbox"}, {"n", "1"}, {"rc", "0"}}) == 1);
  CHECK(count(m, "delinfo", {{"name", "f2xbox"}, {"index", "0"}, {"rc", "0"}}) == 1);
  // Errors: a group name too long never reaches PVM (as with libfpvm3).
  CHECK(count(m, "joingroup") == 1);
  CHECK(count(m, "gsize", {{"group", "nosuchgroup"}, {"rc", "-19"}}) == 1);
  CHECK(count(m, "exit", {{"rc", "0"}}) == 1);

  for (auto& w : workers) {
    INFO("worker " << w);
    auto wr = records_of(rs, w);
    CHECK(count(wr, "mytid", {{"lang", "fortran"}, {"parent", master}, {"name", "f2xt_worker_f2x"}}) == 1);
    CHECK(count(wr, "recv", {{"src", master}, {"tag", "10"}, {"bytes", "136"}, {"serial", "1"}}) == 1);
    auto got = packs(wr, "upk");
    REQUIRE(got.size() >= kSentTypes.size());
    auto expect = kSentTypes;
    expect.back() = "int/2/1";  // the worker unpacks the strided pair contiguously
    CHECK(std::vector<std::string>(got.begin(), got.begin() + expect.size()) == expect);
    CHECK(count(wr, "send", {{"dst", master}, {"tag", "20"}, {"bytes", "140"}, {"rc", "0"}}) == 1);
    CHECK(count(wr, "psend", {{"dst", master}, {"tag", "21"}, {"type", "int"}, {"n", "3"}}) == 1);
  }
  // 2 x mcast, 2 x bcast, 2 replies, 2 psends: every one matched by serial.
  CHECK(check_serials(rs) == 8);
}

TEST_CASE("a Fortran master and C workers: same output, each task's language recorded", "[f2x][pvm]") {
  auto& vm = PrivateVm::shared();
  std::string pvm = run_master("f2xt_master_fpvm3", "f2xt_worker_fpvm3");
  Monitor mon(vm.dir() + "/mixed.trace");
  std::string mixed = run_master("f2xt_master_f2x", "f2xt_cworker");
  auto rs = finish(mon, 3);
  CHECK(mixed == pvm);

  std::string master = master_tid(rs, "f2xt_master_f2x");
  REQUIRE_FALSE(master.empty());
  CHECK(count(records_of(rs, master), "mytid", {{"lang", "fortran"}}) == 1);
  CHECK(count(rs, "mytid", {{"lang", "c"}, {"parent", master}, {"name", "f2xt_cworker"}}) == 2);
  CHECK(count(rs, "reduce", {{"op", "PvmProduct"}, {"rc", "0"}}) == 3);
  CHECK(count(rs, "upkcplx", {{"type", "cplx"}, {"n", "2"}}) == 4);  // 2 in C, 2 in Fortran
  CHECK(check_serials(rs) == 8);
}

TEST_CASE("every other libfpvm3 routine gives the same results through libf2x", "[f2x][pvm]") {
  auto& vm = PrivateVm::shared();
  auto pvm = run({prog("f2xt_misc_fpvm3")}, {}, 60s);
  auto f2x = run({prog("f2xt_misc_f2x")}, {}, 60s);
  Monitor mon(vm.dir() + "/misc.trace");
  auto monitored = run({prog("f2xt_misc_f2x")}, {}, 60s);
  auto rs = finish(mon, 1);
  REQUIRE(pvm.exit_code == 0);
  CHECK(f2x.exit_code == 0);
  CHECK(monitored.exit_code == 0);
  CHECK(f2x.out == pvm.out);
  CHECK(monitored.out == pvm.out);
  // PVM's own messages (pvmfperror's text keeps its trailing blanks) are
  // the same too, once libab's one line about abmon is set aside and the
  // task's tid (libpvm [t40002]: ...) is blanked.
  auto without_xab = [](const std::string& err) {
    std::istringstream in(err);
    std::string line, out;
    while (std::getline(in, line))
      if (line.rfind("xab: ", 0) != 0) out += std::regex_replace(line, std::regex("\\[t[0-9a-f]+\\]"), "[t]") + "\n";
    return out;
  };
  CHECK(without_xab(f2x.err) == without_xab(pvm.err));
  CHECK(without_xab(monitored.err) == without_xab(pvm.err));
  CHECK_THAT(pvm.err, Contains("f2xt_misc perror   : "));
  CHECK_THAT(pvm.out, Contains("freecontext T T\n"));  // PVM 3.4.6's pvmffreecontext sets the context
  CHECK_THAT(pvm.out, Contains("psend precv  0  8 12  4  5  6\n"));
  CHECK_THAT(pvm.out, Contains("startpvmd running -28\n"));

  std::string me;
  for (auto& r : rs)
    if (r.event == "mytid" && r.has("name", "f2xt_misc_f2x")) me = r.tid;
  REQUIRE_FALSE(me.empty());
  auto m = records_of(rs, me);
  CHECK(count(m, "mytid", {{"lang", "fortran"}}) == 1);
  // One record per routine called (setcontext: pvmfsetcontext x3 and pvmffreecontext).
  for (const char* event : {"setopt", "getopt", "mkbuf", "setsbuf", "getsbuf", "send", "probe", "trecv", "nrecv",
                            "recv", "bufinfo", "getrbuf", "upkint", "setrbuf", "freebuf", "psend", "precv",
                            "getcontext", "newcontext", "addmhf", "delmhf", "tidtohost", "pstat", "config", "mstat",
                            "archcode", "addhosts", "delhosts", "hostsync", "tasks", "siblings", "kill", "sendsig",
                            "joingroup", "freezegroup", "barrier", "getinst", "gettid", "lvgroup", "catchout",
                            "perror", "start_pvmd", "exit"}) {
    INFO(event);
    CHECK(count(m, event) >= 1);
  }
  CHECK(count(m, "setcontext") == 4);
  CHECK(count(m, "freecontext") == 0);
  CHECK(count(m, "tasks") == 1);  // one real call for a pass of pvmftasks
  CHECK(count(m, "archcode", {{"arch", "NOSUCHARCH"}, {"rc", "-32"}}) == 1);
  CHECK(count(m, "mstat", {{"host", "no.such.host"}, {"rc", "-6"}}) == 1);
  CHECK(count(m, "send", {{"dst", me}, {"tag", "5"}, {"bytes", "4"}, {"serial", "1"}}) == 1);
  CHECK(count(m, "recv", {{"src", me}, {"tag", "5"}, {"serial", "1"}}) == 1);
  CHECK(count(m, "precv", {{"src", me}, {"tag", "8"}, {"bytes", "12"}, {"serial", "2"}}) == 1);
}
