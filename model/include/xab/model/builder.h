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

  // TraceReader::cut with this builder's own seqs: keeps [from, to) and
  // what is carried over (cut.cpp).
  void cut(std::uint32_t from, std::uint32_t to);
  // The same cut in two steps, so that reading goes on while it is made
  // (TraceReader::cutAside): planCut makes the new window from a frozen
  // copy of this builder's trace (freeze(), `mark` its nextSeq()) on any
  // thread; applyCut, on the builder's thread, puts it in place with the
  // records taken since the copy, numbered on as after cut(from, end).
  // to == UINT32_MAX: the window runs to the end, records after the copy
  // included.
  struct CutPlan;
  static std::shared_ptr<CutPlan> planCut(std::shared_ptr<const Trace> frozen, std::uint32_t mark, std::uint32_t from,
                                          std::uint32_t to = UINT32_MAX);
  void applyCut(CutPlan& plan);
  // TraceReader::continueRun: the task table of `table`, records numbered
  // from whole-run position `position`.
  void continueRun(const Trace& table, std::uint64_t position, TimeNs before = 0);
  // Before any record: the task table of the cut trace `from` (every task,
  // in its order) and what its cut left out, for a copy of it made record
  // by record (global time's re-dating).
  void adoptCut(const Trace& from);
  // The whole run's arrival position of the next record.
  std::uint64_t runRecords() const { return trace_.cut_.position + seq_ - trace_.cut_.carried; }
  // The task table, its strings and the header, without records.
  std::shared_ptr<const Trace> taskTable() const;
  // The least and greatest task time since the last call (false: none).
  bool takeTimeSpan(TimeNs& first, TimeNs& last) {
    if (spanFirst_ > spanLast_) return false;
    first = spanFirst_, last = spanLast_;
    spanFirst_ = INT64_MAX, spanLast_ = INT64_MIN;
    return true;
  }

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
  TimeNs spanFirst_ = INT64_MAX, spanLast_ = INT64_MIN;  // takeTimeSpan
  TaskIndex adopted_ = 0;  // tasks taken from a table (continueRun): their start is the table's
};

// The one rule of open calls (what markInsideCall and a cut follow): one
// more record `e` of a task whose open blocking calls are `open`
// (innermost last; `kindOf` gives an item's kind), `item` pushed when e
// begins one.  Returns whether e was made inside a call.  abmon's and
// libab's notes are no calls; after lost records, or the task's end,
// nothing is open any more.
template <class T, class KindOf>
bool stepOpenCalls(std::vector<T>& open, const Event& e, const T& item, KindOf kindOf) {
  switch (e.kind) {
    case Kind::ABMON_LOST:
    case Kind::TASK_EXIT: open.clear(); return false;
    case Kind::ABMON_BAD:
    case Kind::CLOCK:
    case Kind::COST:
    case Kind::FLUSH: return false;
    default: break;
  }
  if (!open.empty() && e.kind == kindOf(open.back()) && !e.isBegin()) {
    open.pop_back();  // the call's end; inside the call around it, if any
  } else if (e.isBegin() && isBlocking(e.kind)) {
    const bool inside = !open.empty();
    open.push_back(item);
    return inside;
  }
  return !open.empty();
}

// A stored event as a record of plain values (views into the trace), for
// a RecordSink: the text writer, or another builder.  The task's identity
// is added when withIdentity (the task's first record carries it).
text::Record toRecord(const Trace& trace, TaskIndex task, std::uint32_t index, bool withIdentity);
// Any event of `trace` (a monitor record too) as a Record of task `tid`,
// its strings and lists resolved in `trace`: what copies a record from one
// trace into another (string and list ids are per trace).
text::Record toRecord(const Trace& trace, const Event& e, Tid tid);

}  // namespace xab
