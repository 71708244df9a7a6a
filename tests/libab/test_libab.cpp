// libab against a real pvmd and a real abmon: every call is recorded with its
// fields, receives match sends by serial, and the program cannot tell it is
// being watched (same output, same exit code, its messages intact) — with
// abmon running, without it, and with abmon killed halfway.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;

namespace {

std::string prog(const char* name) { return bin_dir() + "/" + name; }

// The tid a test mode prints first ("tid=t40005").
std::string printed_tid(BackgroundProcess& task) {
  REQUIRE(task.wait_for_output([](const std::string& s) { return s.find("tid=t") != s.npos; }, 10s));
  std::string tid = task.read_stdout().substr(4);
  return tid.substr(0, tid.find('\n'));
}

// pvm_kill from the console, as a user would.
void pvm_kill_from_console(const std::string& tid) { run({"pvm"}, {}, 20s, "kill " + tid + "\n"); }

bool pvm_only() { return extra_abmon_args().find("--pvm-only") != std::string::npos; }

// abmon's last words with -v: "stopped: N messages (M through the local socket), ..."
std::pair<long, long> messages_and_local(const std::string& err) {
  auto at = err.find("stopped: ");
  if (at == std::string::npos) return {-1, -1};
  long n = std::strtol(err.c_str() + at + 9, nullptr, 10);
  auto paren = err.find('(', at);
  long m = paren == std::string::npos ? -1 : std::strtol(err.c_str() + paren + 1, nullptr, 10);
  return {n, m};
}

}  // namespace

TEST_CASE("every family of PVM calls is recorded with its fields", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/calls.trace");
  auto r = run({prog("xabt_prog"), "calls"});
  auto plain = run({prog("xabt_prog_plain"), "calls"});
  int abmon_rc = -1;
  auto rs = mon.finish(&abmon_rc);
  CHECK(abmon_rc == 0);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == plain.out);  // the program cannot tell

  std::string master;
  for (auto& rec : rs)
    if (rec.event == "mytid" && rec.f.count("name") && rec.f.at("parent") == "none") master = rec.tid;
  REQUIRE_FALSE(master.empty());
  auto m = records_of(rs, master);
  const Record* spawn = find(m, "spawn");
  REQUIRE(spawn);
  std::string child = spawn->f.at("tids");
  CHECK(spawn->has("count", "1"));
  CHECK(spawn->has("rc", "1"));
  CHECK(find(m, "spawn.begin", {{"file", "xabt_prog"}, {"count", "1"}}));
  CHECK(find(m, "mytid", {{"rc", master}, {"lang", "c"}}));
  CHECK(find(m, "parent", {{"rc", "-23"}}));
  CHECK(find(m, "initsend", {{"enc", "0"}}));
  CHECK(find(m, "pkint", {{"type", "int"}, {"n", "1"}, {"stride", "1"}, {"rc", "0"}}));
  CHECK(find(m, "pkfloat", {{"type", "float"}, {"n", "1"}}));
  CHECK(find(m, "pkdouble", {{"type", "double"}}));
  CHECK(find(m, "pkshort", {{"type", "short"}}));
  CHECK(find(m, "pklong", {{"type", "long"}}));
  CHECK(find(m, "pkbyte", {{"type", "byte"}, {"n", "4"}}));
  CHECK(find(m, "pkstr", {{"type", "str"}, {"n", "5"}}));
  CHECK(find(m, "send", {{"dst", child}, {"tag", "11"}, {"serial", "1"}, {"rc", "0"}}));
  CHECK(find(m, "recv.begin", {{"src", child}, {"tag", "12"}}));
  CHECK(find(m, "recv", {{"src", child}, {"tag", "12"}, {"serial", "1"}}));
  CHECK(find(m, "bufinfo", {{"tag", "12"}, {"src", child}}));
  CHECK(find(m, "upkstr", {{"type", "str"}, {"n", "5"}}));
  CHECK(find(m, "mcast", {{"dst", child}, {"tag", "13"}, {"serial", "2"}}));
  CHECK(find(m, "psend", {{"dst", child}, {"tag", "14"}, {"type", "int"}, {"n", "3"}, {"bytes", "12"}}));
  CHECK(find(m, "precv.begin", {{"src", child}, {"tag", "15"}, {"type", "int"}, {"n", "3"}}));
  CHECK(find(m, "precv", {{"src", child}, {"tag", "15"}, {"bytes", "12"}, {"rc", "0"}}));
  CHECK(find(m, "nrecv", {{"src", child}, {"tag", "999"}, {"rc", "0"}}));
  CHECK(find(m, "probe", {{"tag", "999"}, {"rc", "0"}}));
  CHECK(find(m, "trecv.begin", {{"tag", "999"}, {"timeout", "20000"}}));
  CHECK(find(m, "trecv", {{"tag", "999"}, {"rc", "0"}}));
  CHECK(find(m, "joingroup", {{"group", "xabt"}, {"rc", "0"}}));
  CHECK(find(m, "gsize", {{"group", "xabt"}, {"rc", "1"}}));
  CHECK(find(m, "getinst", {{"group", "xabt"}, {"tid", master}}));
  CHECK(find(m, "gettid", {{"group", "xabt"}, {"inst", "0"}, {"rc", master}}));
  CHECK(find(m, "barrier.begin", {{"group", "xabt"}, {"count", "1"}}));
  CHECK(find(m, "barrier", {{"group", "xabt"}, {"count", "1"}, {"rc", "0"}}));
  CHECK(find(m, "lvgroup", {{"group", "xabt"}}));
  CHECK(find(m, "config", {{"nhost", "1"}}));
  CHECK(find(m, "newcontext"));
  CHECK(find(m, "setcontext"));
  CHECK(find(m, "getcontext"));
  CHECK(find(m, "freecontext"));
  CHECK(find(m, "putinfo", {{"name", "xabt.box"}}));
  CHECK(find(m, "delinfo", {{"name", "xabt.box"}, {"index", "0"}}));
  CHECK(find(m, "getopt", {{"what", "1"}}));
  CHECK(find(m, "mstat"));
  CHECK(find(m, "pstat", {{"tid", child}}));
  CHECK(find(m, "kill", {{"tid", child}, {"rc", "0"}}));
  CHECK(find(m, "exit"));

  auto c = records_of(rs, child);
  REQUIRE_FALSE(c.empty());
  CHECK(c.front().has("name", "xabt_prog"));
  CHECK(c.front().has("parent", master));
  CHECK(find(c, "recv", {{"src", master}, {"tag", "11"}, {"serial", "1"}}));
  CHECK(find(c, "recv", {{"src", master}, {"tag", "13"}, {"serial", "2"}}));
  CHECK(find(c, "precv", {{"src", master}, {"tag", "14"}, {"serial", "3"}}));
  CHECK(find(c, "psend", {{"dst", master}, {"tag", "15"}}));
  // The child was killed while blocked in recv(tag 16): its begin record is there.
  CHECK(find(c, "recv.begin", {{"tag", "16"}}));
  CHECK(find(c, "task.exit"));
}

TEST_CASE("every receive names the serial of a send from its source", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/serials.trace");
  REQUIRE(run({prog("xabt_prog"), "pingpong", "200"}).exit_code == 3);
  REQUIRE(run({prog("xabt_prog"), "calls"}).exit_code == 0);
  auto rs = mon.finish();
  std::map<std::pair<std::string, std::string>, int> sends;  // (tid, serial) -> count
  for (auto& r : rs)
    if ((r.event == "send" || r.event == "mcast" || r.event == "psend") && r.f.count("serial"))
      sends[{r.tid, r.f.at("serial")}]++;
  int receives = 0;
  for (auto& r : rs) {
    bool is_recv = r.event == "recv" || r.event == "nrecv" || r.event == "trecv" || r.event == "precv";
    if (!is_recv || !r.f.count("serial") || r.f.at("rc") == "0" || r.f.at("rc")[0] == '-') continue;
    if (r.event == "precv" && r.f.at("rc") != "0") continue;
    receives++;
    INFO(r.tid << " " << r.event << " src=" << r.f.at("src") << " serial=" << r.f.at("serial"));
    CHECK(r.f.at("serial") != "0");
    CHECK(sends.count({r.f.at("src"), r.f.at("serial")}) == 1);
  }
  CHECK(receives > 400);
  // Each serial is used once per sender: a re-sent buffer gets a new one.
  for (auto& [key, n] : sends) CHECK(n == 1);
}

TEST_CASE("a half-built message survives libab's own send", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/half.trace");
  auto r = run({prog("xabt_prog"), "halfbuilt"});
  auto plain = run({prog("xabt_prog_plain"), "halfbuilt"});
  auto rs = mon.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == plain.out);
  // 1 + 2, no extra item in the body, and the receiver saw wid 0.
  CHECK(r.out.find("same_sbuf=1\nchild_got_sum=3\n") != std::string::npos);
  CHECK(find(rs, "trecv", {{"tag", "4242"}, {"rc", "0"}}));
}

TEST_CASE("wildcard receives never see monitor traffic", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/wild.trace", {"--batch", "2"});
  auto r = run({prog("xabt_prog"), "wildcard", "10"});
  mon.finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out == "child_counted=10\n");  // 10 messages, none stray
}

TEST_CASE("pvmd's notify and an uninstrumented sender's messages arrive intact", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/plain.trace");
  auto n = run({prog("xabt_prog"), "notify"});
  auto p = run({prog("xabt_prog"), "plainsender"});
  auto rs = mon.finish();
  CHECK(n.out == run({prog("xabt_prog_plain"), "notify"}).out);
  CHECK(n.out == "notify tag=77 bytes=4 about_child=1\n");
  CHECK(p.out == "plain_total=6\n");
  // The plain child's messages carry no serial.
  int unserialed = 0;
  for (auto& r : rs)
    if (r.event == "recv" && r.has("tag", "5") && r.has("serial", "0")) unserialed++;
  CHECK(unserialed == 3);
  // pvmd's notify message names pvmd's tid as a tid, not as an int32.
  int notices = 0;
  for (auto& r : rs)
    if (r.event == "recv" && r.has("tag", "77")) {
      CHECK(r.has("src", "t80000000"));
      notices++;
    }
  CHECK(notices == 1);
}

TEST_CASE("a task killed with SIGKILL still gets its exit record", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/sigkill.trace");
  BackgroundProcess task({prog("xabt_prog"), "blocked"}, vm.dir() + "/blocked.out");
  std::string tid = printed_tid(task);
  REQUIRE(mon.saw(tid + " recv.begin"));
  task.stop(SIGKILL);
  CHECK(mon.saw(tid + " task.exit"));
  auto rs = mon.finish();
  CHECK(find(records_of(rs, tid), "task.exit"));
}

namespace {

// A task that records a pack and blocks in a receive, under an abmon that
// does not poke (`abmon_args`): the records are at abmon before it blocks,
// and they are there when it is killed in the receive.
void sends_before_it_blocks(const std::string& name, const std::vector<std::string>& abmon_args) {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/" + name + ".trace", abmon_args);
  BackgroundProcess task({prog("xabt_prog"), "blocked"}, vm.dir() + "/" + name + ".out");
  std::string tid = printed_tid(task);
  CHECK(mon.saw(tid + " recv.begin"));
  task.stop(SIGKILL);
  auto rs = records_of(mon.finish(), tid);
  CHECK(find(rs, "pkint"));
  CHECK(find(rs, "recv.begin", {{"tag", "31337"}}));
}

}  // namespace

TEST_CASE("without pokes a task sends its records before it blocks", "[libab][pvm]") {
  sends_before_it_blocks("nopoke", {"--poke-ms", "0"});
}

TEST_CASE("in immediate mode a task sends its records before it blocks", "[libab][pvm]") {
  sends_before_it_blocks("immblocked", {"--batch", "1"});
}

TEST_CASE("a task ended by pvm_kill loses no event", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/kill.trace");
  // 300 packs stay in the task's buffer (batch 512) while it sleeps.
  BackgroundProcess task({prog("xabt_prog"), "idle", "300"}, vm.dir() + "/idle.out");
  std::string tid = printed_tid(task);
  std::this_thread::sleep_for(200ms);
  pvm_kill_from_console(tid);
  CHECK(task.wait(10s) == 128 + SIGTERM);
  REQUIRE(mon.saw(tid + " task.exit"));
  auto rs = records_of(mon.finish(), tid);
  CHECK(count(rs, "pkint") == 300);
}

TEST_CASE("a task killed while blocked in a receive loses no event", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  // Pokes every second: the kill comes while the task is blocked with its
  // records unsent, and the poke after it sends them.
  Monitor mon(vm.dir() + "/killrecv.trace", {"--poke-ms", "1000"});
  BackgroundProcess task({prog("xabt_prog"), "idlerecv", "300"}, vm.dir() + "/idlerecv.out");
  std::string tid = printed_tid(task);
  pvm_kill_from_console(tid);
  // Ended by the SIGTERM itself once abmon has the records (SIGALRM would
  // mean the fallback ended it, with the records lost).
  CHECK(task.wait(20s) == 128 + SIGTERM);
  REQUIRE(mon.saw(tid + " task.exit"));
  auto rs = records_of(mon.finish(), tid);
  CHECK(count(rs, "pkint") == 300);
  CHECK(find(rs, "recv.begin", {{"tag", "31337"}}));
}

TEST_CASE("without abmon the program runs unchanged and warns once", "[libab][pvm]") {
  PrivateVm::shared();
  auto r = run({prog("xabt_prog"), "calls"});
  auto plain = run({prog("xabt_prog_plain"), "calls"});
  CHECK(r.exit_code == plain.exit_code);
  CHECK(r.out == plain.out);
  size_t first = r.err.find("abmon is not running");
  CHECK(first != std::string::npos);
  CHECK(r.err.find("abmon is not running", first + 1) == std::string::npos);
}

TEST_CASE("abmon killed mid-run: the program finishes with the same output and code", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  auto plain = run({prog("xabt_prog_plain"), "pingpong", "3000"});
  REQUIRE(plain.exit_code == 3);
  Monitor mon(vm.dir() + "/killed-abmon.trace", {"--batch", "1"});
  BackgroundProcess task({prog("xabt_prog"), "pingpong", "3000"}, vm.dir() + "/pp.out");
  REQUIRE(task.wait_for_output([](const std::string& s) { return s.find("round 100\n") != s.npos; }, 30s));
  mon.process().stop(SIGKILL);
  CHECK(task.wait(60s) == 3);
  CHECK(task.read_stdout() == plain.out);
}

TEST_CASE("events travel through abmon's local socket, or through pvmd with --pvm-only", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/transport.trace", {"-v"});
  auto r = run({prog("xabt_prog"), "pingpong", "200"});
  REQUIRE(r.exit_code == 3);
  REQUIRE(mon.wait_exits(2));
  auto rs = mon.finish();
  CHECK(count(rs, "send", {{"tag", "1"}}) == 201);
  auto [messages, local] = messages_and_local(mon.process().read_stderr());
  CHECK(messages > 0);
  // Every task runs on abmon's host here.
  CHECK(local == (pvm_only() ? 0 : messages));
}

TEST_CASE("a task whose abmon falls behind goes on through pvmd and loses nothing", "[libab][pvm]") {
  auto& vm = PrivateVm::shared();
  Monitor mon(vm.dir() + "/behind.trace", {"-v"});
  // abmon reads nothing while stopped: the local socket fills (0.4 to 2 MB,
  // 10,000 to 50,000 records, as net.core.wmem_max allows), the tasks wait
  // a second, then send through pvmd.  20,000 roundtrips: 240,000 records.
  REQUIRE(kill(mon.process().pid(), SIGSTOP) == 0);
  auto r = run({prog("xabt_prog"), "pingpong", "20000"});
  kill(mon.process().pid(), SIGCONT);
  REQUIRE(r.exit_code == 3);
  REQUIRE(mon.wait_exits(2));
  auto rs = mon.finish();
  CHECK(count(rs, "send", {{"tag", "1"}}) == 20001);
  CHECK(count(rs, "send", {{"tag", "2"}}) == 20000);
  CHECK(count(rs, "recv", {{"tag", "2"}}) == 20000);
  // In order: a message out of its task's sequence would show as lost.
  CHECK(count(rs, "abmon.lost") == 0);
  auto [messages, local] = messages_and_local(mon.process().read_stderr());
  if (pvm_only()) {
    CHECK(local == 0);
  } else {
    CHECK(local > 0);
    CHECK(local < messages);
  }
}
