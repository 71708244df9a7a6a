#include <xab/model/event_store.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

using xab::Event;
using xab::EventStore;
using xab::Kind;
using xab::Phase;

namespace {

bool same(const Event& a, const Event& b) {
  return a.time == b.time && a.recvTime == b.recvTime && a.seq == b.seq && a.kind == b.kind && a.phase == b.phase &&
         a.present == b.present && a.rc == b.rc && std::memcmp(a.a, b.a, sizeof a.a) == 0;
}

// Events as a busy task writes them, with now and then a wild one: times
// far apart or backwards, extreme fields, a record without rc or fields.
std::vector<Event> sample(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<Event> out;
  std::int64_t t = 1'700'000'000'000'000'000;
  std::uint32_t seq = 0;
  for (std::size_t i = 0; i < n; ++i) {
    Event e{};
    const bool wild = rng() % 50 == 0;
    t += wild ? static_cast<std::int64_t>(rng()) : static_cast<std::int64_t>(rng() % 20000);
    e.time = t;
    e.recvTime = wild ? static_cast<std::int64_t>(rng()) : t + 300000 + static_cast<std::int64_t>(rng() % 1000);
    seq += wild ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(1 + rng() % 16);
    e.seq = seq;
    e.kind = static_cast<Kind>(rng() % static_cast<unsigned>(xab::kKindCount));
    e.phase = rng() % 2 ? Phase::Begin : Phase::End;
    e.present = static_cast<std::uint8_t>(rng());
    e.rc = e.hasRc() ? (wild ? std::numeric_limits<std::int32_t>::min() : -static_cast<std::int32_t>(rng() % 40)) : 0;
    for (int s = 0; s < xab::kMaxSlots; ++s)
      if (e.has(s)) e.a[s] = wild ? static_cast<std::int32_t>(rng()) : static_cast<std::int32_t>(0x40000 + rng() % 64);
    out.push_back(e);
  }
  return out;
}

void requireHolds(const EventStore& s, const std::vector<Event>& want, std::size_t n) {
  REQUIRE(s.size() == n);
  for (std::size_t i = 0; i < n; ++i) REQUIRE(same(s[i], want[i]));
  std::size_t i = 0;
  s.forEach([&](const Event& e) { REQUIRE(same(e, want[i++])); });
  REQUIRE(i == n);
  if (n) REQUIRE(same(s.back(), want[n - 1]));
}

}  // namespace

TEST_CASE("event store: every event comes back as it went in, wild values and all", "[model][store]") {
  // More (kind, phase, present) shapes than a store numbers: the rest are
  // spelled out.
  const auto want = sample(20000, 7);
  EventStore s;
  for (const Event& e : want) s.push_back(e);
  requireHolds(s, want, want.size());
  // Backwards and at random, through the per-thread cache.
  for (std::size_t i = want.size(); i-- > 0;) REQUIRE(same(s[i], want[i]));
  std::mt19937 rng(3);
  for (int k = 0; k < 5000; ++k) {
    std::size_t i = rng() % want.size();
    REQUIRE(same(s[i], want[i]));
  }
}

TEST_CASE("event store: a busy task's records take a fraction of an Event", "[model][store]") {
  // A worker of a ring: pack, send, receive, unpack, microseconds apart.
  EventStore s;
  const Kind cycle[] = {Kind::INITSEND, Kind::PKINT, Kind::SEND, Kind::RECV, Kind::UPKINT};
  std::int64_t t = 1'700'000'000'000'000'000;
  const std::size_t n = 100000;
  for (std::size_t i = 0; i < n; ++i) {
    Event e{};
    t += 1500 + static_cast<std::int64_t>(i * 7919 % 900);
    e.time = t;
    e.recvTime = t + 250000 + static_cast<std::int64_t>(i % 5000);
    e.seq = static_cast<std::uint32_t>(i * 16 + i % 3);
    e.kind = cycle[i % 5];
    e.phase = Phase::End;
    e.present = 0x80 | 0x3;
    e.a[0] = 0x40002 + static_cast<std::int32_t>(i % 4);
    e.a[1] = static_cast<std::int32_t>(i % 7);
    s.push_back(e);
  }
  const double perEvent = static_cast<double>(s.capacityBytes()) / n;
  INFO("bytes per event: " << perEvent);
  CHECK(perEvent < 16);
  CHECK(perEvent > 4);  // it does hold them
}

TEST_CASE("event store: a frozen copy keeps what it saw while the store grows", "[model][store]") {
  const auto want = sample(3000, 11);
  EventStore s;
  std::vector<EventStore> copies;
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < want.size(); ++i) {
    s.push_back(want[i]);
    if (i % 97 == 0 || i == 31 || i == 32 || i == 33) {
      copies.push_back(s.freeze());
      sizes.push_back(i + 1);
    }
  }
  for (std::size_t k = 0; k < copies.size(); ++k) requireHolds(copies[k], want, sizes[k]);
  requireHolds(s, want, want.size());
  CHECK_FALSE(s.sole());
  copies.clear();
  CHECK(s.sole());
}

TEST_CASE("event store: copies are read on other threads while the reader appends", "[model][store]") {
  const auto want = sample(40000, 5);
  EventStore s;
  std::vector<std::thread> readers;
  // Catch2's assertions are for the main thread: each reader says how many
  // events it found wrong.
  std::vector<std::size_t> wrong(4, 0);
  for (std::size_t i = 0; i < want.size(); ++i) {
    s.push_back(want[i]);
    if ((i + 1) % 10000 == 0) {
      readers.emplace_back([copy = s.freeze(), &want, n = i + 1, &bad = wrong[readers.size()]] {
        std::size_t k = 0;
        copy.forEach([&](const Event& e) { bad += !same(e, want[k++]); });
        bad += k != n;
        for (std::size_t j = 0; j < n; j += 37) bad += !same(copy[j], want[j]);
      });
    }
  }
  for (auto& r : readers) r.join();
  CHECK(wrong == std::vector<std::size_t>(4, 0));
}

TEST_CASE("event store: rewrite changes every event, in order, and nothing else", "[model][store]") {
  auto want = sample(1000, 9);
  EventStore s;
  for (const Event& e : want) s.push_back(e);
  REQUIRE(s.sole());
  s.rewrite([](Event& e, std::size_t i) { e.time += static_cast<std::int64_t>(i) * 1000; });
  for (std::size_t i = 0; i < want.size(); ++i) want[i].time += static_cast<std::int64_t>(i) * 1000;
  requireHolds(s, want, want.size());
}

TEST_CASE("event store: empty and single-event stores", "[model][store]") {
  EventStore s;
  CHECK(s.empty());
  std::size_t n = 0;
  s.forEach([&](const Event&) { ++n; });
  CHECK(n == 0);
  const auto want = sample(1, 1);
  s.push_back(want[0]);
  requireHolds(s, want, 1);
  CHECK(s.capacityBytes() < 200);
}

TEST_CASE("event store: partitionPoint finds the end of a prefix as a linear search does", "[model][store]") {
  EventStore s;
  std::vector<Event> want;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    Event e{};
    e.time = 1000 + (i / 3) * 10;  // runs of three equal times
    e.seq = i;
    want.push_back(e);
    s.push_back(e);
  }
  for (std::int64_t t = 900; t < 1000 + 3400; t += 5) {
    std::size_t linear = 0;
    while (linear < want.size() && want[linear].time <= t) ++linear;
    REQUIRE(s.partitionPoint([t](const Event& e) { return e.time <= t; }) == linear);
  }
  // Sizes that end inside a block and on its edge.
  for (std::size_t n : {0, 1, 31, 32, 33, 64, 65}) {
    EventStore part;
    for (std::size_t i = 0; i < n; ++i) part.push_back(want[i]);
    CHECK(part.partitionPoint([](const Event&) { return true; }) == n);
    CHECK(part.partitionPoint([](const Event&) { return false; }) == 0);
  }
}

TEST_CASE("event store: cursors read as operator[] does, forwards, backwards, interleaved, and as the store grows", "[model][store]") {
  const auto a = sample(3000, 11), b = sample(2000, 12);
  EventStore sa, sb;
  for (const Event& e : a) sa.push_back(e);
  for (const Event& e : b) sb.push_back(e);
  EventStore::Cursor ca(sa), cb(sb);
  for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(same(ca[i], a[i]));
  for (std::size_t i = b.size(); i-- > 0;) REQUIRE(same(cb[i], b[i]));
  // Two stores' records interleaved in runs, as tasks' records arrive.
  std::mt19937 rng(5);
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    for (unsigned r = rng() % 9; r > 0 && i < a.size(); --r, ++i) REQUIRE(same(ca[i], a[i]));
    for (unsigned r = rng() % 9; r > 0 && j < b.size(); --r, ++j) REQUIRE(same(cb[j], b[j]));
  }
  // A store that grows under a cursor: its open block is read again.
  EventStore growing;
  EventStore::Cursor cg(growing);
  for (std::size_t k = 0; k < 100; ++k) {
    growing.push_back(a[k]);
    REQUIRE(same(cg[k], a[k]));
    REQUIRE(same(cg[k / 2], a[k / 2]));
  }
}

TEST_CASE("event store: a cursor reads each event's shape as the whole decode has it, decoding no block", "[model][store]") {
  // More shapes than a store numbers (the rest spelled out in the body),
  // read forwards, backwards, interleaved with whole events, in frozen
  // copies and in a store that grows under the cursor.
  const auto want = sample(20000, 13);
  EventStore s;
  std::vector<EventStore> copies;
  for (std::size_t i = 0; i < want.size(); ++i) {
    s.push_back(want[i]);
    if (i == 0 || i == 31 || i == 32 || i == 4000) copies.push_back(s.freeze());
  }
  auto sameShape = [](const EventStore::Shape& sh, const Event& e) {
    return sh.kind == e.kind && sh.phase == e.phase && sh.present == e.present;
  };
  EventStore::Cursor c(s), whole(s);
  for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(sameShape(c.shape(i), whole[i]));
  for (std::size_t i = want.size(); i-- > 0;) {
    REQUIRE(sameShape(c.shape(i), want[i]));
    if (i % 7 == 0) REQUIRE(same(c[i], want[i]));
  }
  for (const EventStore& copy : copies) {
    EventStore::Cursor cc(copy);
    for (std::size_t i = 0; i < copy.size(); ++i) REQUIRE(sameShape(cc.shape(i), want[i]));
  }
  EventStore growing;
  EventStore::Cursor cg(growing);
  for (std::size_t k = 0; k < 100; ++k) {
    growing.push_back(want[k]);
    REQUIRE(sameShape(cg.shape(k), want[k]));
  }
  // A task's own shapes (fewer than 255): none is spelled out, so reading
  // them decodes nothing.
  EventStore few;
  const Kind kinds[] = {Kind::INITSEND, Kind::PKINT, Kind::SEND, Kind::RECV, Kind::UPKINT, Kind::BARRIER};
  std::size_t n = 0;
  for (Event e : sample(5000, 17)) {
    e.present &= 0x83;
    e.kind = kinds[n++ % 6];
    few.push_back(e);
  }
  EventStore::Cursor cf(few);
  const std::uint64_t before = EventStore::blocksDecoded();
  std::size_t sends = 0;
  for (std::size_t i = 0; i < few.size(); ++i) sends += cf.shape(i).kind == Kind::SEND;
  CHECK(EventStore::blocksDecoded() == before);
  std::size_t sendsDecoded = 0;
  few.forEach([&](const Event& e) { sendsDecoded += e.kind == Kind::SEND; });
  CHECK(sends == sendsDecoded);
  CHECK(EventStore::blocksDecoded() - before == (few.size() + EventStore::kBlock - 1) / EventStore::kBlock);
}

TEST_CASE("event store: a redated copy reads its times re-dated, the store its own, on one thread", "[model][store]") {
  const std::size_t n = 5 * EventStore::kBlock + 7;  // full blocks and an open one
  const auto want = sample(n, 11);
  EventStore s;
  for (const Event& e : want) s.push_back(e);
  // Each event later by its index: the re-dating sees where it is.
  EventStore r = s.redated([](Event* ev, std::size_t first, std::uint32_t count) {
    for (std::uint32_t k = 0; k < count; ++k) ev[k].time += static_cast<std::int64_t>(first + k);
  });
  auto moved = want;
  for (std::size_t i = 0; i < n; ++i) moved[i].time += static_cast<std::int64_t>(i);
  // Read alternately: the decode cache holds both stores' blocks (the same
  // block ids) and must not hand one's events to the other.
  for (int round = 0; round < 2; ++round) {
    requireHolds(s, want, n);
    requireHolds(r, moved, n);
  }
  EventStore::Cursor cs(s), cr(r);
  for (std::size_t i = n; i-- > 0;) {
    REQUIRE(same(cr[i], moved[i]));
    REQUIRE(same(cs[i], want[i]));
  }
  // A redated copy of the copy: both re-datings, in order.
  EventStore twice = r.redated([](Event* ev, std::size_t, std::uint32_t count) {
    for (std::uint32_t k = 0; k < count; ++k) ev[k].time *= 2;
  });
  for (std::size_t i = 0; i < n; ++i) REQUIRE(twice[i].time == moved[i].time * 2);
  // It shares the store's bytes: no second copy of the events.
  CHECK_FALSE(s.sole());
}
