// abmon's command line.
#include <xab/wire.h>

#include <catch2/catch.hpp>

#include "options.h"

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
