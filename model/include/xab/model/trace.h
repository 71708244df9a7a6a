// xab/model/trace.h -- the parsed trace: header, task table, events.
//
// A Trace is what a TraceReader builds.  The reader hands out immutable
// snapshots (std::shared_ptr<const Trace>); every analysis in this library
// is a pure function of a `const Trace&`, so it may run on any thread.
#pragma once

#include <xab/model/chunked_vector.h>
#include <xab/model/event.h>
#include <xab/model/event_store.h>
#include <xab/model/kinds.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xab {

// Where an event lives: task index and index in that task's event sequence.
struct EventRef {
  TaskIndex task = 0;
  std::uint32_t index = 0;
  friend bool operator==(EventRef, EventRef) = default;
};

enum class ExitHow : std::uint8_t { None, Exit, TaskExit };  // `exit` call / `task.exit` record

struct TaskInfo {
  Tid tid = 0;
  StrId name = -1;           // program name (name=), -1 if the task never said
  std::int32_t instance = 0; // order of first appearance among tasks of that name
  StrId host = -1;
  Tid parent = kNoTid;
  std::int32_t lang = -1;    // 0 c, 1 fortran, -1 unknown
  std::int32_t pid = 0;
  ExitHow exit = ExitHow::None;  // (here: in the padding before the times)
  TimeNs firstTime = 0;      // task clock of its first / last record
  TimeNs lastTime = 0;
  TimeNs exitTime = 0;       // of the first exit/task.exit record
  std::uint64_t exitPosition = 0;  // that record's arrival position in the run
  std::int64_t lost = 0;     // events dropped, from abmon.lost n=
  std::int64_t lostMessages = 0;  // event messages missing, from abmon.lost messages=
  // The program abmon started (program.exit): its exit status as a shell
  // gives it and the signal that ended it (0: none); status -1: not that task.
  std::int32_t status = -1;
  std::int32_t signal = 0;
};

// Where a trace starts in its run, when it holds only a part of it: a
// window cut by TraceReader::cut (a reader with SourceOptions::maxRecords)
// or a range read back by TraceSource::readRange.  Positions are arrival
// positions in the whole run (Event::seq of a trace read whole).
struct TraceCut {
  // The whole run's arrival position of this trace's first window record
  // (the one with seq == carried); 0 and !cut: not cut.
  std::uint64_t position = 0;
  TimeNs time = 0;            // the latest task time of the run's records before it
  std::uint64_t dropped = 0;  // records of the run before `position` this trace does not hold
  // Records from before `position` kept at its start (seq 0 .. carried-1,
  // in arrival order): each task's blocking calls still open at the cut
  // (their begins, so that a task blocked across the cut stays blocked,
  // since the time it began) and abmon's and its relays' start records.
  std::uint32_t carried = 0;
  bool cut = false;
};

// What a cut left out of one task's records (for the analyses: a receive
// whose send is before the cut, a barrier use counted before it).
struct CutTask {
  std::uint64_t dropped = 0;    // records of the task before the cut, not held
  TimeNs until = 0;             // the latest task time among them
  std::int32_t lastSerial = 0;  // the greatest send serial among them (0: none)
  bool sentUnnumbered = false;  // a send without serial among them
};

// Messages a cut left in flight: of one sender to one destination with one
// tag, the sends among the records before the cut less the receives among
// them (negative: a receive's record arrived before its send's).  What a
// receive the window does not hold (a task's last records that PVM's
// tracer lost) was waiting for.
struct InFlightAtCut {
  Tid to = 0;
  TaskIndex from = 0;
  std::int32_t tag = 0;
  std::int64_t count = 0;
};

struct TraceHeader {
  bool present = false;  // false: the input had no `#xab-trace` line
  int version = 0;
  Tid abmon = 0;
  std::string host;
  std::int32_t pid = 0;
  TimeNs start = 0;
};

class Trace {
 public:
  const TraceHeader& header() const { return header_; }

  std::size_t taskCount() const { return tasks_.size(); }
  const TaskInfo& task(TaskIndex t) const { return tasks_[t]; }
  std::optional<TaskIndex> findTask(Tid tid) const;
  // Events of one task in the order the task made its calls.
  const EventStore& events(TaskIndex t) const { return events_[t]; }
  Event event(EventRef r) const { return events_[r.task][r.index]; }
  // abmon.start / abmon.stop records (they belong to no task).
  const std::vector<Event>& monitorEvents() const { return monitor_; }
  // The tid that wrote monitorEvents()[i] (abmon, or a relay).
  Tid monitorTid(std::size_t i) const { return i < monitorTids_.size() ? monitorTids_[i] : header_.abmon; }
  // `clock` records of clocks that are no task's: a relay's against abmon's
  // (docs/global-time.md), by the relay's tid.
  const std::unordered_map<Tid, std::vector<Event>>& referenceClocks() const { return refClocks_; }

  std::uint64_t eventCount() const { return eventCount_; }
  TimeNs firstTime() const { return firstTime_; }  // min task time over all events
  TimeNs lastTime() const { return lastTime_; }    // max task time over all events
  bool stopped() const { return stopped_; }        // an abmon.stop record was read
  // The families of records some task omitted at some time (its `filter`
  // records: XAB_FILTER_* bits, xab/filter.h): what the trace cannot tell.
  std::uint32_t omitted() const { return omitted_; }

  // Where this trace starts in its run (TraceCut); cut() false: it holds
  // the run from its first record.
  const TraceCut& cut() const { return cut_; }
  // The whole run's arrival position of the record with this seq.
  std::uint64_t runPosition(std::uint32_t seq) const {
    if (seq < carriedPositions_.size()) return carriedPositions_[seq];
    return cut_.position + seq - cut_.carried;
  }
  // What the cut left out of task t's records (all zero when nothing).
  const CutTask& cutTask(TaskIndex t) const {
    static const CutTask none;
    return t < cutTasks_.size() ? cutTasks_[t] : none;
  }
  // Uses of a collective call (a barrier, reduce, gather, scatter: by
  // kind, group and count) that task t began before the cut: a use is
  // the n-th call of each task, counted from the run's start.
  std::uint32_t usesBefore(TaskIndex t, Kind kind, StrId group, std::int32_t count) const;
  // The messages to `to` in flight at the cut (InFlightAtCut), by sender
  // and tag; none with a count of 0.
  std::span<const InFlightAtCut> inFlightAtCut(Tid to) const;
  // A few of task t's `clock` records from before the cut (the run's first
  // kCutClocks and the last kCutClocks before it), for global time's fit.
  static constexpr std::size_t kCutClocks = 8;
  const std::vector<Event>& cutClocks(TaskIndex t) const {
    static const std::vector<Event> none;
    return t < cutClocks_.size() ? cutClocks_[t] : none;
  }

  std::string_view str(StrId id) const;            // "" for an unknown id
  std::span<const Tid> list(ListId id) const;      // empty for an unknown id

  // "(cholnode, 2)" as Xab shows a task; "(t40002)" when it has no name.
  std::string label(TaskIndex t) const;
  std::string_view taskName(TaskIndex t) const { return str(tasks_[t].name); }

  // Bytes held by events, strings and lists (for the memory figures).
  std::size_t memoryBytes() const;

 private:
  friend class TraceBuilder;
  friend struct TraceRedate;  // re-dates a trace its caller alone holds (clock_retime.cpp)
  // Everything of `from` but its events (strings and lists frozen: their
  // full chunks shared; the cut's state too), for a trace whose events the
  // caller supplies: a snapshot's frozen stores, a re-dated copy's.
  void copyAllButEvents(const Trace& from);
  TraceHeader header_;
  std::vector<TaskInfo> tasks_;
  std::vector<EventStore> events_;
  std::vector<Event> monitor_;
  std::vector<Tid> monitorTids_;  // parallel to monitor_
  std::unordered_map<Tid, std::vector<Event>> refClocks_;
  std::unordered_map<Tid, TaskIndex> byTid_;
  ChunkedVector<std::string, 6, 10> strings_;
  ChunkedVector<std::vector<Tid>, 4, 10> lists_;
  std::uint64_t eventCount_ = 0;
  TimeNs firstTime_ = 0;
  TimeNs lastTime_ = 0;
  bool stopped_ = false;
  std::uint32_t omitted_ = 0;
  TraceCut cut_;
  std::vector<std::uint64_t> carriedPositions_;  // the carried records' run positions
  std::vector<CutTask> cutTasks_;                // by task; empty when not cut
  std::vector<std::vector<Event>> cutClocks_;    // by task; empty when not cut
  struct UseKey {
    TaskIndex task;
    Kind kind;
    StrId group;
    std::int32_t count;
    friend bool operator==(const UseKey&, const UseKey&) = default;
  };
  std::vector<std::pair<UseKey, std::uint32_t>> usesBefore_;  // sorted by key
  std::vector<InFlightAtCut> inFlight_;  // sorted by (to, from, tag)
};

// Formatting helpers shared by abstat, the viewer and the translators.
std::string formatTid(Tid tid);                   // "t40002", "any", "-31"
std::string formatTag(std::int32_t tag);          // "16040", "any"
std::string formatSeconds(TimeNs t, TimeNs origin);  // "1.234567" seconds after origin

}  // namespace xab
