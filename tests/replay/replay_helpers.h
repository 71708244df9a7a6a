// replay_helpers.h -- what test_replay.cpp and test_from_trace.cpp (one
// executable, one private virtual machine each) both need of abreplay.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "xab/test/process.h"

namespace xab::test {

inline std::string abreplay() { return bin_dir() + "/abreplay"; }
inline std::string race() { return bin_dir() + "/xabrace"; }

// libab's record dump once every task has marked its record ended: a
// worker marks its record "exited" in its exit(), which may come a moment
// after the master has printed and exited.
inline std::string dumpOfEndedRun(const std::string& dir) {
  using namespace std::chrono_literals;
  std::string d;
  for (int i = 0; i < 200; ++i) {
    auto r = run({abreplay(), "--dump", dir}, {}, 30s);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    d = r.out;
    if (d.find(" stopped after") == std::string::npos) break;
    std::this_thread::sleep_for(50ms);
  }
  return d;
}

}  // namespace xab::test
