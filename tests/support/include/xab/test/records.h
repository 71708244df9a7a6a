// xab/test/records.h -- abmon's records as tests look at them, and abmon
// running in the background for a test.
//
// A deliberately small reader of docs/trace-format.md, independent of the
// trace model, so a test of libab or abmon does not trust the code that the
// model's own tests check.
//
//   1. xab::test::Monitor mon(vm.dir() + "/run.trace");          // abmon started
//      run({bin_dir() + "/prog"});
//      auto rs = mon.finish();                                     // SIGINT, records
//      CHECK(xab::test::find(rs, "send", {{"tag", "11"}, {"serial", "1"}}));
//   2. auto mine = xab::test::records_of(rs, "t40002");
#ifndef XAB_TEST_RECORDS_H
#define XAB_TEST_RECORDS_H

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "xab/test/process.h"

namespace xab::test {

struct Record {
  double recv_time = 0, task_time = 0;  // seconds since the epoch: abmon's, the task's
  std::string tid, event;
  std::map<std::string, std::string> f;  // key=value fields
  // The field's value, or "<none>".
  std::string get(const std::string& key) const;
  bool has(const std::string& key, const std::string& value) const { return get(key) == value; }
};

using Fields = std::vector<std::pair<std::string, std::string>>;

// Every record of a trace's text (header and comments skipped).
std::vector<Record> parse_records(const std::string& text);
// The records of one task.
std::vector<Record> records_of(const std::vector<Record>& rs, const std::string& tid);
// The first record with this event name and these field values, or nullptr.
const Record* find(const std::vector<Record>& rs, const std::string& event, const Fields& fields = {});
// How many records have this event name and these field values.
std::size_t count(const std::vector<Record>& rs, const std::string& event, const Fields& fields = {});

// What XAB_TEST_ABMON_ARGS says (words added to every abmon a Monitor
// starts): CTest runs libab's tests again with "--pvm-only", so both ways
// events travel are tested.
std::string extra_abmon_args();

// abmon (bin_dir()/abmon) in the background, writing to `path`; the
// constructor returns once abmon has written its start record.
class Monitor {
 public:
  explicit Monitor(const std::string& path, const std::vector<std::string>& extra_args = {});
  BackgroundProcess& process() { return proc_; }
  // True once `needle` appears in abmon's output, false after `deadline`.
  bool saw(const std::string& needle, std::chrono::milliseconds deadline = std::chrono::seconds(10));
  // Waits (up to `deadline`) for `tasks` task.exit records.
  bool wait_exits(std::size_t tasks, std::chrono::milliseconds deadline = std::chrono::seconds(60));
  // Stops abmon with SIGINT; its exit code goes to *exit_code; the records.
  std::vector<Record> finish(int* exit_code = nullptr);

 private:
  BackgroundProcess proc_;
};

}  // namespace xab::test

#endif
