// abmon -o FILE.zst under a real pvmd: the trace is zstd-compressed, every
// reader reads it as the plain text (from the file and from standard
// input), a reader sees its records while abmon runs, and a killed abmon
// leaves it readable up to its last flush.
#include "json.h"

#include "xab/test/private_vm.h"
#include "xab/test/process.h"

#include <zstd.h>

#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace xab::test;

namespace {

std::string decompress(const std::string& bytes) {
  std::string text;
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
  while (in.pos < in.size) {
    char buf[1 << 16];
    ZSTD_outBuffer out{buf, sizeof buf, 0};
    std::size_t r = ZSTD_decompressStream(d, &out, &in);
    if (ZSTD_isError(r)) break;
    text.append(buf, out.pos);
  }
  ZSTD_freeDCtx(d);
  return text;
}

std::string abstatJson(const std::string& path) {
  auto r = run({bin_dir() + "/abstat", "--json", path}, {}, 60s);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("abmon -o run.trace.zst: compressed, and abstat reads it as the plain text, from a file and a pipe",
          "[pvm][abmon]") {
  PrivateVm vm;
  const std::string zst = vm.dir() + "/run.trace.zst", plain = vm.dir() + "/run.trace";
  auto r = run({bin_dir() + "/abmon", "-q", "-o", zst, "--", bin_dir() + "/abstat_pvm_prog", "ring", "4"}, {}, 120s);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string bytes = read_file(zst);
  REQUIRE(bytes.size() > 4);
  CHECK(bytes.substr(0, 4) == std::string("\x28\xb5\x2f\xfd", 4));  // zstd's magic
  const std::string text = decompress(bytes);
  CHECK(text.find(" abmon.stop ") != std::string::npos);
  CHECK(bytes.size() * 3 < text.size());
  std::ofstream(plain, std::ios::binary) << text;

  // The same JSON but for the input's name.
  auto named = [](std::string json, const std::string& path) {
    const std::string name = "\"" + path + "\"";
    for (auto p = json.find(name); p != std::string::npos; p = json.find(name))
      json.replace(p, name.size(), "\"INPUT\"");
    return json;
  };
  const std::string want = named(abstatJson(plain), plain);
  CHECK(named(abstatJson(zst), zst) == want);
  auto piped = run({"sh", "-c", "exec \"$0\" --json - < \"$1\"", bin_dir() + "/abstat", zst}, {}, 60s);
  INFO(piped.err);
  CHECK(named(piped.out, "-") == want);
  CHECK(parseJson(want)["failures"]["timeouts"].arr().size() == 4);
}

TEST_CASE("abmon -o run.trace.zst: records are readable while abmon runs, and after it is killed", "[pvm][abmon]") {
  PrivateVm vm;
  const std::string zst = vm.dir() + "/live.trace.zst";
  BackgroundProcess mon({bin_dir() + "/abmon", "-v", "-o", zst}, vm.dir() + "/abmon.out");
  auto started = std::chrono::steady_clock::now();
  while (mon.read_stderr().find("registered") == std::string::npos) {
    REQUIRE(mon.running());
    REQUIRE(std::chrono::steady_clock::now() - started < 30s);
    std::this_thread::sleep_for(20ms);
  }
  auto r = run({bin_dir() + "/abstat_pvm_prog", "ring", "4"}, {}, 120s);
  REQUIRE(r.exit_code == 0);
  // Every task's timeout, read from the compressed file abmon is still writing.
  auto ended = std::chrono::steady_clock::now();
  std::string seen;
  for (;;) {
    auto a = run({bin_dir() + "/abstat", "--json", zst}, {}, 60s);
    if (a.exit_code != 0 || a.out.empty()) {
      seen = a.err;
    } else if (parseJson(a.out)["failures"]["timeouts"].arr().size() == 4) {
      break;
    }
    INFO(seen);
    REQUIRE(std::chrono::steady_clock::now() - ended < 30s);  // abmon flushes every 250 ms
    std::this_thread::sleep_for(50ms);
  }
  ::kill(mon.pid(), SIGKILL);
  mon.wait(10s);
  auto a = run({bin_dir() + "/abstat", "--json", zst}, {}, 60s);
  CHECK(a.exit_code == 0);
  CHECK_THAT(a.err, Catch::Contains(zst + ":") && Catch::Contains("zstd data ends inside a frame") &&
                        Catch::Contains("read to the last whole record"));
  Json j = parseJson(a.out);
  CHECK(j["failures"]["timeouts"].arr().size() == 4);
  CHECK_FALSE(j["trace"]["stopped"].boolean());
}

TEST_CASE("abstat --follow on the .zst abmon is writing reads every record and ends at abmon's stop", "[pvm][abmon]") {
  PrivateVm vm;
  const std::string zst = vm.dir() + "/follow.trace.zst";
  BackgroundProcess mon({bin_dir() + "/abmon", "-v", "-o", zst}, vm.dir() + "/abmon.out");
  auto started = std::chrono::steady_clock::now();
  while (mon.read_stderr().find("registered") == std::string::npos) {
    REQUIRE(mon.running());
    REQUIRE(std::chrono::steady_clock::now() - started < 30s);
    std::this_thread::sleep_for(20ms);
  }
  BackgroundProcess follower({bin_dir() + "/abstat", "--follow", "--json", "--stall", "1000", zst},
                             vm.dir() + "/follow.json");
  auto r = run({bin_dir() + "/abstat_pvm_prog", "ring", "4"}, {}, 120s);
  REQUIRE(r.exit_code == 0);
  CHECK(follower.running());  // the frame is open: abstat waits for more
  CHECK(mon.stop(SIGINT) == 0);
  CHECK(follower.wait(30s) == 0);
  INFO(follower.read_stderr());
  CHECK(follower.read_stderr().find("inside a frame") == std::string::npos);
  Json j = parseJson(follower.read_stdout());
  CHECK(j["trace"]["stopped"].boolean());
  CHECK(j["failures"]["timeouts"].arr().size() == 4);
}
