// The walks that read every record (the log's filter, Find, a snapshot's
// spans) read a record's shape alone where its call and task decide
// (EventStore::Cursor::shape), and each block once: what they return must
// be what the whole decoded records say, on every trace of the tests' data
// and on a ring of many blocks a task.
#include "event_log_model.h"
#include "record_find.h"
#include "support.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <set>

using namespace xab;
using namespace xab::view;
using namespace xab::view::test;

namespace {

// `tasks` workers in a ring, `rounds` rounds of initsend, pack, send,
// receive and unpack, with now and then libab's clock record, a mark and a
// call the schema does not know.
std::string ringTrace(int tasks, int rounds) {
  std::string t = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1000.000000000\n";
  auto tid = [](int task) { return "t" + std::to_string(40002 + task); };
  long long us = 0;
  auto rec = [&](int task, const std::string& rest) {
    char stamp[64];
    us += 3;
    std::snprintf(stamp, sizeof stamp, "%lld.%06lld000", 1000 + us / 1'000'000, us % 1'000'000);
    t += std::string(stamp) + " " + stamp + " " + tid(task) + " " + rest + "\n";
  };
  for (int k = 0; k < tasks; ++k)
    rec(k, "mytid rc=" + tid(k) + " name=ring host=vm parent=none lang=c pid=" + std::to_string(100 + k));
  for (int r = 0; r < rounds; ++r) {
    const std::string tag = std::to_string(r % 3 + 1), serial = std::to_string(r + 1);
    for (int k = 0; k < tasks; ++k) {
      rec(k, "initsend enc=0 rc=1");
      rec(k, "pkdouble type=double n=100 stride=1 rc=0");
      rec(k, "send dst=" + tid((k + 1) % tasks) + " tag=" + tag + " bytes=800 serial=" + serial + " rc=0");
      rec(k, "recv.begin src=" + tid((k + tasks - 1) % tasks) + " tag=" + tag);
    }
    for (int k = 0; k < tasks; ++k) {
      rec(k, "recv src=" + tid((k + tasks - 1) % tasks) + " tag=" + tag + " bytes=800 serial=" + serial + " rc=2");
      rec(k, "upkdouble type=double n=100 stride=1 rc=0");
      if ((r + k) % 7 == 0)
        rec(k, "clock ref=t40001 ref_s=1000 ref_ns=5000 turn_ns=100 rtt_ns=2000 phase=0 rc=0");
      if ((r + k) % 11 == 0) rec(k, "mark text=m" + std::to_string(r) + " rc=0");
      if ((r + k) % 13 == 0) rec(k, "userthing n=" + std::to_string(r));
    }
  }
  return t;
}

std::vector<std::shared_ptr<ViewSnapshot>> snapshots() {
  std::vector<std::shared_ptr<ViewSnapshot>> out;
  for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(dataPath("ge.trace")).parent_path()))
    if (f.path().extension() == ".trace") out.push_back(snapshotOf(f.path().string()));
  out.push_back(snapshotOfText(ringTrace(5, 150)));
  return out;
}

// The filters a user can set: each call, tag and task present, alone and
// combined, with and without libab's records.
std::vector<EventFilter> filtersOf(const ViewSnapshot& s) {
  std::set<Kind> kinds;
  std::set<std::int32_t> tags;
  for (std::size_t p = 0; p < s.size(); ++p) {
    const Event e = s.eventAt(p);
    kinds.insert(e.kind);
    if (e.get(Key::Tag, -1) >= 0) tags.insert(e.get(Key::Tag));
  }
  std::vector<EventFilter> out(1);  // libab's records left out
  for (Kind k : kinds) {
    out.emplace_back().kind = k;
    out.back().libabRecords = true;
    out.emplace_back().kind = k;
  }
  for (std::int32_t tag : tags) {
    out.emplace_back().tag = tag;
    out.emplace_back().tag = tag;
    out.back().kind = Kind::RECV;
  }
  for (TaskIndex t = 0; t < s.trace->taskCount(); t += 2) {
    out.emplace_back().tasks = {t};
    out.emplace_back().tasks = {t, t + 1};
    out.back().kind = Kind::SEND;
    out.back().libabRecords = true;
  }
  return out;
}

}  // namespace

TEST_CASE("record walks: the log's filters match as the whole decoded records do") {
  for (const auto& s : snapshots()) {
    INFO(s->source << ", " << s->size() << " records");
    ViewState state;
    state.setSnapshot(s);
    EventLogModel model(&state);
    for (const EventFilter& f : filtersOf(*s)) {
      INFO("kind " << (f.kind ? static_cast<int>(*f.kind) : -1) << " tag " << f.tag.value_or(-1) << " tasks "
                   << f.tasks.size() << " libab " << f.libabRecords);
      state.setFilter(f);
      std::vector<std::size_t> want;
      for (std::size_t p = 0; p < s->size(); ++p)
        if (f.matches(s->order[p], s->eventAt(p))) want.push_back(p);
      std::vector<std::size_t> got;
      for (int r = 0; r < model.rowCount(); ++r) got.push_back(model.positionOfRow(r));
      REQUIRE(got == want);
    }
  }
}

TEST_CASE("record walks: Find's words match as the whole decoded records do") {
  for (const auto& s : snapshots()) {
    INFO(s->source);
    for (const QString text : {"send", "recv.begin", "tag=2", "ring", "t40003 send", "clock", "userthing",
                               "n=7", "no-such-word", "mark m12", "abmon", "upk"}) {
      for (bool libab : {false, true}) {
        INFO(text.toStdString() << " libab " << libab);
        const RecordQuery q(*s, text, libab);
        std::size_t n = 0;
        s->forEachRecord(0, s->size(), [&](std::size_t p, const OrderEntry& e, const RecordRef& r) {
          REQUIRE(q.matches(e, r) == q.matches(e, s->eventAt(p)));
          ++n;
        });
        REQUIRE(n == s->size());
      }
    }
  }
}

TEST_CASE("record walks: a filter by call or task decodes no record, a snapshot's spans each block once") {
  const std::string text = ringTrace(5, 150);
  auto s = snapshotOfText(text);
  std::size_t blocks = 0;
  for (TaskIndex t = 0; t < s->trace->taskCount(); ++t)
    blocks += (s->trace->events(t).size() + EventStore::kBlock - 1) / EventStore::kBlock;
  REQUIRE(blocks > 100);
  ViewState state;
  state.setSnapshot(s);
  EventLogModel model(&state);
  EventFilter sends;
  sends.kind = Kind::SEND;
  std::uint64_t before = EventStore::blocksDecoded();
  state.setFilter(sends);
  CHECK(model.rowCount() == 5 * 150);
  EventFilter task;
  task.tasks = {2};
  state.setFilter(task);
  CHECK(model.rowCount() > 150 * 6);
  CHECK(EventStore::blocksDecoded() == before);
  // A tag needs the records of calls that carry one.
  EventFilter tag;
  tag.tag = 2;
  state.setFilter(tag);
  CHECK(model.rowCount() == 5 * 50 * 3);  // send, recv.begin, recv
  CHECK(EventStore::blocksDecoded() > before);

  // The order and the spans walk each task's blocks once, together; the
  // rest (binary searches, each task's last record) a few a task.
  before = EventStore::blocksDecoded();
  auto whole = SnapshotBuilder().update(s->trace);
  const std::uint64_t decoded = EventStore::blocksDecoded() - before;
  INFO(decoded << " decodings of " << blocks << " blocks");
  CHECK(decoded <= blocks + 12 * s->trace->taskCount());
}
