// Stepping the live demo: abmon --control, driven by a small
// client of its control socket written here (the protocol of
// abmon/src/control.h, documented in docs/abmon.md "Control mode").
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "xab/control_path.h"
#include "xab/test/control_client.h"
#include "xab/test/private_vm.h"
#include "xab/test/process.h"
#include "xab/test/records.h"

using namespace xab::test;
using namespace std::chrono_literals;

namespace {

std::string demo() { return bin_dir() + "/xabdemo"; }
std::string plain_demo() { return bin_dir() + "/xabdemo-plain"; }

std::string result_of(const std::string& out) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("xabdemo: result ", 0) == 0) return line;
  return "";
}

// "event wait t40002 seq 3 call send peer t40001 tag 16004" -> {tid, call}.
std::pair<std::string, std::string> waitOf(const std::string& e) {
  std::istringstream in(e);
  std::string w1, w2, tid, k, seq, kc, call;
  in >> w1 >> w2 >> tid >> k >> seq >> kc >> call;
  return {tid, call};
}

const char* const kSteppedCalls[] = {"send",  "mcast",       "psend", "bcast",        "recv.begin", "trecv.begin",
                                     "nrecv", "probe", "precv.begin", "barrier.begin", "spawn.begin"};

}  // namespace

TEST_CASE("abmon --control: the stepped demo computes what the unstepped one does", "[demo][pvm][abmon][step]") {
  PrivateVm vm;
  const std::vector<std::string> args = {"-n", "2", "--rounds", "2"};
  std::vector<std::string> plain = {plain_demo()}, stepped = {demo()};
  plain.insert(plain.end(), args.begin(), args.end());
  stepped.insert(stepped.end(), args.begin(), args.end());
  auto ref = run(plain, {}, 120s);
  REQUIRE(ref.exit_code == 0);
  REQUIRE_FALSE(result_of(ref.out).empty());

  const std::string sock = vm.dir() + "/control";
  Monitor mon(vm.dir() + "/trace", {"--control", sock});

  // 1. Step every call, one task at a time, in the order the tasks ask.
  std::map<std::string, int> steps;  // per task
  {
    ControlClient c(sock);
    REQUIRE(c.connected());
    REQUIRE(c.line(10s) == std::optional<std::string>("xab-control 1"));
    BackgroundProcess prog(stepped, vm.dir() + "/stepped.out");
    while (prog.running()) {
      auto e = c.nextWait(500ms);
      if (!e) continue;
      auto [tid, call] = waitOf(*e);
      INFO(*e);
      REQUIRE(c.request("step " + tid) == "ok 1");
      ++steps[tid];
    }
    while (auto e = c.nextWait(2s)) {  // workers may still ask after the master has gone
      auto [tid, call] = waitOf(*e);
      REQUIRE(c.request("step " + tid) == "ok 1");
      ++steps[tid];
    }
    CHECK(prog.wait(1s) == 0);
    CHECK(result_of(prog.read_stdout()) == result_of(ref.out));
  }
  REQUIRE(mon.wait_exits(3));
  auto records = parse_records(mon.process().read_stdout());
  REQUIRE(steps.size() == 3);  // the master and both workers were stepped
  for (const auto& [tid, n] : steps) {
    INFO("task " << tid);
    auto mine = records_of(records, tid);
    std::size_t communicating = 0;
    for (const char* ev : kSteppedCalls) communicating += count(mine, ev);
    CHECK(count(mine, "step.wait") == static_cast<std::size_t>(n));
    CHECK(communicating == static_cast<std::size_t>(n));  // every one waited first
  }

  // 2. A breakpoint on a call name stops every task there.
  {
    ControlClient c(sock);
    REQUIRE(c.connected());
    REQUIRE(c.line(10s) == std::optional<std::string>("xab-control 1"));
    REQUIRE(c.request("break call barrier") == "ok");
    REQUIRE(c.request("continue") == "ok");
    BackgroundProcess prog(stepped, vm.dir() + "/break.out");
    std::map<std::string, std::string> held;
    while (held.size() < 3) {
      auto e = c.nextWait(30s);
      REQUIRE(e);
      auto [tid, call] = waitOf(*e);
      CHECK(call == "barrier");
      held[tid] = call;
    }
    CHECK(c.request("list") == "ok 3");
    CHECK(prog.running());  // all three wait at the barrier
    REQUIRE(c.request("clear all") == "ok");
    REQUIRE(c.request("continue") == "ok");
    CHECK(prog.wait(60s) == 0);
    CHECK(result_of(prog.read_stdout()) == result_of(ref.out));
  }

  // 3. A client that leaves while tasks are held releases them: no hang.
  {
    ControlClient c(sock);
    REQUIRE(c.connected());
    BackgroundProcess prog(stepped, vm.dir() + "/leave.out");
    REQUIRE(c.nextWait(30s));
    c.close();
    CHECK(prog.wait(60s) == 0);
    CHECK(result_of(prog.read_stdout()) == result_of(ref.out));
  }
  std::size_t exits = 9;

  // 4. Hostile clients (the line protocol: never lose a line, never stall
  // abmon).  A second client is told at once that the socket is busy (it
  // was left waiting for a greeting, silently, as long as the first stayed).
  {
    ControlClient first(sock);
    REQUIRE(first.line(10s) == std::optional<std::string>("xab-control 1"));
    ControlClient second(sock);
    REQUIRE(second.connected());
    auto busy = second.line(10s);
    REQUIRE(busy);
    CHECK(busy->rfind("error busy", 0) == 0);
    CHECK_FALSE(second.line(10s));
    CHECK(second.eof);
    CHECK(first.request("list") == "ok 0");  // the first is still served
  }

  // 5. A request line without end is refused once past the limit (it grew
  // abmon's buffer for ever, and the client heard nothing).
  {
    ControlClient c(sock);
    REQUIRE(c.line(10s) == std::optional<std::string>("xab-control 1"));
    REQUIRE(c.raw(std::string(64 * 1024, 'x')));
    CHECK_FALSE(c.line(10s));
    CHECK(c.eof);
  }

  // 6. A client that sends many requests and does not read its answers:
  // abmon stops reading it, but not the program (it blocked in a write to
  // the client, and every task waited for it).  Later every request gets
  // its answer, in order, none lost.
  {
    ControlClient c(sock);
    REQUIRE(c.line(10s) == std::optional<std::string>("xab-control 1"));
    REQUIRE(c.request("continue") == "ok");
    constexpr int kRequests = 200000;  // 1 MB of requests, 1.2 MB of answers: more than both socket buffers
    std::string flood;
    for (int i = 0; i < kRequests; ++i) flood += i % 2 ? "list\n" : "breaks\n";
    std::thread writer([&] { c.raw(flood); });
    BackgroundProcess prog(stepped, vm.dir() + "/flood.out");
    CHECK(prog.wait(60s) == 0);
    exits += 3;
    CHECK(mon.wait_exits(exits, 30s));  // abmon took the whole trace meanwhile
    int answers = 0;
    while (answers < kRequests) {
      auto l = c.line(30s);
      if (!l) break;
      if (*l == "ok" || *l == "ok 0") ++answers;
    }
    if (answers < kRequests) shutdown(c.fd(), SHUT_RDWR);  // unblocks the writer
    writer.join();
    CHECK(answers == kRequests);
    CHECK(result_of(prog.read_stdout()) == result_of(ref.out));
  }

  // 7. Fast stepping in pieces: each step split in two writes, pipelined
  // with other requests; every request answered, the result unchanged.
  // Then a client that vanishes in the middle of a line releases the tasks,
  // and the next client starts clean (no piece of the old line).
  {
    ControlClient c(sock);
    REQUIRE(c.line(10s) == std::optional<std::string>("xab-control 1"));
    BackgroundProcess prog(stepped, vm.dir() + "/pieces.out");
    int steps = 0;
    while (prog.running()) {
      auto e = c.nextWait(500ms);
      if (!e) continue;
      auto [tid, call] = waitOf(*e);
      REQUIRE(c.raw("list\nst"));
      std::this_thread::sleep_for(1ms);
      REQUIRE(c.raw("ep " + tid + "\nbreaks\n"));
      std::vector<std::string> answers;
      while (answers.size() < 3) {
        auto l = c.line(30s);
        REQUIRE(l);
        if (l->rfind("event ", 0) == 0)
          c.events.push_back(*l);
        else if (l->rfind("ok", 0) == 0 || l->rfind("error", 0) == 0)
          answers.push_back(*l);
      }
      CHECK(answers[1] == "ok 1");
      ++steps;
      if (steps == 10) break;
    }
    REQUIRE(steps == 10);
    REQUIRE(c.nextWait(30s));
    REQUIRE(c.raw("step t"));  // and gone
    c.close();
    CHECK(prog.wait(60s) == 0);
    CHECK(result_of(prog.read_stdout()) == result_of(ref.out));
    ControlClient next(sock);
    REQUIRE(next.line(10s) == std::optional<std::string>("xab-control 1"));
    CHECK(next.request("list") == "ok 0");
    CHECK(next.request("quit") == "ok");
    CHECK_FALSE(next.line(10s));
    CHECK(next.eof);
  }
  CHECK(mon.process().stop(SIGINT) == 0);

  // 8. --control auto: abmon listens at the default path of this VM
  // (xab/control_path.h, from PVM_TMP and PVM_VMID), says so, and a client
  // that computes the same path finds it.
  {
    char path[sizeof(sockaddr_un::sun_path)];
    REQUIRE(xab_control_default_path(path, sizeof path) > 0);
    CHECK(std::string(path).rfind(vm.env().at("PVM_TMP") + "/xab-control.", 0) == 0);
    Monitor autoMon(vm.dir() + "/auto.trace", {"--control", "auto"});
    ControlClient c(path);
    REQUIRE(c.connected());
    CHECK(c.line(10s) == std::optional<std::string>("xab-control 1"));
    CHECK(autoMon.process().read_stderr().find(std::string("abmon: control socket ") + path) != std::string::npos);
    c.close();
    CHECK(autoMon.process().stop(SIGINT) == 0);
    CHECK(access(path, F_OK) != 0);  // removed at the end
  }
}
