// xab/model/builder.h -- TraceBuilder: the mutable side of a Trace, and
// the trace-format library's RecordSink that stores records as a Trace.
//
// Every importer writes into it: the reader (text lines, through the
// library's LineReader), picl2ab's PICL reader, the translators'
// TraceStream when it keeps a record.  None of them goes through text.
#pragma once

#include <xab/model/trace.h>
#include <xab/traceformat/record.h>

#include <memory>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace xab {

class TraceBuilder final : public text::RecordSink {
 public:
  TraceBuilder();

  // RecordSink: the header, and a record with its strings and lists copied.
  void header(const text::Header& h) override;
  void record(const text::Record& r) override;

  TraceHeader& header() { return trace_.header_; }
  const Trace& trace() const { return trace_; }

  TaskIndex taskFor(Tid tid);
  StrId intern(std::string_view s);
  ListId addList(std::vector<Tid> tids);

  // instance < 0: the next of that name (spawn order); an importer may give
  // it (picl2ab: the PICL node number).
  void setName(TaskIndex t, StrId name, std::int32_t instance = -1);
  TaskInfo& info(TaskIndex t) { return trace_.tasks_[t]; }

  void append(TaskIndex t, const Event& e);
  void appendMonitor(const Event& e, Tid tid);
  // A `clock` record of a relay (a tid that wrote monitor records).
  void appendReferenceClock(Tid tid, const Event& e);
  std::uint32_t nextSeq() const { return seq_; }

  // An immutable copy sharing every full chunk.
  std::shared_ptr<const Trace> freeze() const;
  std::shared_ptr<const Trace> take();

 private:
  void noteTime(TimeNs t);
  void markInsideCall(TaskIndex t, Event& e);
  void identity(TaskIndex t, const text::Identity& id);
  static text::Identity infoIdentity(const text::Record& r);

  Trace trace_;
  std::unordered_map<std::string_view, StrId> interned_;  // views into trace_.strings_
  std::unordered_map<StrId, std::int32_t> perName_;       // tasks seen per name
  std::uint32_t seq_ = 0;
  std::unordered_set<Tid> monitorTids_;  // abmon and its relays: their clock records are no task's
  Tid lastTid_ = 0;
  TaskIndex lastTask_ = 0;
  bool haveLast_ = false;
  // Per task, the blocking calls begun and not yet ended (their kinds),
  // innermost last: what marks a record Event::kInsideCall.
  std::vector<std::vector<Kind>> openCalls_;
};

// A stored event as a record of plain values (views into the trace), for
// a RecordSink: the text writer, or another builder.  The task's identity
// is added when withIdentity (the task's first record carries it).
text::Record toRecord(const Trace& trace, TaskIndex task, std::uint32_t index, bool withIdentity);
// Any event of `trace` (a monitor record too) as a Record of task `tid`,
// its strings and lists resolved in `trace`: what copies a record from one
// trace into another (string and list ids are per trace).
text::Record toRecord(const Trace& trace, const Event& e, Tid tid);

}  // namespace xab
