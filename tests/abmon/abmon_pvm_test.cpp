// abmon against a real private pvmd, fed by abmonFakeTask.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "abmon_harness.h"

using namespace xab::test;
using namespace xab::test::abmon;
using Catch::Matchers::Contains;

TEST_CASE("records appear in the task's order with the right fields") {
  PrivateVm::shared();
  Monitor mon("order.trace");
  REQUIRE(mon.started());
  auto r = fake({"info", "demo task", "good", "3", "mcast", "8", "mark", "phase 2=go"});
  REQUIRE(r.exit_code == 0);
  std::string tid = tidOf(r);
  REQUIRE(mon.waitFor([&](const std::string& s) {
    return s.find(tid + " task.exit") != std::string::npos;
  }));
  REQUIRE(mon.proc.stop(SIGTERM) == 0);

  std::string trace = mon.trace();
  auto lines = linesOf(trace);
  REQUIRE(lines.size() >= 3);
  CHECK(lines[0].starts_with("#xab-trace 1 abmon=t"));
  CHECK_THAT(lines[0], Contains(" pid=") && Contains(" start="));
  CHECK_THAT(lines[1], Contains(" abmon.start version=2 batch=512 flush_ms=200"));
  CHECK_THAT(lines.back(), Contains(" abmon.stop events=6 tasks=1 bad=0"));

  auto recs = records_of(trace, tid);
  REQUIRE(recs.size() == 7);
  CHECK_THAT(recs[0], Contains("mytid rc=" + tid + " name=demo%20task host=fake%20host "
                               "parent=none lang=c pid="));
  for (int i = 1; i <= 3; ++i)
    CHECK(recs[i] == "send dst=" + tid + " tag=5 bytes=4 serial=" + std::to_string(i) + " rc=0");
  CHECK(recs[4] ==
        "mcast dst=t40100,t40101,t40102,t40103,t40104,t40105,t40106,t40107 tag=9 bytes=64 "
        "serial=1 rc=0");
  CHECK(recs[5] == "mark text=phase%202%3Dgo rc=0");
  CHECK(recs[6] == "task.exit how=notify");

  // Receive times never go backwards; task times within the task neither.
  std::string lastRecv, lastTask;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto f = fieldsOf(lines[i]);
    REQUIRE(f.size() >= 4);
    CHECK(f[0].size() == 20);
    CHECK(f[0] >= lastRecv);
    lastRecv = f[0];
    if (f[2] == tid && f[3] != "task.exit") {
      CHECK(f[1] >= lastTask);
      lastTask = f[1];
    }
  }
}

TEST_CASE("bad messages are reported once, written as abmon.bad and skipped") {
  PrivateVm::shared();
  // The same messages as PVM messages and through abmon's local socket.
  std::string via = GENERATE(as<std::string>{}, "pvm", "local");
  Monitor mon("bad-" + via + ".trace");
  REQUIRE(mon.started());
  std::vector<std::string> script{"good", "1", "trunc", "version", "magic", "kind", "badstr", "trunc", "good", "1"};
  if (via == "local") script.insert(script.begin(), "local");
  auto r = fake(script);
  REQUIRE(r.exit_code == 0);
  std::string tid = tidOf(r);
  REQUIRE(mon.waitFor([&](const std::string& s) { return s.find(tid + " task.exit") != s.npos; }));
  REQUIRE(mon.proc.stop(SIGINT) == 0);

  auto recs = records_of(mon.trace(), tid);
  std::vector<std::string> want{
      "send dst=" + tid + " tag=5 bytes=4 serial=1 rc=0",
      "abmon.bad reason=truncated n=5",
      "abmon.bad reason=version n=0",
      "abmon.bad reason=magic n=0",
      "exit rc=0",  // kind: the good records around the bad one
      "exit rc=0",
      "abmon.bad reason=kind n=1",
      "exit rc=0",  // badstr
      "exit rc=0",
      "abmon.bad reason=string n=1",
      "abmon.bad reason=truncated n=5",
      "send dst=" + tid + " tag=5 bytes=4 serial=2 rc=0",
      "task.exit how=notify"};
  CHECK(recs == want);
  CHECK_THAT(linesOf(mon.trace()).back(), Contains("abmon.stop events=6 tasks=1 bad=6"));
  std::string err = mon.proc.read_stderr();
  // Reported once per kind of problem: truncated came twice, is said once.
  std::size_t first = err.find("truncated");
  REQUIRE(first != std::string::npos);
  CHECK(err.find("truncated", first + 1) == std::string::npos);
  for (const char* reason : {"version", "magic", "kind", "string"}) CHECK_THAT(err, Contains(reason));
}

TEST_CASE("the local socket: a connection without xab's hello is closed, others go on") {
  PrivateVm::shared();
  Monitor mon("hello.trace", {"-v"});
  REQUIRE(mon.started());
  auto r = fake({"badhello", "local", "good", "2", "badhello", "good", "1"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("badhello=closed\nbadhello=closed\n") != std::string::npos);
  std::string tid = tidOf(r);
  REQUIRE(mon.waitFor([&](const std::string& s) { return s.find(tid + " task.exit") != s.npos; }));
  REQUIRE(mon.proc.stop(SIGINT) == 0);
  auto recs = records_of(mon.trace(), tid);
  REQUIRE(recs.size() == 4);
  CHECK(recs[2] == "send dst=" + tid + " tag=5 bytes=4 serial=3 rc=0");
  std::string err = mon.proc.read_stderr();
  CHECK_THAT(err, Contains("refused a local connection without xab's hello"));
  CHECK_THAT(err, Contains("(2 through the local socket)"));
}

TEST_CASE("with --pvm-only the mailbox entry names no local socket") {
  PrivateVm::shared();
  Monitor mon("pvmonly.trace", {"--pvm-only", "-v"});
  REQUIRE(mon.started());
  auto r = fake({"local"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("abmon has no local socket"));
  mon.proc.stop(SIGINT);
  CHECK_THAT(mon.proc.read_stderr(), Contains("PVM messages only"));
}

TEST_CASE("lost events and lost messages are written") {
  PrivateVm::shared();
  Monitor mon("lost.trace");
  REQUIRE(mon.started());
  auto r = fake({"good", "1", "seqskip", "seqskip", "lost", "7", "good", "1"});
  REQUIRE(r.exit_code == 0);
  std::string tid = tidOf(r);
  REQUIRE(mon.waitFor([&](const std::string& s) { return s.find(tid + " task.exit") != s.npos; }));
  mon.proc.stop(SIGTERM);
  auto recs = records_of(mon.trace(), tid);
  REQUIRE(recs.size() == 5);
  CHECK(recs[1] == "abmon.lost messages=2");
  CHECK(recs[2] == "abmon.lost n=7");
}

TEST_CASE("a task killed with SIGKILL still gets its task.exit, after its events") {
  PrivateVm::shared();
  Monitor mon("kill.trace");
  REQUIRE(mon.started());
  SECTION("through pvmd") {
    auto r = fake({"good", "2", "kill"});
    CHECK(r.exit_code == 128 + SIGKILL);
    std::string tid = tidOf(r);
    REQUIRE(mon.waitFor([&](const std::string& s) { return s.find(tid + " task.exit") != s.npos; }));
    auto recs = records_of(mon.trace(), tid);
    REQUIRE(recs.size() == 3);
    CHECK(recs[2] == "task.exit how=notify");
  }
  SECTION("on a direct route (a socket of its own)") {
    auto r = fake({"direct", "good", "2", "sleep", "50", "good", "3", "kill"});
    CHECK(r.exit_code == 128 + SIGKILL);
    std::string tid = tidOf(r);
    REQUIRE(mon.waitFor([&](const std::string& s) { return s.find(tid + " task.exit") != s.npos; }));
    auto recs = records_of(mon.trace(), tid);
    REQUIRE(recs.size() == 6);
    CHECK(recs[4] == "send dst=" + tid + " tag=5 bytes=4 serial=5 rc=0");
    CHECK(recs[5] == "task.exit how=notify");
  }
  SECTION("paused, then killed by the test") {
    BackgroundProcess task({fakeBin(), "good", "1", "pause"}, PrivateVm::shared().dir() + "/paused.out");
    REQUIRE(task.wait_for_output([](const std::string& s) { return s.find("paused") != s.npos; }, 30s));
    std::string out = task.read_stdout();
    std::string tid = out.substr(4, out.find('\n') - 4);
    REQUIRE(mon.waitFor([&](const std::string& s) { return s.find(tid + " send") != s.npos; }));
    CHECK(mon.trace().find(tid + " task.exit") == std::string::npos);
    CHECK(task.stop(SIGKILL) == 128 + SIGKILL);
    REQUIRE(mon.waitFor([&](const std::string& s) { return s.find(tid + " task.exit") != s.npos; }));
  }
  CHECK(mon.proc.stop(SIGTERM) == 0);
}

TEST_CASE("several tasks at once, some on direct routes: nothing is lost") {
  PrivateVm::shared();
  Monitor mon("many.trace");
  REQUIRE(mon.started());
  std::string dir = PrivateVm::shared().dir();
  std::vector<std::unique_ptr<BackgroundProcess>> tasks;
  for (int i = 0; i < 4; ++i) {
    std::vector<std::string> argv{fakeBin()};
    if (i % 2) argv.push_back("direct");
    for (int k = 0; k < 20; ++k) argv.insert(argv.end(), {"good", "25"});
    tasks.push_back(std::make_unique<BackgroundProcess>(argv, dir + "/many" + std::to_string(i)));
  }
  for (auto& t : tasks) CHECK(t->wait(60s) == 0);
  REQUIRE(mon.waitFor([](const std::string& s) {
    std::size_t n = 0;
    for (std::size_t p = s.find("task.exit"); p != s.npos; p = s.find("task.exit", p + 1)) ++n;
    return n == 4;
  }));
  REQUIRE(mon.proc.stop(SIGINT) == 0);
  CHECK_THAT(linesOf(mon.trace()).back(), Contains("abmon.stop events=2000 tasks=4 bad=0"));
  CHECK(mon.trace().find("abmon.lost") == std::string::npos);
  for (auto& t : tasks) {
    std::string out = t->read_stdout();
    std::string tid = out.substr(4, out.find('\n') - 4);
    auto recs = records_of(mon.trace(), tid);
    REQUIRE(recs.size() == 501);
    // pvmd's exit notice may overtake a direct route's last data: abmon
    // must still write task.exit last.
    CHECK(recs.back() == "task.exit how=notify");
    for (int k = 0; k < 500; ++k) CHECK_THAT(recs[k], Contains(" serial=" + std::to_string(k + 1) + " "));
  }
}

TEST_CASE("SIGINT and SIGTERM stop abmon cleanly and free the mailbox entry") {
  PrivateVm::shared();
  int sig = GENERATE(SIGINT, SIGTERM);
  {
    Monitor mon("stop.trace");
    REQUIRE(mon.started());
    REQUIRE(fake({"good", "2"}).exit_code == 0);
    CHECK(mon.proc.stop(sig, 30s) == 0);
    auto lines = linesOf(mon.trace());
    REQUIRE_FALSE(lines.empty());
    CHECK_THAT(lines.back(), Contains(" abmon.stop events=2 tasks=1 bad=0"));
  }
  // The entry is gone: a task finds no abmon, and a new abmon registers.
  CHECK(fake({"good", "1"}).exit_code == 3);
  Monitor again("stop2.trace");
  CHECK(again.started());
  CHECK(fake({"good", "1"}).exit_code == 0);
  CHECK(again.proc.stop(SIGTERM) == 0);
}

TEST_CASE("a second abmon refuses while one runs") {
  PrivateVm::shared();
  Monitor mon("first.trace", {"--tag", "555"});
  REQUIRE(mon.started());
  auto second = run({abmonBin(), "-o", PrivateVm::shared().dir() + "/second.trace"}, {}, 60s);
  CHECK(second.exit_code == 3);
  CHECK_THAT(second.err, Contains("another abmon") && Contains("already running"));
  // The first one is untouched and still gets events (with its own tag).
  REQUIRE(fake({"good", "1"}).exit_code == 0);
  CHECK(mon.waitFor([](const std::string& s) { return s.find(" send ") != s.npos; }));
  CHECK(mon.proc.stop(SIGTERM) == 0);
}

TEST_CASE("without a PVM, abmon says so in one line and exits 1") {
  std::string vmid = "xab-abmon-none-" + std::to_string(getpid());
  auto r = run({abmonBin()}, {{"PVM_VMID", vmid}, {"PVM_ALLOW_ROOT", "yes"},
                               {"PVM_TMP", std::filesystem::temp_directory_path().string()}},
               60s);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("cannot contact pvmd"));
  CHECK(linesOf(r.err).size() == 1);
  CHECK(r.out.empty());
}

TEST_CASE("abmon --help and bad usage") {
  auto help = run({abmonBin(), "--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Contains("Usage: abmon") && Contains("--flush-ms"));
  auto bad = run({abmonBin(), "--batch", "zero"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Contains("--batch"));
}
