// Records and the background abmon of xab/test/records.h.
#include "xab/test/records.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace xab::test {

std::string Record::get(const std::string& key) const {
  auto it = f.find(key);
  return it == f.end() ? std::string("<none>") : it->second;
}

std::vector<Record> parse_records(const std::string& text) {
  std::vector<Record> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string kv;
    Record r;
    ls >> r.recv_time >> r.task_time >> r.tid >> r.event;
    while (ls >> kv) {
      auto eq = kv.find('=');
      if (eq != std::string::npos) r.f[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Record> records_of(const std::vector<Record>& rs, const std::string& tid) {
  std::vector<Record> out;
  std::copy_if(rs.begin(), rs.end(), std::back_inserter(out), [&](const Record& r) { return r.tid == tid; });
  return out;
}

static bool matches(const Record& r, const std::string& event, const Fields& fields) {
  if (r.event != event) return false;
  return std::all_of(fields.begin(), fields.end(), [&](auto& kv) { return r.has(kv.first, kv.second); });
}

const Record* find(const std::vector<Record>& rs, const std::string& event, const Fields& fields) {
  auto it = std::find_if(rs.begin(), rs.end(), [&](const Record& r) { return matches(r, event, fields); });
  return it == rs.end() ? nullptr : &*it;
}

std::size_t count(const std::vector<Record>& rs, const std::string& event, const Fields& fields) {
  return static_cast<std::size_t>(
      std::count_if(rs.begin(), rs.end(), [&](const Record& r) { return matches(r, event, fields); }));
}

static std::vector<std::string> abmon_argv(const std::vector<std::string>& extra) {
  std::vector<std::string> argv{bin_dir() + "/abmon"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  std::istringstream more(extra_abmon_args());
  for (std::string arg; more >> arg;) argv.push_back(arg);
  return argv;
}

std::string extra_abmon_args() {
  const char* v = std::getenv("XAB_TEST_ABMON_ARGS");
  return v ? v : "";
}

Monitor::Monitor(const std::string& path, const std::vector<std::string>& extra_args)
    : proc_(abmon_argv(extra_args), path) {
  if (!saw("abmon.start"))
    throw std::runtime_error("abmon did not start; its stderr: " + proc_.read_stderr());
}

bool Monitor::saw(const std::string& needle, std::chrono::milliseconds deadline) {
  return proc_.wait_for_output([&](const std::string& s) { return s.find(needle) != std::string::npos; },
                               deadline);
}

bool Monitor::wait_exits(std::size_t tasks, std::chrono::milliseconds deadline) {
  return proc_.wait_for_output(
      [&](const std::string& s) {
        std::size_t n = 0;
        for (auto p = s.find(" task.exit "); p != std::string::npos; p = s.find(" task.exit ", p + 1)) n++;
        return n >= tasks;
      },
      deadline);
}

std::vector<Record> Monitor::finish(int* exit_code) {
  int rc = proc_.stop(SIGINT);
  if (exit_code) *exit_code = rc;
  return parse_records(proc_.read_stdout());
}

}  // namespace xab::test
