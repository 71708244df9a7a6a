// The schema: one table of kinds and fields, parsed strictly, keys
// generated from it; the values' spelling, negative times included.
#include <xab/model/format.h>
#include <xab/model/reader.h>
#include <xab/traceformat/read.h>
#include <xab/traceformat/record.h>
#include <xab/traceformat/schema.h>
#include <xab/traceformat/write.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace xab;

TEST_CASE("slot strings: kinds by key, malformed items refused") {
  auto ok = schema::parseSlots("dst:t tag:i group:s type:y tids:l parent:t");
  REQUIRE(ok.ok);
  REQUIRE(ok.size == 6);
  CHECK(ok.items[0].key == "dst");
  CHECK(ok.items[0].spelling == Spelling::Tid);
  CHECK(ok.items[1].spelling == Spelling::Tag);
  CHECK(ok.items[2].spelling == Spelling::String);
  CHECK(ok.items[3].spelling == Spelling::DataType);
  CHECK(ok.items[4].spelling == Spelling::List);
  CHECK(ok.items[5].spelling == Spelling::Parent);
  CHECK(schema::parseSlots("lang:i").items[0].spelling == Spelling::Lang);
  CHECK_FALSE(schema::parseSlots("dst:q").ok);
  CHECK_FALSE(schema::parseSlots("dst").ok);
  CHECK_FALSE(schema::parseSlots(":t").ok);
  CHECK_FALSE(schema::parseSlots("dst:tt").ok);
  CHECK_FALSE(schema::parseSlots("a:i b:i c:i d:i e:i f:i g:i").ok);
  CHECK(schema::parseSlots("").ok);
  CHECK(schema::parseSlots("").size == 0);
  static_assert(schema::allRowsParse());
}

TEST_CASE("abmon's own records and the calls are one table") {
  CHECK(kindName(Kind::RECV) == "recv");
  CHECK(kindFromName("abmon.bad") == Kind::ABMON_BAD);
  CHECK(kindFromName("task.exit") == Kind::TASK_EXIT);
  CHECK(kindFromName("other") == Kind::OTHER);
  CHECK(kindFromName("nosuchcall") == Kind::OTHER);
  CHECK(slotOf(Kind::ABMON_BAD, Phase::End, Key::Reason) == 0);
  CHECK(slotOf(Kind::ABMON_LOST, Phase::End, Key::Messages) == 1);
  CHECK(slotOf(Kind::RECV, Phase::Begin, Key::Bytes) == -1);
  CHECK(kindRcType(Kind::MYTID) == 't');
  for (int k = 0; k < kKindCount; ++k) CHECK_FALSE(kindName(static_cast<Kind>(k)).empty());
}

TEST_CASE("the field keys are every key of the schema's rows, once") {
  // Collected from the rows, not listed: every slot key is there...
  for (int k = 0; k < kKindCount; ++k)
    for (Phase p : {Phase::End, Phase::Begin})
      for (const SlotSpec& s : kindSlots(static_cast<Kind>(k), p)) {
        INFO(kindName(static_cast<Kind>(k)) << " " << s.key);
        CHECK(std::count(kFieldKeys.begin(), kFieldKeys.end(), s.key) == 1);
      }
  // ... with rc and instance, and the analyses' names point at them.
  CHECK(std::count(kFieldKeys.begin(), kFieldKeys.end(), "rc") == 1);
  CHECK(keyName(Key::Src) == "src");
  CHECK(keyName(Key::FlushMs) == "flush_ms");
  CHECK(keyName(Key::Instance) == "instance");
}

TEST_CASE("a negative time is written sign and magnitude, and reads back") {
  // Regression: abmon wrote -1.5 s as -2.500000000, the model as
  // -1.-500000000, and the reader refused any negative time.
  std::string s;
  text::appendTime(s, -1'500'000'000);
  CHECK(s == "-1.500000000");
  CHECK(formatTime(-500'000'000) == "-0.500000000");
  CHECK(formatTime(-1'500'000'000) == "-1.500000000");
  std::int64_t t = 0;
  REQUIRE(text::parseTime("-0.500000000", t));
  CHECK(t == -500'000'000);
  REQUIRE(text::parseTime("-1.5", t));
  CHECK(t == -1'500'000'000);
  CHECK_FALSE(text::parseTime("--1.5", t));
  CHECK_FALSE(text::parseTime("-", t));
  CHECK_FALSE(text::parseTime("+1.5", t));
  CHECK_FALSE(text::parseTime("-.5", t));

  // Through the model: a trace with negative times (PICL's clocks may
  // start before 0) reads, and its records format back as they were.
  std::string line = "-1.500000000 -0.250000000 t40002 send dst=t40003 tag=1 bytes=8 serial=1 rc=0";
  LoadResult r = loadTraceText(line + "\n");
  REQUIRE(r.errorCount == 0);
  REQUIRE(r.trace->taskCount() == 1);
  CHECK(r.trace->events(0)[0].time == -250'000'000);
  CHECK(r.trace->events(0)[0].recvTime == -1'500'000'000);
  CHECK(formatRecord(*r.trace, 0, 0) == line + " parent=none");
}

TEST_CASE("times at the format's bounds read back and beyond them are refused") {
  constexpr std::int64_t kMax = 9'223'372'035'999'999'999;
  for (std::int64_t v : {kMax, -kMax, std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}}) {
    std::string s;
    text::appendTime(s, v);
    std::int64_t back = 0;
    INFO(s);
    REQUIRE(text::parseTime(s, back));
    CHECK(back == v);
  }
  std::int64_t t = 0;
  CHECK_FALSE(text::parseTime("9223372036.000000000", t));
  CHECK_FALSE(text::parseTime("-9223372036.000000000", t));
  std::string s;
  text::appendTime(s, INT64_MIN);  // no positive counterpart: written right anyway
  CHECK(s == "-9223372036.854775808");
}

// pvmd's tid (the source of PVM's notify messages) has PVM's pvmd bit set,
// so it is negative as an int32; it is a tid, not an error code.
TEST_CASE("a pvmd's tid is written as a tid and reads back, error codes stay decimal") {
  for (std::int32_t tid : {static_cast<std::int32_t>(0x80000000u), static_cast<std::int32_t>(0x80040000u)}) {
    CHECK(isPvmdTid(tid));
    std::string s;
    text::appendTid(s, tid);
    CHECK(s == (tid == static_cast<std::int32_t>(0x80000000u) ? "t80000000" : "t80040000"));
    std::int32_t back = 0;
    REQUIRE(text::parseTid(s, back));
    CHECK(back == tid);
  }
  for (std::int32_t code : {-2, -15, -31, -40}) {
    CHECK_FALSE(isPvmdTid(code));
    std::string s;
    text::appendTid(s, code);
    CHECK(s == std::to_string(code));
  }
  std::int32_t v = 0;
  CHECK_FALSE(text::parseTid("tffffffe1", v));  // an error code spelled as a tid
  CHECK_FALSE(text::parseTid("t100000000", v));
  CHECK(text::parseTid("-2147483648", v));      // as older traces wrote it
  CHECK(v == static_cast<std::int32_t>(0x80000000u));
}

// The parts a writer appends per record, spelled once from the rows: the
// same bytes as the one-at-a-time writers.
TEST_CASE("kindText: every kind's names and key prefixes as the writers spell them") {
  REQUIRE(text::kindTexts().size() == static_cast<std::size_t>(kKindCount));
  for (int k = 0; k < kKindCount; ++k) {
    auto kind = static_cast<Kind>(k);
    const text::KindText& t = text::kindText(kind);
    std::string name, begin;
    text::appendEventName(name, kind, Phase::End);
    text::appendEventName(begin, kind, Phase::Begin);
    CHECK(t.name == name);
    CHECK(t.beginName == begin);
    CHECK(t.rcIsTid == (kindRcType(kind) == 't'));
    for (Phase p : {Phase::Begin, Phase::End}) {
      auto slots = kindSlots(kind, p);
      const auto& texts = p == Phase::Begin ? t.beginSlots : t.endSlots;
      REQUIRE(texts.size() == slots.size());
      for (std::size_t i = 0; i < slots.size(); ++i) {
        CHECK(texts[i].prefix == " " + std::string(slots[i].key) + "=");
        CHECK(texts[i].kind == slots[i].spelling);
      }
    }
  }
  CHECK(text::kindText(Kind::RECV).beginName == "recv.begin");
  CHECK(text::kindText(Kind::RECV).beginSlots[0].prefix == " src=");
}

TEST_CASE("isHeaderLine: the header's first field, not a comment that starts alike") {
  std::string h;
  text::appendHeader(h, text::Header{});
  CHECK(h.starts_with(text::kHeaderTag));
  CHECK(text::isHeaderLine(h));
  CHECK(text::isHeaderLine("#xab-trace 1 abmon=t40001 host=vm pid=1 start=1.0\r"));
  CHECK(text::isHeaderLine("#xab-trace"));
  CHECK_FALSE(text::isHeaderLine("#xab-traces are text"));
  CHECK_FALSE(text::isHeaderLine("# xab-trace 1"));
  CHECK_FALSE(text::isHeaderLine("1.0 1.0 t40002 exit rc=0"));
}
