// abmon_harness.h -- what abmon's integration tests share: abmon running
// in the background on the test's private VM, abmonFakeTask runs, and a
// small look at the records abmon wrote.
#ifndef XAB_TESTS_ABMON_HARNESS_H
#define XAB_TESTS_ABMON_HARNESS_H

#include <catch2/catch.hpp>

#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "xab/test/private_vm.h"
#include "xab/test/process.h"

namespace xab::test::abmon {

inline std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::vector<std::string> fieldsOf(const std::string& line) {
  std::vector<std::string> f;
  std::istringstream in(line);
  for (std::string w; in >> w;) f.push_back(w);
  return f;
}

// The records of one task, without the two time columns and the tid.
inline std::vector<std::string> records_of(const std::string& trace, const std::string& tid) {
  std::vector<std::string> out;
  for (const auto& line : linesOf(trace)) {
    auto f = fieldsOf(line);
    if (f.size() < 4 || f[2] != tid) continue;
    std::string rest = f[3];
    for (std::size_t i = 4; i < f.size(); ++i) rest += " " + f[i];
    out.push_back(rest);
  }
  return out;
}

inline std::string abmonBin() { return bin_dir() + "/abmon"; }
inline std::string fakeBin() { return bin_dir() + "/abmon_fake_task"; }

inline std::string tidOf(const RunResult& r) {
  auto pos = r.out.find("tid=");
  return pos == std::string::npos ? "" : r.out.substr(pos + 4, r.out.find('\n', pos) - pos - 4);
}

// A running abmon writing to a file of its own in the VM's directory.
struct Monitor {
  explicit Monitor(const std::string& name, std::vector<std::string> extra = {})
      : path(fresh(PrivateVm::shared().dir() + "/" + name)),
        proc(args(path, std::move(extra)), path + ".out") {}
  // A trace left by an earlier abmon must not look like this one's start.
  static std::string fresh(const std::string& path) {
    std::filesystem::remove(path);
    return path;
  }
  static std::vector<std::string> args(const std::string& path, std::vector<std::string> extra) {
    std::vector<std::string> a{abmonBin(), "-o", path};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  bool started() {
    return waitFor([](const std::string& s) { return s.find("abmon.start") != s.npos; });
  }
  bool waitFor(const std::function<bool(const std::string&)>& pred) {
    for (int i = 0; i < 600; ++i) {  // a deadline, not a measurement
      if (pred(trace())) return true;
      if (!proc.running()) return pred(trace());
      usleep(50 * 1000);
    }
    return false;
  }
  std::string trace() const {
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string path;
  BackgroundProcess proc;
};

inline RunResult fake(std::vector<std::string> script) {
  script.insert(script.begin(), fakeBin());
  return run(script, {}, 60s);
}

}  // namespace xab::test::abmon

#endif
