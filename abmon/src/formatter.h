// formatter.h -- event messages in, trace lines out (docs/trace-format.md).
//
// A pure function of the message bytes and the state kept per task (its
// string table, an INFO record waiting to be merged, a record waiting for
// its tid list), plus the task's protocol session (sessions.h: sequence
// numbers, final message, pokes), which it updates for the Monitor.  No PVM, no I/O: the caller hands in
// the sender's tid and the receive time and writes the text it gets back.
//
// A bad message or record never stops the formatter: it is counted, written
// as an `abmon.bad` record, reported to the ProblemSink, and skipped.
#ifndef XAB_ABMON_FORMATTER_H
#define XAB_ABMON_FORMATTER_H

#include <xab/wire.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "call_table.h"
#include "sessions.h"
#include "unpacker.h"

namespace xab::abmon {

// What can be wrong with a message (the first four) or a record in it.
enum class BadReason : std::uint8_t {
  Magic,      // not an xab event message
  Version,    // XAB_HDR_VERSION is not ours
  RecSize,    // XAB_HDR_RECSIZE is not sizeof(struct xab_event)
  Truncated,  // shorter than its header says, or impossible counts
  Kind,       // unknown event kind or phase, or a stray XAB_EV_TIDS record
  String,     // a string id the task never sent
  Tids,       // a tid list that did not get as many tids as it announced
  Time,       // a task time no reader can read (before 1970, after 2262)
  Seq,        // a sequence number that goes backwards
  Limit,      // a per-task bound was reached (strings, tid lists)
  Count_
};

// What the formatter keeps per task is bounded (docs/abmon.md, "Bounds"),
// and every line it writes stays readable by the model's reader (whose
// longest line is 1 MiB: 5 strings of 3 x kMaxStringBytes escaped, plus
// info's 2, plus kMaxListTids tids of at most 12 characters stay below it).
inline constexpr std::size_t kMaxStringBytes = 16 * 1024;            // longer: cut
inline constexpr std::size_t kMaxTaskStrings = 65536;                // more: dropped
inline constexpr std::size_t kMaxTaskStringBytes = 8 * 1024 * 1024;  // more: dropped
inline constexpr std::uint64_t kMaxListTids = 32768;                 // more: not kept
// Task times abmon writes: 0 .. 9223372035.999999999 s.  The trace format
// carries negative times too (an importer's), but a task clock before 1970
// is a corrupt record, not a time.
inline constexpr std::int64_t kMaxTaskTimeNs = 9'223'372'035'999'999'999;
std::string_view badReasonName(BadReason reason);

struct Problem {
  BadReason reason;
  std::int32_t tid;   // the sender
  std::uint32_t n;    // records skipped (0: unknown)
};

struct Counters {
  std::uint64_t messages = 0;  // event messages handed in
  std::uint64_t events = 0;    // task records written
  std::uint64_t tasks = 0;     // senders heard from
  std::uint64_t bad = 0;       // abmon.bad records written
  std::array<std::uint64_t, static_cast<std::size_t>(BadReason::Count_)> badByReason{};
};

class Formatter {
 public:
  using ProblemSink = std::function<void(const Problem&)>;

  Formatter(std::int32_t abmonTid, Sessions& sessions, ProblemSink sink = {});

  // "#xab-trace 1 abmon=... host=... pid=... start=..." (one line).
  void header(std::string& out, std::string_view host, long pid, std::int64_t startNs) const;
  // The abmon.start record.
  void start(std::string& out, std::int64_t nowNs, int batch, int flushMs) const;
  // One received event message from `src`, stamped `recvNs`.
  void message(std::string& out, std::int32_t src, std::int64_t recvNs, Unpacker& msg);
  // pvmd said `tid` has gone: whatever is held back for it, then task.exit
  // (how=notify; how=host when its host left the virtual machine).  taskNs:
  // its task time on the task's own clock (a task PVM traces), else nowNs.
  void taskExit(std::string& out, std::int32_t tid, std::int64_t nowNs,
                std::string_view how = "notify", std::optional<std::int64_t> taskNs = std::nullopt);
  // Everything held back for every task (a relay's last batch).
  void flushAll(std::string& out, std::int64_t nowNs);
  // The program abmon started (`abmon -- PROGRAM`) has ended: its task
  // (0: it never enrolled), its status as a shell gives it, the signal
  // that ended it (0: it exited).
  void programExit(std::string& out, std::int64_t nowNs, std::int32_t tid, int status, int signal) const;
  // flushAll, then abmon.stop; `traced` records and tasks are PVM's
  // tracer's (abmon --pvm-tracer), counted with libab's.
  void stop(std::string& out, std::int64_t nowNs, std::uint64_t tracedEvents = 0, std::uint64_t tracedTasks = 0);

  const Counters& counters() const { return counters_; }
  // A task's spawn record has been written with these tids (its tids=).
  using Spawned = std::function<void(std::int32_t parent, const std::vector<int>& tids)>;
  void onSpawn(Spawned f) { spawned_ = std::move(f); }
  // A task's identity (libab's info: its parent tid, negative for none,
  // and its process id) has come.
  using Identified = std::function<void(std::int32_t tid, std::int32_t parent, std::int32_t pid)>;
  void onIdentity(Identified f) { identified_ = std::move(f); }
  // This abmon's (or relay's) host name, for the tasks of its host that a
  // spawn record names and that never speak (spawnedIdentity).
  void setHost(std::string host) { host_ = std::move(host); }
  // A task of this host named in a spawn record that has sent nothing (its
  // only PVM call was pvm_exit: libpvm never enrolled it): an `info` record
  // with its name (the spawn's file), host and parent (the spawner), before
  // its task.exit.  Nothing for any other task.
  void spawnedIdentity(std::string& out, std::int32_t tid, std::int64_t nowNs);
  // The program abmon started ran as task `tid` and no record of that task
  // came (the PVM console, a program without libab): an `info` record with
  // its name (its process's program) and host, before program.exit.
  // Nothing for a task that has spoken.
  void silentProgram(std::string& out, std::int32_t tid, std::string_view name, std::int64_t nowNs);

 private:
  struct PendingList {  // a record whose tid list is still arriving
    xab_event ev;
    std::int64_t recvNs;
    std::uint64_t expected;
    std::uint64_t received = 0;  // tids come; the first kMaxListTids are kept
    std::vector<std::int32_t> tids;
  };
  struct TaskState {
    std::unordered_map<std::int32_t, std::string> strings;
    std::size_t stringBytes = 0;  // sum of the strings' sizes (kMaxTaskStringBytes)
    std::string info;  // " name=.. host=.. ..." for the task's next record
    std::optional<PendingList> pending;
  };
  using Tally = std::array<std::uint32_t, static_cast<std::size_t>(BadReason::Count_)>;

  TaskState& task(std::int32_t tid);
  bool readBody(Unpacker& msg, const std::int32_t* hdr, bool& swap);
  void keepStrings(TaskState& st, Tally& tally);
  void checkSequence(std::string& out, Session& ses, std::int32_t src, std::int64_t recvNs,
                      const std::int32_t* hdr, Tally& tally);
  void record(std::string& out, TaskState& st, std::int32_t src, std::int64_t recvNs,
              const xab_event& ev, Tally& tally);
  void continuation(std::string& out, TaskState& st, std::int32_t src, const xab_event& ev,
                    Tally& tally);
  void flushPending(std::string& out, TaskState& st, std::int32_t src, Tally& tally);
  void flushTask(std::string& out, std::int32_t tid, TaskState& st, std::int64_t nowNs);
  bool stringsKnown(const TaskState& st, const std::vector<Slot>& slots,
                     const xab_event& ev) const;
  void writeRecord(std::string& out, TaskState& st, std::int32_t src, std::int64_t recvNs,
                    const xab_event& ev, const std::vector<std::int32_t>& tids);
  void appendSlots(std::string& out, const TaskState& st, const std::vector<Slot>& slots,
                    const xab_event& ev, const std::vector<std::int32_t>& tids) const;
  void ownRecord(std::string& out, std::int64_t ns, std::int32_t tid, Kind kind) const;
  static void ownField(std::string& out, Key key, std::int64_t value);
  void writeBad(std::string& out, std::int32_t src, std::int64_t ns, const Tally& tally);
  void writeBad(std::string& out, std::int32_t src, std::int64_t ns, BadReason reason,
                 std::uint32_t n);

  const CallTable& calls_;
  Sessions& sessions_;
  std::int32_t abmonTid_;
  ProblemSink sink_;
  Spawned spawned_;
  Identified identified_;
  Counters counters_;
  std::unordered_map<std::int32_t, TaskState> tasks_;
  struct SpawnedBy {
    std::int32_t parent;
    std::string name;
  };
  // Tasks of this host named in spawn records (the last kMaxSpawned).
  std::unordered_map<std::int32_t, SpawnedBy> spawnedBy_;
  std::unordered_set<std::int32_t> spoke_;  // tids that sent records (tasks_ forgets exited ones)
  std::string host_;
  // Scratch space reused by every message.
  std::vector<std::pair<std::int32_t, std::string>> strings_;
  std::vector<std::byte> records_;
};

}  // namespace xab::abmon

#endif
