// abmon's command line, and a relay's stream frames (relay_stream.h).
#include <xab/wire.h>

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "options.h"
#include "relay_stream.h"

using namespace xab::abmon;

TEST_CASE("defaults come from wire.h") {
  Options o;
  REQUIRE(parseOptions({}, o).empty());
  CHECK(o.batch == XAB_DEFAULT_BATCH);
  CHECK(o.flushMs == XAB_DEFAULT_FLUSH_MS);
  CHECK(o.tag == XAB_DEFAULT_TAG);
  CHECK(o.output.empty());
  CHECK(o.verbosity == 0);
}

TEST_CASE("every option, in both spellings") {
  Options o;
  REQUIRE(parseOptions({"-o", "t.trace", "-v", "-v", "--batch", "64", "--flush-ms=5", "--tag",
                         "100"},
                        o)
              .empty());
  CHECK(o.output == "t.trace");
  CHECK(o.verbosity == 2);
  CHECK(o.batch == 64);
  CHECK(o.flushMs == 5);
  CHECK(o.tag == 100);
  REQUIRE(parseOptions({"-vvv", "-q"}, o).empty());
  CHECK(o.verbosity == 2);
  REQUIRE(parseOptions({"--output=x", "-q", "--help", "--version"}, o).empty());
  CHECK(o.output == "x");
  CHECK(o.verbosity == -1);
  CHECK(o.help);
  CHECK(o.version);
}

TEST_CASE("the poke time follows the flush time unless given") {
  Options o;
  REQUIRE(parseOptions({}, o).empty());
  CHECK(o.pokeMs == 300);  // 1.5 x 200 ms
  REQUIRE(parseOptions({"--flush-ms", "1000"}, o).empty());
  CHECK(o.pokeMs == 500);  // a hung task still shows within a second
  REQUIRE(parseOptions({"--flush-ms", "0"}, o).empty());
  CHECK(o.pokeMs == 20);
  REQUIRE(parseOptions({"--flush-ms", "1000", "--poke-ms=0"}, o).empty());
  CHECK(o.pokeMs == 0);  // no pokes
  CHECK(parseOptions({"--poke-ms", "x"}, o).find("is not a number") != std::string::npos);
  CHECK(usageText().find("--poke-ms") != std::string_view::npos);
}

TEST_CASE("option --pvm-only turns the local socket off") {
  Options o;
  REQUIRE(parseOptions({}, o).empty());
  CHECK_FALSE(o.pvmOnly);
  REQUIRE(parseOptions({"--pvm-only"}, o).empty());
  CHECK(o.pvmOnly);
  CHECK(usageText().find("--pvm-only") != std::string_view::npos);
}

TEST_CASE("abmon's control option takes the socket path") {
  Options o;
  REQUIRE(parseOptions({}, o).empty());
  CHECK(o.control.empty());
  REQUIRE(parseOptions({"--control", "/tmp/ctl"}, o).empty());
  CHECK(o.control == "/tmp/ctl");
  REQUIRE(parseOptions({"--control=/tmp/c2"}, o).empty());
  CHECK(o.control == "/tmp/c2");
  CHECK(parseOptions({"--control"}, o) == "option --control needs a socket path");
  CHECK(usageText().find("--control PATH") != std::string_view::npos);
}

TEST_CASE("bad command lines say what is wrong") {
  Options o;
  CHECK(parseOptions({"--batch"}, o) == "option --batch needs a number");
  CHECK(parseOptions({"--batch", "0"}, o).find("from 1 to") != std::string::npos);
  CHECK(parseOptions({"--tag", "12x"}, o).find("\"12x\" is not a number") != std::string::npos);
  CHECK(parseOptions({"--flush-ms", "-1"}, o).find("is not a number") != std::string::npos);
  CHECK(parseOptions({"-o"}, o) == "option -o needs a file name");
  CHECK(parseOptions({"extra"}, o) == "unknown argument \"extra\"");
  CHECK(parseOptions({"-vx"}, o) == "unknown argument \"-vx\"");
  CHECK(usageText().find("--flush-ms") != std::string_view::npos);
}

TEST_CASE("everything after -- is the program to run, options of its own included") {
  Options o;
  REQUIRE(parseOptions({"-o", "t.trace", "--", "./master", "-o", "x", "--batch"}, o).empty());
  CHECK(o.output == "t.trace");
  CHECK(o.batch == XAB_DEFAULT_BATCH);
  REQUIRE(o.program.size() == 4);
  CHECK(o.program[0] == "./master");
  CHECK(o.program[3] == "--batch");
  CHECK(parseOptions({"-q", "--"}, o) == "-- needs a program to run");
}

TEST_CASE("a relay's --relay takes abmon's tid and context, and its stream's port, never its token") {
  Options o;
  REQUIRE(parseOptions({"--relay", "262145,7"}, o).empty());
  CHECK(o.relayOf == 262145);
  CHECK(o.relayContext == 7);
  CHECK(o.relayPort == 0);
  Options s;
  REQUIRE(parseOptions({"--relay", "262145,-3,40123"}, s).empty());
  CHECK(s.relayContext == -3);
  CHECK(s.relayPort == 40123);
  for (const char* bad : {"262145", "262145,7,0", "262145,7,x", "262145,7,1,2,3", "262145,7,40123,"})
    CHECK(parseOptions({"--relay", bad}, o).find("is not TID,CONTEXT[,PORT]") != std::string::npos);
  // The old form put the stream's token where every user of the host reads it.
  CHECK(parseOptions({"--relay", "262145,7,40123,89abcdef01234567"}, o).find("no longer goes on the command line") !=
        std::string::npos);
  REQUIRE(parseOptions({"--relay-pvm"}, o).empty());
  CHECK(o.relayPvm);
  CHECK(usageText().find("--relay-pvm") != std::string_view::npos);
}

TEST_CASE("a relay stream's frames come out as they went in, however the bytes are cut") {
  using xab::abmon::FrameReader;
  using xab::abmon::RelayBatch;
  RelayBatch a;
  a.what = 2;
  a.sentNs = 1795501302292314924;
  a.events = 2;
  a.opened = {0x40005, 0x80001};
  a.closed = {0x40004};
  std::string text = "1 2 t40005 mytid rc=t40005\n1 3 t40005 exit rc=0\n";
  a.text = text;
  RelayBatch b;
  b.what = 3;
  std::string wire;
  xab::abmon::appendFrame(wire, a);
  xab::abmon::appendFrame(wire, b);
  for (std::size_t cut : {std::size_t{1}, std::size_t{5}, std::size_t{29}, wire.size()}) {
    FrameReader r;
    std::vector<RelayBatch> got;
    std::vector<std::string> texts;
    for (std::size_t at = 0; at < wire.size(); at += cut) {
      std::size_t n = std::min(cut, wire.size() - at);
      std::memcpy(r.room(n), wire.data() + at, n);
      r.wrote(n);
      for (RelayBatch f; r.next(f);) {
        texts.emplace_back(f.text);
        got.push_back(f);
      }
    }
    REQUIRE(got.size() == 2);
    CHECK(got[0].sentNs == a.sentNs);
    CHECK(got[0].events == 2);
    CHECK(got[0].opened == a.opened);
    CHECK(got[0].closed == a.closed);
    CHECK(texts[0] == text);
    CHECK(got[1].what == 3);
    CHECK(texts[1].empty());
    CHECK_FALSE(r.bad());
    CHECK(r.buffered() == 0);
  }
  // A frame that announces more than a relay ever sends: the stream is bad.
  RelayBatch huge;
  std::string hostile;
  xab::abmon::appendFrame(hostile, huge);
  hostile[24] = '\x7f';  // text length 0x7f000000
  FrameReader r;
  std::memcpy(r.room(hostile.size()), hostile.data(), hostile.size());
  r.wrote(hostile.size());
  RelayBatch f;
  CHECK_FALSE(r.next(f));
  CHECK(r.bad());
  int tid = 0;
  std::uint64_t token = 0;
  xab::abmon::parseHello(xab::abmon::helloBytes(0x80001, 0xfedcba9876543210ULL).data(), tid, token);
  CHECK(tid == 0x80001);
  CHECK(token == 0xfedcba9876543210ULL);
}

TEST_CASE("a relay stream's clock ping and pong frames, and a ping frame that announces more than a ping") {
  using namespace xab::abmon;
  std::string wire;
  appendClockPing(wire, 7, 1795501302292314924);
  appendClockPong(wire, 7, 1795501302292400000, -5);  // t3 of a clock before 1970 still comes back
  FrameReader r;
  std::memcpy(r.room(wire.size()), wire.data(), wire.size());
  r.wrote(wire.size());
  RelayBatch ping, pong;
  REQUIRE(r.next(ping));
  REQUIRE(r.next(pong));
  CHECK(ping.what == static_cast<int>(RelayMsg::ClockPing));
  CHECK(ping.events == 7);
  CHECK(ping.sentNs == 1795501302292314924);
  int k = 0;
  std::int64_t t2 = 0, t3 = 0;
  CHECK_FALSE(readClockPong(ping, k, t2, t3));
  REQUIRE(readClockPong(pong, k, t2, t3));
  CHECK(k == 7);
  CHECK(t2 == 1795501302292400000);
  CHECK(t3 == -5);
  CHECK(r.buffered() == 0);
  // A ping that announces tids or text (a forged one): the stream is bad at
  // its head, before any of the announced bytes is waited for or buffered.
  for (std::size_t field : {std::size_t{16}, std::size_t{20}, std::size_t{24}}) {
    std::string forged;
    appendClockPing(forged, 1, 0);
    forged[field + 3] = '\x01';  // one tid, or one byte of text
    FrameReader f;
    std::memcpy(f.room(forged.size()), forged.data(), forged.size());
    f.wrote(forged.size());
    RelayBatch b;
    CHECK_FALSE(f.next(b));
    CHECK(f.bad());
  }
  std::string oversized;
  appendClockPong(oversized, 1, 0, 0);
  oversized[24] = '\x01';  // a pong of 16 MiB of text
  FrameReader f;
  std::memcpy(f.room(kFrameHeadBytes), oversized.data(), kFrameHeadBytes);
  f.wrote(kFrameHeadBytes);
  RelayBatch b;
  CHECK_FALSE(f.next(b));
  CHECK(f.bad());
}
