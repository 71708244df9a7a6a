// Unit tests of abmon's formatter on hand-built message bytes: no PVM.
#include <xab/events.h>
#include <xab/wire.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <sstream>

#include "byte_message.h"
#include "call_table.h"
#include "formatter.h"
#include <xab/traceformat/write.h>

using namespace xab::abmon;

namespace {

constexpr std::int32_t kAbmon = 0x40001;
constexpr std::int32_t kTask = 0x40002;
constexpr std::int64_t kRecv = 1763680000200100200;
constexpr std::int64_t kT = 1763680000200095000;

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Everything after the three leading columns: "event key=value ...".
std::string body(const std::string& line) {
  std::size_t pos = 0;
  for (int i = 0; i < 3; ++i) pos = line.find(' ', pos) + 1;
  return line.substr(pos);
}

struct Harness {
  std::vector<Problem> problems;
  Sessions sessions;
  Formatter fmt{kAbmon, sessions, [this](const Problem& p) { problems.push_back(p); }};

  std::vector<std::string> feed(const EventMessageBuilder& b, std::int32_t src = kTask) {
    ByteMessage msg = b.build();
    return feed(msg, src);
  }
  std::vector<std::string> feed(ByteMessage& msg, std::int32_t src = kTask) {
    std::string out;
    fmt.message(out, src, kRecv, msg);
    return linesOf(out);
  }
  std::vector<std::string> bodies(const EventMessageBuilder& b, std::int32_t src = kTask) {
    auto lines = feed(b, src);
    for (auto& l : lines) l = body(l);
    return lines;
  }
};

}  // namespace

TEST_CASE("every row of events.h is in the call table") {
  const CallTable& table = callTable();
  REQUIRE(table.size() == XAB_EV_COUNT_);
  CHECK(table.find(XAB_EV_RECV)->name == "recv");
  CHECK(table.find(XAB_EV_RECV)->beginName == "recv.begin");
  CHECK(table.find(XAB_EV_RECV)->beginSlots.size() == 2);
  CHECK(table.find(XAB_EV_RECV)->beginSlots[0].prefix == " src=");
  CHECK(table.find(XAB_EV_RECV)->beginSlots[1].kind == SlotKind::Tag);
  CHECK(table.find(XAB_EV_MYTID)->rcIsTid);
  CHECK_FALSE(table.find(XAB_EV_SEND)->rcIsTid);
  CHECK(table.find(XAB_EV_COUNT_) == nullptr);
}

TEST_CASE("values are spelled as docs/trace-format.md says") {
  using namespace xab::text;
  std::string s;
  appendTid(s, 0x40002);
  s += ' ';
  appendTid(s, -1);
  s += ' ';
  appendTid(s, -31);
  s += ' ';
  appendTag(s, -1);
  s += ' ';
  appendTag(s, 16040);
  s += ' ';
  appendDataType(s, 0);
  s += ' ';
  appendDataType(s, 3);
  s += ' ';
  appendDataType(s, 11);
  s += ' ';
  appendDataType(s, 12);
  s += ' ';
  appendTidResult(s, -1);
  CHECK(s == "t40002 any -31 any 16040 str int ulong 12 -1");

  s.clear();
  appendTime(s, kRecv);
  s += ' ';
  appendTime(s, 5);
  s += ' ';
  appendTime(s, -1500000000);
  CHECK(s == "1763680000.200100200 0.000000005 -1.500000000");

  s.clear();
  appendEscaped(s, "a b%c=d\te\x7f\xc3\xa9!~");
  CHECK(s == "a%20b%25c%3Dd%09e%7F%C3%A9!~");
}

TEST_CASE("a record of each slot kind, in table order with rc last") {
  Harness h;
  EventMessageBuilder b;
  b.string(1, "workers").string(2, "my file");
  b.event(kT, XAB_EV_SEND, XAB_PHASE_END, 0, {0x40003, 7, 128, 1});
  b.event(kT, XAB_EV_RECV, XAB_PHASE_BEGIN, 0, {-1, -1});
  b.event(kT, XAB_EV_RECV, XAB_PHASE_END, 4, {0x40003, 7, 128, 1});
  b.event(kT, XAB_EV_PKINT, XAB_PHASE_END, 0, {3, 10, 1});
  b.event(kT, XAB_EV_JOINGROUP, XAB_PHASE_END, 2, {1});
  b.event(kT, XAB_EV_MYTID, XAB_PHASE_END, kTask, {});
  b.event(kT, XAB_EV_GETTID, XAB_PHASE_END, -19, {1, 0});
  b.event(kT, XAB_EV_SPAWN, XAB_PHASE_BEGIN, 0, {2, 0, 0, 3});
  b.event(kT, XAB_EV_PSEND, XAB_PHASE_END, 0, {0x40004, 5, 80, 2, 6, 10});
  auto lines = h.feed(b);
  REQUIRE(lines.size() == 9);
  CHECK(lines[0] == "1763680000.200100200 1763680000.200095000 t40002 send dst=t40003 tag=7 "
                    "bytes=128 serial=1 rc=0");
  CHECK(body(lines[1]) == "recv.begin src=any tag=any");
  CHECK(body(lines[2]) == "recv src=t40003 tag=7 bytes=128 serial=1 rc=4");
  CHECK(body(lines[3]) == "pkint type=int n=10 stride=1 rc=0");
  CHECK(body(lines[4]) == "joingroup group=workers rc=2");
  CHECK(body(lines[5]) == "mytid rc=t40002");
  CHECK(body(lines[6]) == "gettid group=workers inst=0 rc=-19");
  CHECK(body(lines[7]) == "spawn.begin file=my%20file where=- flags=0 count=3");
  CHECK(body(lines[8]) == "psend dst=t40004 tag=5 bytes=80 serial=2 type=double n=10 rc=0");
  CHECK(h.fmt.counters().events == 9);
  CHECK(h.problems.empty());
}

TEST_CASE("every kind in the table formats, begin and end") {
  Harness h;
  EventMessageBuilder b;
  for (unsigned kind = 0; kind < XAB_EV_COUNT_; ++kind) {
    if (kind == XAB_EV_TIDS || kind == XAB_EV_INFO) continue;
    b.event(kT, kind, XAB_PHASE_BEGIN, 0, {0, 0, 0, 0, 0, 0});
    b.event(kT, kind, XAB_PHASE_END, 0, {0, 0, 0, 0, 0, 0});
  }
  auto lines = h.bodies(b);
  REQUIRE(lines.size() == 2 * (XAB_EV_COUNT_ - 2));
  std::size_t i = 0;
  for (unsigned kind = 0; kind < XAB_EV_COUNT_; ++kind) {
    if (kind == XAB_EV_TIDS || kind == XAB_EV_INFO) continue;
    const CallInfo& call = *callTable().find(kind);
    INFO(call.name);
    CHECK(lines[i].starts_with(call.beginName));
    CHECK(lines[i].find(" rc=") == std::string::npos);
    CHECK(lines[i + 1].starts_with(call.name + (call.endSlots.empty() ? " rc=" : " ")));
    CHECK(lines[i + 1].find(" rc=") != std::string::npos);
    i += 2;
  }
  CHECK(h.problems.empty());
}

TEST_CASE("tid lists come from several continuation records") {
  Harness h;
  EventMessageBuilder b;
  b.event(kT, XAB_EV_MCAST, XAB_PHASE_END, 0, {8, 9, 64, 3});
  b.event(kT, XAB_EV_TIDS, XAB_PHASE_CONT, 6, {0x40003, 0x40004, 0x40005, 0x40006, 0x40007, 0x40008});
  b.event(kT, XAB_EV_TIDS, XAB_PHASE_CONT, 2, {0x40009, -31});
  b.event(kT, XAB_EV_SPAWN, XAB_PHASE_END, 0, {-1, 0, 0});  // nothing started: empty list
  b.event(kT, XAB_EV_NOTIFY, XAB_PHASE_END, 0, {1, 99, 1});
  b.event(kT, XAB_EV_TIDS, XAB_PHASE_CONT, 1, {0x40003});
  auto lines = h.bodies(b);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] ==
        "mcast dst=t40003,t40004,t40005,t40006,t40007,t40008,t40009,-31 tag=9 bytes=64 serial=3 rc=0");
  CHECK(lines[1] == "spawn file=- count=0 tids=- rc=0");
  CHECK(lines[2] == "notify what=1 tag=99 tids=t40003 rc=0");
  CHECK(h.problems.empty());
}

TEST_CASE("a tid list may continue in the task's next message") {
  Harness h;
  EventMessageBuilder first;
  first.string(3, "worker");
  first.event(kT, XAB_EV_SPAWN, XAB_PHASE_END, 3, {3, 3, 3});
  first.event(kT, XAB_EV_TIDS, XAB_PHASE_CONT, 2, {0x40003, 0x40004});
  CHECK(h.feed(first).empty());  // held back until the list is complete
  EventMessageBuilder second;
  second.seq(1).event(kT, XAB_EV_TIDS, XAB_PHASE_CONT, 1, {0x40005});
  auto lines = h.bodies(second);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "spawn file=worker count=3 tids=t40003,t40004,t40005 rc=3");
}

TEST_CASE("a short tid list is written with what came, and counted") {
  Harness h;
  EventMessageBuilder b;
  b.event(kT, XAB_EV_MCAST, XAB_PHASE_END, 0, {3, 9, 64, 3});
  b.event(kT, XAB_EV_TIDS, XAB_PHASE_CONT, 1, {0x40003});
  b.event(kT, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  b.event(kT, XAB_EV_TIDS, XAB_PHASE_CONT, 1, {0x40003});  // belongs to nothing
  auto lines = h.bodies(b);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "mcast dst=t40003 tag=9 bytes=64 serial=3 rc=0");
  CHECK(lines[1] == "exit rc=0");
  CHECK(lines[2] == "abmon.bad reason=kind n=1");
  CHECK(lines[3] == "abmon.bad reason=tids n=1");
}

TEST_CASE("INFO is merged into the task's next record") {
  Harness h;
  EventMessageBuilder b;
  b.string(1, "demo").string(2, "vm");
  b.event(kT, XAB_EV_INFO, XAB_PHASE_END, 0, {1, 2, -23, XAB_LANG_C, 4250});
  b.event(kT, XAB_EV_MYTID, XAB_PHASE_END, kTask, {});
  b.event(kT, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  b.event(kT, XAB_EV_INFO, XAB_PHASE_END, 0, {1, 2, 0x40001, XAB_LANG_FORTRAN, 7});
  b.event(kT, XAB_EV_RECV, XAB_PHASE_BEGIN, 0, {-1, 5});
  auto lines = h.bodies(b);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "mytid rc=t40002 name=demo host=vm parent=none lang=c pid=4250");
  CHECK(lines[1] == "exit rc=0");
  CHECK(lines[2] == "recv.begin src=any tag=5 name=demo host=vm parent=t40001 lang=fortran pid=7");
}

TEST_CASE("INFO before a record with a field of the same name is a record of its own") {
  Harness h;
  EventMessageBuilder b;
  b.string(1, "demo").string(2, "vm");
  b.event(kT, XAB_EV_INFO, XAB_PHASE_END, 0, {1, 2, -23, XAB_LANG_C, 4250});
  b.event(kT, XAB_EV_HOSTSYNC, XAB_PHASE_END, 0, {0x40000});
  auto lines = h.feed(b);
  REQUIRE(lines.size() == 2);
  CHECK(body(lines[0]) == "info name=demo host=vm parent=none lang=c pid=4250");
  CHECK(body(lines[1]) == "hostsync host=t40000 rc=0");
  CHECK(lines[0].substr(0, 42) == lines[1].substr(0, 42));
}

TEST_CASE("an INFO record with nothing after it is written at task exit") {
  Harness h;
  EventMessageBuilder b;
  b.string(1, "demo").string(2, "vm");
  b.event(kT, XAB_EV_INFO, XAB_PHASE_END, 0, {1, 2, -23, 5, 1});
  CHECK(h.feed(b).empty());
  std::string out;
  h.fmt.taskExit(out, kTask, kRecv);
  auto lines = linesOf(out);
  REQUIRE(lines.size() == 2);
  CHECK(body(lines[0]) == "info name=demo host=vm parent=none lang=5 pid=1");
  CHECK(body(lines[1]) == "task.exit how=notify");
  CHECK(lines[1].starts_with("1763680000.200100200 1763680000.200100200 t40002 "));
}

TEST_CASE("string ids are per task, and an unknown one is bad") {
  Harness h;
  EventMessageBuilder a;
  a.string(1, "groupA").event(kT, XAB_EV_JOINGROUP, XAB_PHASE_END, 0, {1});
  h.feed(a, kTask);
  EventMessageBuilder b;
  b.event(kT, XAB_EV_MYTID, XAB_PHASE_END, 0x40003, {});
  b.event(kT, XAB_EV_JOINGROUP, XAB_PHASE_END, 0, {1});  // task 2 never sent id 1
  b.event(kT, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  auto lines = h.bodies(b, 0x40003);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "mytid rc=t40003");
  CHECK(lines[1] == "exit rc=0");
  CHECK(lines[2] == "abmon.bad reason=string n=1");
  REQUIRE(h.problems.size() == 1);
  CHECK(h.problems[0].reason == BadReason::String);
  CHECK(h.problems[0].tid == 0x40003);
  // The first task still has its string.
  EventMessageBuilder c;
  c.seq(1).event(kT, XAB_EV_LVGROUP, XAB_PHASE_END, 0, {1});
  CHECK(h.bodies(c, kTask) == std::vector<std::string>{"lvgroup group=groupA rc=0"});
}

TEST_CASE("unknown kinds and phases are skipped, the good records around them kept") {
  Harness h;
  EventMessageBuilder b;
  b.event(kT, XAB_EV_MYTID, XAB_PHASE_END, kTask, {});
  b.event(kT, 999, XAB_PHASE_END, 0, {});
  b.event(kT, XAB_EV_SEND, 7, 0, {});
  b.event(kT, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  auto lines = h.bodies(b);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "mytid rc=t40002");
  CHECK(lines[1] == "exit rc=0");
  CHECK(lines[2] == "abmon.bad reason=kind n=2");
  CHECK(h.fmt.counters().bad == 1);
}

TEST_CASE("bad messages are reported and skipped, good ones after them still written") {
  Harness h;
  EventMessageBuilder good;
  good.string(1, "w").event(kT, XAB_EV_JOINGROUP, XAB_PHASE_END, 0, {1});
  good.event(kT, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  int seq = 0;
  auto nextGood = [&] {
    EventMessageBuilder g = good;
    g.seq(seq++);
    return h.bodies(g);
  };
  const std::vector<std::string> goodLines{"joingroup group=w rc=0", "exit rc=0"};
  CHECK(nextGood() == goodLines);

  SECTION("records cut short") {
    EventMessageBuilder g = good;
    g.seq(seq++);
    ByteMessage msg = g.build();
    msg.truncate(msg.length() - 10);
    CHECK(linesOf(std::string{}).empty());
    auto lines = h.feed(msg);
    REQUIRE(lines.size() == 1);
    CHECK(body(lines[0]) == "abmon.bad reason=truncated n=2");
  }
  SECTION("cut inside the header") {
    ByteMessage msg = good.build();
    msg.truncate(12);
    CHECK(h.feed(msg) == std::vector<std::string>{std::string(
                             "1763680000.200100200 1763680000.200100200 t40002 abmon.bad reason=truncated n=0")});
  }
  SECTION("cut inside a string") {
    EventMessageBuilder g = good;
    g.seq(seq++);
    ByteMessage msg = g.build();
    msg.truncate(XAB_HDR_INTS * 4 + 9);
    auto lines = h.feed(msg);
    REQUIRE(lines.size() == 1);
    CHECK(body(lines[0]) == "abmon.bad reason=truncated n=2");
  }
  SECTION("counts larger than the message") {
    EventMessageBuilder g = good;
    g.seq(seq++);
    g.header[XAB_HDR_NEVENTS] = 1 << 30;
    g.header[XAB_HDR_NSTRINGS] = 1;
    ByteMessage msg = g.build(true);
    CHECK(body(h.feed(msg).at(0)) == "abmon.bad reason=truncated n=1073741824");
  }
  SECTION("negative counts") {
    EventMessageBuilder g = good;
    g.seq(seq++);
    g.header[XAB_HDR_NSTRINGS] = -1;
    g.header[XAB_HDR_NEVENTS] = 2;
    ByteMessage msg = g.build(true);
    CHECK(body(h.feed(msg).at(0)) == "abmon.bad reason=truncated n=2");
  }
  SECTION("another version") {
    EventMessageBuilder g = good;
    g.header[XAB_HDR_VERSION] = XAB_WIRE_VERSION + 1;
    CHECK(h.bodies(g) == std::vector<std::string>{"abmon.bad reason=version n=0"});
    CHECK(h.problems.at(0).reason == BadReason::Version);
  }
  SECTION("not an xab message") {
    EventMessageBuilder g = good;
    g.header[XAB_HDR_MAGIC] = 0x12345678;
    CHECK(h.bodies(g) == std::vector<std::string>{"abmon.bad reason=magic n=0"});
  }
  SECTION("records of another size") {
    EventMessageBuilder g = good;
    g.seq(seq++);
    g.header[XAB_HDR_RECSIZE] = 48;
    CHECK(h.bodies(g) == std::vector<std::string>{"abmon.bad reason=recsize n=2"});
  }
  SECTION("an empty message") {
    ByteMessage msg;
    CHECK(body(h.feed(msg).at(0)) == "abmon.bad reason=truncated n=0");
  }
  CHECK(h.problems.size() == 1);
  CHECK(h.fmt.counters().bad == 1);
  CHECK(nextGood() == goodLines);
  CHECK(h.fmt.counters().events == 4);
}

TEST_CASE("lost events and lost messages") {
  Harness h;
  EventMessageBuilder b;
  b.event(kT, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  b.seq(0);
  b.header[XAB_HDR_LOST] = 7;
  CHECK(h.bodies(b) == std::vector<std::string>{"abmon.lost n=7", "exit rc=0"});
  b.header[XAB_HDR_LOST] = 0;
  b.seq(3);  // 1 and 2 never came
  CHECK(h.bodies(b) == std::vector<std::string>{"abmon.lost messages=2", "exit rc=0"});
  b.seq(4);
  CHECK(h.bodies(b) == std::vector<std::string>{"exit rc=0"});
  EventMessageBuilder other;  // a message of another version uses up a number
  other.seq(5).header[XAB_HDR_VERSION] = 9;
  CHECK(h.bodies(other) == std::vector<std::string>{"abmon.bad reason=version n=0"});
  b.seq(7);
  CHECK(h.bodies(b) == std::vector<std::string>{"abmon.lost messages=1", "exit rc=0"});
  EventMessageBuilder late;  // a task whose first message abmon saw is its third
  late.seq(2).event(kT, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  CHECK(h.bodies(late, 0x40009) == std::vector<std::string>{"abmon.lost messages=2", "exit rc=0"});
}

TEST_CASE("records in the other byte order are read by the header's flag") {
  Harness h;
  EventMessageBuilder b;
  b.event(kT, XAB_EV_SEND, XAB_PHASE_END, 0, {0x40003, 7, 128, 1});
  // Swap the record by hand and flip the flag.
  xab_event& ev = b.events[0];
  ev.t_ns = static_cast<std::int64_t>(__builtin_bswap64(static_cast<std::uint64_t>(ev.t_ns)));
  ev.kind = static_cast<std::uint16_t>(ev.kind << 8 | ev.kind >> 8);
  for (auto& a : ev.a) a = static_cast<std::int32_t>(__builtin_bswap32(static_cast<std::uint32_t>(a)));
  b.header[XAB_HDR_FLAGS] ^= XAB_HDRF_LITTLE_ENDIAN;
  CHECK(h.bodies(b) == std::vector<std::string>{"send dst=t40003 tag=7 bytes=128 serial=1 rc=0"});
  auto lines = h.feed(b);  // and the task time too
  CHECK(lines.at(0).find(" 1763680000.200095000 ") != std::string::npos);
}

TEST_CASE("header, start, task exit and stop records") {
  Harness h;
  std::string out;
  h.fmt.header(out, "my host", 4242, kRecv);
  h.fmt.start(out, kRecv, 512, 200);
  EventMessageBuilder b;
  b.event(kT, XAB_EV_MCAST, XAB_PHASE_END, 0, {2, 9, 64, 3});
  b.event(kT, XAB_EV_TIDS, XAB_PHASE_CONT, 1, {0x40003});
  ByteMessage msg = b.build();
  h.fmt.message(out, kTask, kRecv, msg);
  h.fmt.taskExit(out, 0x40005, kRecv);  // a task abmon never heard from
  h.fmt.stop(out, kRecv + 1);
  auto lines = linesOf(out);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "#xab-trace 1 abmon=t40001 host=my%20host pid=4242 start=1763680000.200100200");
  CHECK(lines[1] == "1763680000.200100200 1763680000.200100200 t40001 abmon.start version=2 "
                    "batch=512 flush_ms=200");
  CHECK(body(lines[2]) == "task.exit how=notify");
  CHECK(body(lines[3]) == "mcast dst=t40003 tag=9 bytes=64 serial=3 rc=0");  // flushed at stop
  CHECK(body(lines[4]) == "abmon.bad reason=tids n=1");
  CHECK(lines[5] == "1763680000.200100201 1763680000.200100201 t40001 abmon.stop events=1 tasks=1 "
                    "bad=1");
}

TEST_CASE("sequence numbers wrap, a step backwards is bad, never a huge gap") {
  Harness h;
  EventMessageBuilder b;
  b.event(kT, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  b.seq(0x7ffffffe);  // the task's first message abmon sees
  CHECK(h.bodies(b) == std::vector<std::string>{"abmon.lost messages=2147483646", "exit rc=0"});
  b.seq(static_cast<std::int32_t>(0x80000001u));  // over INT32_MAX: 2 lost
  CHECK(h.bodies(b) == std::vector<std::string>{"abmon.lost messages=2", "exit rc=0"});
  b.seq(-1);
  CHECK(h.bodies(b) == std::vector<std::string>{"abmon.lost messages=2147483645", "exit rc=0"});
  b.seq(0);  // wraps to 0: in order
  CHECK(h.bodies(b) == std::vector<std::string>{"exit rc=0"});
  b.seq(-5);  // backwards
  CHECK(h.bodies(b) == std::vector<std::string>{"exit rc=0", "abmon.bad reason=seq n=1"});
  b.seq(-4);
  CHECK(h.bodies(b) == std::vector<std::string>{"exit rc=0"});
}

TEST_CASE("task times no reader can read are bad records") {
  Harness h;
  EventMessageBuilder b;
  b.event(0, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  b.event(-1, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  b.event(INT64_MIN, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  b.event(kMaxTaskTimeNs, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  b.event(kMaxTaskTimeNs + 1, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  b.event(INT64_MAX, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  auto lines = h.feed(b);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].find(" 0.000000000 ") != std::string::npos);
  CHECK(lines[1].find(" 9223372035.999999999 ") != std::string::npos);
  CHECK(body(lines[2]) == "abmon.bad reason=time n=4");
}

TEST_CASE("a task's strings are bounded in length, number and bytes") {
  Harness h;
  EventMessageBuilder b;
  b.string(1, std::string(kMaxStringBytes + 100, 'a')).event(kT, XAB_EV_MARK, XAB_PHASE_END, 0, {1});
  auto lines = h.bodies(b);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "mark text=" + std::string(kMaxStringBytes, 'a') + " rc=0");
  CHECK(lines[1] == "abmon.bad reason=limit n=1");
  // 8 MiB of strings, then one more: not kept, so a record naming it is bad.
  std::int32_t id = 2, seq = 1;
  for (std::size_t bytes = kMaxStringBytes; bytes + kMaxStringBytes <= kMaxTaskStringBytes; bytes += kMaxStringBytes) {
    EventMessageBuilder s;
    s.seq(seq++).string(id++, std::string(kMaxStringBytes, 'b'));
    CHECK(h.bodies(s).empty());
  }
  EventMessageBuilder over;
  over.seq(seq++).string(id, std::string(kMaxStringBytes, 'c')).event(kT, XAB_EV_MARK, XAB_PHASE_END, 0, {id});
  CHECK(h.bodies(over) == std::vector<std::string>{"abmon.bad reason=string n=1", "abmon.bad reason=limit n=1"});
  // Replacing a string of the table by a shorter one is within the bound.
  EventMessageBuilder again;
  again.seq(seq++).string(1, "short").event(kT, XAB_EV_MARK, XAB_PHASE_END, 0, {1});
  CHECK(h.bodies(again) == std::vector<std::string>{"mark text=short rc=0"});
}

TEST_CASE("a tid list keeps at most kMaxListTids tids") {
  Harness h;
  const std::int32_t n = static_cast<std::int32_t>(kMaxListTids) + 10;
  EventMessageBuilder b;
  b.event(kT, XAB_EV_MCAST, XAB_PHASE_END, 0, {n, 9, 64, 3});
  for (std::int32_t i = 0; i < n; i += 6) {
    std::int32_t cnt = std::min(6, n - i);
    b.event(kT, XAB_EV_TIDS, XAB_PHASE_CONT, cnt, {0x40003, 0x40003, 0x40003, 0x40003, 0x40003, 0x40003});
  }
  auto lines = h.bodies(b);
  REQUIRE(lines.size() == 2);
  CHECK(std::count(lines[0].begin(), lines[0].end(), ',') == static_cast<long>(kMaxListTids) - 1);
  CHECK(lines[0].size() < 1024 * 1024);
  CHECK(lines[1] == "abmon.bad reason=limit n=1");
}

TEST_CASE("the session table follows each task's headers, and forgets a task that exits") {
  Harness h;
  CHECK(h.sessions.lastSeq(kTask) == -1);
  CHECK_FALSE(h.sessions.finalSeen(kTask));
  EventMessageBuilder b;
  b.seq(0);
  b.header[XAB_HDR_FLAGS] |= XAB_HDRF_POKE;
  b.event(kT, XAB_EV_EXIT, XAB_PHASE_END, 0, {});
  h.feed(b);
  CHECK(h.sessions.lastSeq(kTask) == 0);
  CHECK(h.sessions.takesPokes(kTask));
  CHECK_FALSE(h.sessions.finalSeen(kTask));
  EventMessageBuilder last;
  last.seq(1);
  last.header[XAB_HDR_FLAGS] |= XAB_HDRF_FINAL;
  h.feed(last);
  CHECK(h.sessions.lastSeq(kTask) == 1);
  CHECK(h.sessions.finalSeen(kTask));
  CHECK_FALSE(h.sessions.takesPokes(kTask));  // the latest message did not say so
  std::string out;
  h.fmt.taskExit(out, kTask, kRecv);
  CHECK(h.sessions.lastSeq(kTask) == -1);  // PVM may give the tid to a new task
  CHECK_FALSE(h.sessions.finalSeen(kTask));
}
