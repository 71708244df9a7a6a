// The diagram's message lines (message_lines.h), read from the message
// table: every receive of a matched message, by send time, with the times,
// positions and bytes of its records -- across runs of sends more than
// 4.29 s apart, transits of seconds, an mcast, receives that give no size
// and a task whose clock steps back -- and what the views count from them
// at each replay position.
#include "panel_models.h"
#include "support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

std::string at(long long ms, int task, const std::string& rest) {
  char time[48];
  const long long ns = 1'763'680'000'000'000'000LL + ms * 1'000'000;
  std::snprintf(time, sizeof time, "%lld.%09lld", ns / 1'000'000'000, ns % 1'000'000'000);
  return std::string(time) + " " + time + " t" + std::to_string(40000 + task) + " " + rest + "\n";
}

// Task 2 sends `sends` messages to task 3, 100 ms apart (a run of 64 lines
// spans 6.4 s), message j of 10 j bytes (more than 256 messages: more than
// 256 sizes), every tenth an mcast to tasks 3 and 4; task 3 receives
// each 1 ms after it was sent, from the 50th on 3 s after (longer than 32
// bits of nanoseconds hold as a transit), every fifth without a size.
// With `stepBack`, task 5's clock steps back between its sends to task 6.
std::string trace(int sends, bool stepBack) {
  std::string t = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000\n";
  for (int task = 2; task <= (stepBack ? 6 : 4); ++task)
    t += at(0, task, "mytid rc=t" + std::to_string(40000 + task) + " name=n" + std::to_string(task) +
                         " host=vm parent=none lang=c pid=" + std::to_string(100 + task));
  std::vector<std::pair<long long, std::string>> three, four;
  for (int j = 1; j <= sends; ++j) {
    const long long sent = 1000 + 100LL * j;
    const std::string serial = " serial=" + std::to_string(j);
    const std::string bytes = " bytes=" + std::to_string(10 * j);
    if (j % 10 == 0) {
      t += at(sent, 2, "mcast dst=t40003,t40004 tag=1" + bytes + serial + " rc=0");
      four.emplace_back(sent + 2, "recv src=t40002 tag=1" + bytes + serial + " rc=1");
    } else {
      t += at(sent, 2, "send dst=t40003 tag=1" + bytes + serial + " rc=0");
    }
    three.emplace_back(sent + (j < 50 ? 1 : 3000),
                       "recv src=t40002 tag=1" + (j % 5 == 0 ? std::string() : bytes) + serial + " rc=1");
  }
  for (const auto& [ms, rest] : three) t += at(ms, 3, rest);
  for (const auto& [ms, rest] : four) t += at(ms, 4, rest);
  if (stepBack) {
    for (int j = 1; j <= 3; ++j)  // sent at 10 s, 9 s (the clock stepped back), 12 s
      t += at(j == 2 ? 9000 : 8000 + 2000LL * j, 5, "send dst=t40006 tag=2 bytes=8 serial=" + std::to_string(j) + " rc=0");
    for (int j = 1; j <= 3; ++j)
      t += at(13000 + 1000LL * j, 6, "recv src=t40005 tag=2 bytes=8 serial=" + std::to_string(j) + " rc=1");
  }
  return t;
}

// The lines as the message table and the records say, each receive of
// each message, sorted by send time (ties: the table's order).
std::vector<MessageLine> expected(const ViewSnapshot& s) {
  const Trace& tr = *s.analysis->model.trace;
  const MessageList& list = s.messages().messages;
  std::vector<MessageLine> out;
  for (std::uint32_t m = 0; m < list.size(); ++m) {
    const Message msg = list[m];
    const Event send = tr.event(msg.send);
    for (const MessageReceive& r : msg.receives) {
      const Event recv = tr.event(r.recv);
      out.push_back({send.time, recv.time, send.seq, recv.seq, msg.sender, r.recv.task, m,
                     recv.get(Key::Bytes) > 0 ? recv.get(Key::Bytes) : msg.bytes});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const MessageLine& a, const MessageLine& b) { return a.send < b.send; });
  return out;
}

auto fields(const MessageLine& l) {
  return std::tuple(l.send, l.recv, l.sendPos, l.recvPos, l.sender, l.receiver, l.message, l.bytes);
}

}  // namespace

TEST_CASE("the message lines are every receive of the table's messages by send time, whole or by parts") {
  for (auto [sends, stepBack] : {std::pair{200, false}, std::pair{200, true}, std::pair{300, false}}) {
    INFO("a task's clock steps back: " << stepBack << "; " << sends << " messages of as many sizes");
    auto s = snapshotOfText(trace(sends, stepBack));
    const MessageLines& lines = s->lines();
    const std::vector<MessageLine> want = expected(*s);
    REQUIRE(want.size() == static_cast<std::size_t>(sends + sends / 10 + (stepBack ? 3 : 0)));
    REQUIRE(lines.size() == want.size());
    TimeNs longest = 0;
    std::size_t i = 0;
    for (const MessageLine& l : lines) {  // whole, each record read
      INFO("line " << i);
      CHECK(fields(l) == fields(want[i]));
      // By parts, from the index and the table.
      CHECK(lines.send(i) == want[i].send);
      CHECK(lines.recv(i) == want[i].recv);
      CHECK(lines.message(i) == want[i].message);
      CHECK(lines.sender(i) == want[i].sender);
      CHECK(lines.receiver(i) == want[i].receiver);
      CHECK(lines.bytes(i) == want[i].bytes);
      CHECK(lines.sendRef(i).task == want[i].sender);
      CHECK(lines.recvRef(i).task == want[i].receiver);
      CHECK(s->positionOf(lines.sendRef(i)) == want[i].sendPos);
      CHECK(s->positionOf(lines.recvRef(i)) == want[i].recvPos);
      longest = std::max(longest, want[i].recv - want[i].send);
      ++i;
    }
    CHECK(longest >= TimeNs{3000} * 1'000'000);  // the 3 s receives (6 s after the clock's step back)
    CHECK(lines.maxTransit() == longest);
    for (const MessageLine& w : want) {  // the first line sent at or after each send time, and just after it
      for (TimeNs t : {w.send, w.send + 1}) {
        const auto first = std::partition_point(want.begin(), want.end(), [&](const MessageLine& l) { return l.send < t; });
        CHECK(lines.lowerBound(t, 0, lines.size()) == static_cast<std::size_t>(first - want.begin()));
      }
    }
  }
}

// Short of the end the matrix adds up the lines' own sizes (one byte a line
// indexing the sizes met, the size itself beyond 256 sizes).
TEST_CASE("at every replay position the matrix and the queue count the lines whose records are shown") {
  for (int sends : {120, 300}) {
    INFO(sends << " messages of as many sizes");
    auto s = snapshotOfText(trace(sends, true));
    const std::vector<MessageLine> want = expected(*s);
    std::vector<std::size_t> positions;
    for (std::size_t p = 0; p < s->size(); p += 7) positions.push_back(p);
    positions.push_back(s->size());  // the end: the model's pairs
    for (std::size_t p : positions) {
      INFO("position " << p);
      std::map<std::pair<TaskIndex, TaskIndex>, PairAt> pairs;
      std::vector<std::pair<TaskIndex, std::uint32_t>> queued;
      for (const MessageLine& l : want) {
        if (l.sendPos >= p) continue;
        PairAt& a = pairs[{l.sender, l.receiver}];
        ++a.count;
        a.bytes += static_cast<std::uint64_t>(l.bytes);
        if (l.recvPos < p) {
          a.receivedBytes += static_cast<std::uint64_t>(l.bytes);
          a.transit += std::max<TimeNs>(l.recv - l.send, 0);
        } else {
          queued.emplace_back(l.receiver, l.message);
        }
      }
      const PairMatrix got = pairsAt(*s, p);
      REQUIRE(got.size() == pairs.size());
      for (const auto& [pair, a] : pairs) {
        const PairAt& g = got.at(pair);
        CHECK(std::tie(g.count, g.bytes, g.receivedBytes, g.transit) ==
              std::tie(a.count, a.bytes, a.receivedBytes, a.transit));
      }
      std::sort(queued.begin(), queued.end());
      std::vector<std::pair<TaskIndex, std::uint32_t>> pending;
      for (const PendingEntry& e : pendingAt(*s, p)) pending.emplace_back(e.receiver, e.message);
      CHECK(pending == queued);
    }
  }
}

TEST_CASE("a message line costs 17 bytes (its size one, of a trace's few), its run's base time a 64th of 8 more") {
  // A ring of 8 tasks, 2000 rounds a millisecond apart: each sends to its right, receives from its left.
  std::string t = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.000000000\n";
  for (int task = 2; task < 10; ++task) {
    t += at(0, task, "mytid rc=t" + std::to_string(40000 + task) + " name=ring host=vm parent=none lang=c pid=1");
    const int right = task == 9 ? 2 : task + 1, left = task == 2 ? 9 : task - 1;
    for (int r = 1; r <= 2000; ++r) {
      const std::string serial = " bytes=8 serial=" + std::to_string(r) + " rc=1";
      t += at(r, task, "send dst=t" + std::to_string(40000 + right) + " tag=1" + serial);
      t += at(r, task, "recv src=t" + std::to_string(40000 + left) + " tag=1" + serial);
    }
  }
  auto s = snapshotOfText(t);
  const MessageLines& lines = s->lines();
  REQUIRE(lines.size() > 15000);
  // A 40-byte copy of each receive (times, positions, tasks, message, bytes) cost 2.4 times this.
  CHECK(lines.memoryBytes() <=
        lines.size() * 17 + (lines.size() / 64 + 1) * 8 + 8 * sizeof(std::pair<TaskIndex, TaskIndex>) + 4);
}
