// record_set.h -- a record directory (XAB_RECORD=DIR: one t<tid>.rec per
// task, xab/record.h) read back, with every task named by its spawn path.
//
// A tid changes from run to run; a spawn path does not: "1" is the first
// task that no recorded task spawned (the command), "1.2" the second task
// "1" spawned (counting every pvm_spawn of "1" in order), and so on.  A
// message is named by its sender's path and the sender's serial.
//
// The one reader of record files: abreplay (plans, --dump) and the
// post-mortem date correction of a replay (correct.h) both use it.  The
// one writer of libab's replay plans (writePlans; docs/replay-plan.md).
// Also the writer of a record made from a full trace (recordFromTrace,
// abreplay --from-trace --write-record): write() puts back exactly the
// bytes a reading took (tests/replay checks it on libab's own records).
#ifndef XAB_REPLAY_RECORD_SET_H
#define XAB_REPLAY_RECORD_SET_H

#include <map>
#include <string>
#include <vector>

#include "xab/replay/host_clocks.h"
#include "xab/record.h"

namespace xab {
class Trace;
}

namespace xab::replay {

struct RecordedTask {
  std::string file;
  xab_rec_header header{};
  std::vector<xab_rec_entry> entries;
  std::string path;  // spawn path, set by RecordSet
};

class RecordSet {
 public:
  // Reads every *.rec of dir; throws std::runtime_error with a message
  // that names the file when one is not a record.
  explicit RecordSet(const std::string& dir);
  // Records already read (a test's synthetic ones): paths assigned the same way.
  explicit RecordSet(std::vector<RecordedTask> tasks);
  // A record directory, or a file holding a full trace read as a record
  // (recordFromTrace): what abreplay and every --replay-of take.  Throws
  // std::runtime_error naming the file and what is wrong.
  static RecordSet open(const std::string& dirOrTrace);

  const std::vector<RecordedTask>& tasks() const { return tasks_; }  // in path order
  // The task recorded under a spawn path, or null.
  const RecordedTask* find(const std::string& path) const;
  // One line per task and per recorded call, without tids or times: two
  // runs that took the same course dump the same text.
  std::string dump() const;
  // Writes DIR/<path>.plan for every task (what libab reads in replay).
  void writePlans(const std::string& dir) const;
  // The fits that put each host's stamps on the reference host's clock
  // (DIR/clocks, host_clocks.h), by host tid: empty when the record has
  // none, and its times are then each host's own clock.
  const std::map<std::int32_t, HostClockFit>& hostClocks() const { return host_clocks_; }
  // Writes DIR/t<tid>.rec for every task, as libab names and lays them
  // out (DIR is made; its earlier *.rec are removed).
  void write(const std::string& dir) const;

 private:
  void assignPaths();
  void putOnReferenceClock(const std::string& dir);  // host_clocks.cpp
  std::string senderOf(const xab_rec_entry& e) const;
  std::string callLine(const xab_rec_entry& e) const;
  std::vector<std::string> lines(const RecordedTask& t) const;
  std::vector<RecordedTask> tasks_;
  std::map<int, std::string> path_of_tid_;
  std::map<std::int32_t, HostClockFit> host_clocks_;
};

// A full trace (abmon's default mode) read as a record: per
// task with a receive-like call or spawn, what record mode would have
// logged -- every wildcard recv/precv and every trecv, nrecv and probe
// (which message, by its sender and serial; nothing; timed out; pending
// at the end), every spawn (tids, hosts), pvm_config and pvm_tasks
// results and handlers' messages -- numbered as libab numbers calls.  The
// message matching is the model's (matchMessages).  Throws
// std::runtime_error saying what is missing or ambiguous and where (task,
// call): receives without serial= (an older or translated trace), a
// received message whose send is not in the trace, lost events.
std::vector<RecordedTask> recordFromTrace(const Trace& trace);

}  // namespace xab::replay

#endif
