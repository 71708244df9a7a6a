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
  TimeNs firstTime = 0;      // task clock of its first / last record
  TimeNs lastTime = 0;
  ExitHow exit = ExitHow::None;
  TimeNs exitTime = 0;       // of the first exit/task.exit record
  std::int64_t lost = 0;     // events dropped, from abmon.lost n=
  std::int64_t lostMessages = 0;  // event messages missing, from abmon.lost messages=
  // The program abmon started (program.exit): its exit status as a shell
  // gives it and the signal that ended it (0: none); status -1: not that task.
  std::int32_t status = -1;
  std::int32_t signal = 0;
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
};

// Formatting helpers shared by abstat, the viewer and the translators.
std::string formatTid(Tid tid);                   // "t40002", "any", "-31"
std::string formatTag(std::int32_t tag);          // "16040", "any"
std::string formatSeconds(TimeNs t, TimeNs origin);  // "1.234567" seconds after origin

}  // namespace xab
