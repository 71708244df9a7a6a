// Property test of the one writer and the one reader: random records of
// every kind and phase, with every slot type, extreme numbers, negative
// times and strings of every byte value, go to text and back (the
// library's LineReader) and through the model's builder and back
// (TraceBuilder, toRecord), and come out the same.
#include <xab/model/builder.h>
#include <xab/traceformat/read.h>
#include <xab/traceformat/record.h>
#include <xab/traceformat/write.h>

#include <catch2/catch.hpp>

#include <deque>
#include <random>
#include <string>
#include <vector>

using namespace xab;

namespace {

constexpr std::int64_t kMaxTime = 9'223'372'035'999'999'999;  // the format's bound

// Owns the strings and lists a generated Record points into.
struct Generator {
  std::mt19937_64 rng;
  std::deque<std::string> strings;
  std::deque<std::vector<std::int32_t>> lists;

  explicit Generator(std::uint64_t seed) : rng(seed) {}

  std::uint64_t below(std::uint64_t n) { return rng() % n; }

  std::int32_t int32() {
    static constexpr std::int32_t kEdges[] = {INT32_MIN, INT32_MIN + 1, -2, -1, 0, 1, 11, 12, INT32_MAX};
    if (below(3) == 0) return kEdges[below(std::size(kEdges))];
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(rng()));
  }

  std::int64_t time() {
    static constexpr std::int64_t kEdges[] = {-kMaxTime, -1'500'000'000, -1, 0, 1, 1763680000200100200, kMaxTime};
    if (below(3) == 0) return kEdges[below(std::size(kEdges))];
    // In unsigned (modular) arithmetic, then to int64: -kMaxTime .. kMaxTime.
    std::uint64_t range = 2 * static_cast<std::uint64_t>(kMaxTime) + 1;
    return static_cast<std::int64_t>(rng() % range - static_cast<std::uint64_t>(kMaxTime));
  }

  std::string_view string() {
    std::string s;
    if (below(8) == 0) {
      for (int b = 0; b < 256; ++b) s.push_back(static_cast<char>(b));  // every byte value
    } else {
      std::size_t n = below(12);
      for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(below(256)));
    }
    strings.push_back(std::move(s));
    return strings.back();
  }

  std::span<const std::int32_t> list() {
    std::vector<std::int32_t> v(below(5));
    for (auto& t : v) t = int32();
    lists.push_back(std::move(v));
    return lists.back();
  }

  // A parent is a tid or none; `none` reads as 0 (kNoTid).
  std::int32_t parent() { return below(2) ? 0 : static_cast<std::int32_t>(rng() & 0x7fffffff); }

  text::Record record(Kind kind, Phase phase) {
    text::Record r;
    r.recvTime = time();
    r.time = time();
    r.tid = int32();
    r.kind = kind;
    r.phase = phase;
    if (kind == Kind::OTHER) {
      std::string name = "x-";
      name += string();
      strings.push_back(std::move(name));
      r.setOther(strings.back());
      return r;
    }
    auto slots = kindSlots(kind, phase);
    bool identityKeys = false;
    for (std::size_t s = 0; s < slots.size(); ++s) {
      const SlotSpec& spec = slots[s];
      for (auto k : {"name", "host", "parent", "lang", "pid", "instance"}) identityKeys |= spec.key == k;
      if (below(5) == 0) continue;  // a slot the record does not carry
      r.present |= static_cast<std::uint8_t>(1u << s);
      switch (spec.spelling) {
        case Spelling::String: r.str[s] = string(); break;
        case Spelling::List: r.list[s] = list(); break;
        case Spelling::Parent: r.a[s] = parent(); break;
        default: r.a[s] = int32();
      }
    }
    if (below(4) != 0) r.setRc(int32());
    // The identity rides on a record whose kind has no slot of its keys.
    if (!identityKeys && below(3) == 0) {
      text::Identity& id = r.id;
      id.hasName = true;
      id.name = string();
      id.instance = below(2) ? -1 : static_cast<std::int32_t>(rng() & 0x7fffffff);
      id.hasHost = below(2);
      if (id.hasHost) id.host = string();
      id.hasParent = true;
      id.parent = parent();
      id.hasLang = below(2);
      id.lang = id.hasLang ? int32() : -1;
      id.hasPid = below(2);
      id.pid = id.hasPid ? int32() : 0;
    }
    return r;
  }
};

std::string show(const text::Record& r) {
  std::string s;
  text::appendRecord(s, r);
  return s;
}

void checkSame(const text::Record& want, const text::Record& got, bool identity) {
  INFO("wrote " << show(want));
  INFO("read  " << show(got));
  CHECK(got.recvTime == want.recvTime);
  CHECK(got.time == want.time);
  CHECK(got.tid == want.tid);
  CHECK(got.kind == want.kind);
  CHECK(got.phase == want.phase);
  CHECK(got.present == want.present);
  if (want.hasRc()) CHECK(got.rc == want.rc);
  auto slots = kindSlots(want.kind, want.phase);
  if (want.kind == Kind::OTHER) CHECK(got.str[0] == want.str[0]);
  for (std::size_t s = 0; s < slots.size() && want.kind != Kind::OTHER; ++s) {
    if (!want.has(static_cast<int>(s))) continue;
    INFO("slot " << slots[s].key);
    switch (slots[s].spelling) {
      case Spelling::String: CHECK(got.str[s] == want.str[s]); break;
      case Spelling::List:
        CHECK(std::vector<std::int32_t>(got.list[s].begin(), got.list[s].end()) ==
              std::vector<std::int32_t>(want.list[s].begin(), want.list[s].end()));
        break;
      default: CHECK(got.a[s] == want.a[s]);
    }
  }
  if (!identity) return;
  const text::Identity &w = want.id, &g = got.id;
  CHECK(g.hasName == w.hasName);
  if (w.hasName) CHECK(g.name == w.name);
  CHECK(g.instance == w.instance);
  CHECK(g.hasHost == w.hasHost);
  if (w.hasHost) CHECK(g.host == w.host);
  CHECK(g.hasParent == w.hasParent);
  if (w.hasParent) CHECK(g.parent == w.parent);
  CHECK(g.hasLang == w.hasLang);
  if (w.hasLang) CHECK(g.lang == w.lang);
  CHECK(g.hasPid == w.hasPid);
  if (w.hasPid) CHECK(g.pid == w.pid);
}

}  // namespace

TEST_CASE("random records of every kind go to text and back unchanged") {
  text::LineReader reader;
  std::size_t records = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Generator gen(seed);
    for (int k = 0; k < kKindCount; ++k)
      for (Phase phase : {Phase::End, Phase::Begin}) {
        auto kind = static_cast<Kind>(k);
        if (kind == Kind::OTHER && phase == Phase::Begin) continue;
        text::Record want = gen.record(kind, phase);
        std::string line;
        text::appendRecord(line, want);
        REQUIRE(line.find('\n') == std::string::npos);
        std::string error;
        bool fatal = false;
        REQUIRE(reader.read(line, false, error, fatal) == text::LineReader::Line::Record);
        INFO(line);
        REQUIRE(error.empty());
        checkSame(want, reader.record(), true);
        ++records;
      }
  }
  CHECK(records > 8000);
}

TEST_CASE("random records go through the model's builder and back unchanged") {
  for (std::uint64_t seed = 100; seed < 120; ++seed) {
    Generator gen(seed);
    for (int k = 0; k < kKindCount; ++k)
      for (Phase phase : {Phase::End, Phase::Begin}) {
        auto kind = static_cast<Kind>(k);
        if (isMonitorRecord(kind)) continue;  // no task's
        if (kind == Kind::OTHER && phase == Phase::Begin) continue;
        text::Record want = gen.record(kind, phase);
        TraceBuilder b;
        b.record(want);
        auto trace = b.take();
        REQUIRE(trace->taskCount() == 1);
        REQUIRE(trace->events(0).size() == 1);
        checkSame(want, toRecord(*trace, 0, 0, false), false);
        if (want.id.hasName) {
          CHECK(trace->taskName(0) == want.id.name);
          if (want.id.instance >= 0) CHECK(trace->task(0).instance == want.id.instance);
        }
      }
  }
}

TEST_CASE("a header goes to text and back") {
  text::Header h;
  h.hasAbmon = true;
  h.abmon = 0x40001;
  std::string host = "my host=%";
  h.host = host;
  h.pid = 4242;
  h.start = 1763680000123456789;
  std::string line;
  text::appendHeader(line, h);
  CHECK(line == "#xab-trace 1 abmon=t40001 host=my%20host%3D%25 pid=4242 start=1763680000.123456789");
  text::LineReader reader;
  std::string error;
  bool fatal = false;
  REQUIRE(reader.read(line, true, error, fatal) == text::LineReader::Line::Header);
  CHECK(error.empty());
  CHECK(reader.header().abmon == h.abmon);
  CHECK(reader.header().host == host);
  CHECK(reader.header().pid == h.pid);
  CHECK(reader.header().start == h.start);
  CHECK(reader.read(line, false, error, fatal) == text::LineReader::Line::Skip);  // a second one
}
