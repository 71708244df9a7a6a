// snapshot.h -- one immutable picture of the trace and its analyses.
//
// The loader builds a ViewSnapshot from each TraceReader snapshot (the
// trace, the arrival order and per-task state spans the views draw from,
// and their mipmaps, and an Analysis: message matching, barriers, hang,
// pack mismatches, message lines) and hands it to the GUI as a
// shared_ptr<const ViewSnapshot>.  Nothing in it changes after it is
// built, so every view may read it without locks, and a view that still
// holds an old one keeps a consistent picture.
//
// Live, a snapshot costs the new records only: SnapshotBuilder extends the
// previous order, spans and mipmaps (their settled part is shared, not
// copied), and the Analysis, which costs the whole trace, is redone on a
// thread of its own as often as it can; a snapshot carries the newest finished one, which
// may cover fewer records than the trace (analysisComplete() says).  The
// snapshot at the end of the input, or caught up with it, is complete.
#pragma once

#include "message_lines.h"
#include "run_history.h"
#include "state_mipmap.h"

#include <xab/model/model.h>

#include <algorithm>
#include <compare>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace xab::view {

// Records of abmon itself (abmon.start/stop) belong to no task.
inline constexpr TaskIndex kMonitorTask = 0xFFFFFFFFu;

// One record in arrival order: which task's sequence, and where in it.
struct OrderEntry {
  TaskIndex task = 0;       // kMonitorTask: index is into Trace::monitorEvents()
  std::uint32_t index = 0;
};

// Every record in the order it arrived: position -> (task, index).  It
// keeps only the task, 2 bytes a record (4 with 65535 tasks or more): a
// task's records arrive in its call order, so their seq numbers rise and
// the index is a binary search in the task's records -- or, for a run of
// positions, a counter per task (forEach).
class ArrivalOrder {
 public:
  void build(const Trace& trace);
  // The same as build(trace) for a trace that extends the one this was
  // built for: only the new records cost.
  void extend(const Trace& trace);
  // extend(trace) by a walk of the caller's: walk(task, first, place) reads
  // the task's records from `first` (its first not in the order) to its
  // last, calling place(seq) with each one's seq, in order.  A caller that
  // reads them anyway (SnapshotBuilder, for the spans) decodes each block
  // once.
  template <class Walk>
  void extend(const Trace& trace, Walk&& walk);
  // The order of `next`, a later window of the trace this was built for
  // (ViewSnapshot::shiftOf): its first `carried` positions (records carried
  // across the cut) placed by their seq numbers, then this order from
  // `firstKept` on, moved as plain integers; extend() adds what is new.
  void carry(const Trace& next, std::size_t firstKept, std::uint32_t carried);
  // A copy for a snapshot of `trace`, sharing what is full (the copy must
  // not be extended).
  ArrivalOrder frozen(const Trace& trace) const;
  std::size_t size() const { return size_; }
  OrderEntry operator[](std::size_t position) const;
  TaskIndex taskAt(std::size_t position) const;
  // f(position, entry) for each position in [from, to), in order.
  template <class F>
  void forEach(std::size_t from, std::size_t to, F&& f) const;
  std::size_t memoryBytes() const { return narrow_.capacityBytes() + wide_.capacityBytes(); }

 private:
  std::uint32_t indexOf(TaskIndex task, std::size_t position) const;  // records of task before position
  void reset(const Trace& trace);                           // empty, for `trace`
  void appendRow(const std::vector<TaskIndex>& row, std::size_t total);  // each new position's task
  void push(TaskIndex t);
  const Trace* trace_ = nullptr;
  std::size_t size_ = 0;
  bool isNarrow_ = true;
  ChunkedVector<std::uint16_t, 10, 16> narrow_;  // the task, kNarrowMonitor for abmon's records
  ChunkedVector<TaskIndex, 10, 16> wide_;        // the same when there are too many tasks for 16 bits
  static constexpr std::uint16_t kNarrowMonitor = 0xFFFF;
};

// A state interval of a task, as the views read it.  It lasts until the
// next span begins; the last one is open.
struct Span {
  TimeNs begin = 0;
  std::uint32_t first = 0;  // the record that opened it
  TaskState state = TaskState::NotStarted;
};
// What a span keeps (5 bytes): a span begins at its first record's time,
// so the time is read from the record, and the spans of a trace on one
// time base are those of the same records on another.
struct [[gnu::packed]] SpanStart {
  std::uint32_t first = 0;
  TaskState state = TaskState::NotStarted;
};
// A task's spans in time order: the settled ones (which no later record
// can change) in chunks shared by every snapshot, the last few (whose state
// or extent the next record may still change) copied.  Each begins at its
// first record's time in `events` (the task's records in the snapshot's
// trace), or, for spans made without a trace, at a time of its own.
class SpanList {
 public:
  SpanList() = default;
  SpanList(ChunkedVector<SpanStart, 6, 12> settled, std::vector<SpanStart> tail, const EventStore* events)
      : settled_(std::move(settled)), tail_(std::move(tail)), events_(events) {}
  // Spans with their own times (a test's).
  SpanList(const ChunkedVector<Span, 6, 12>& settled, const std::vector<Span>& tail);
  std::size_t size() const { return settled_.size() + tail_.size(); }
  bool empty() const { return size() == 0; }
  Span operator[](std::size_t i) const {
    const SpanStart s = startOf(i);
    return {events_ ? (*events_)[s.first].time : begins_[i], s.first, s.state};
  }
  // Parts of span i, without reading its record.
  std::uint32_t firstAt(std::size_t i) const { return startOf(i).first; }
  TaskState stateAt(std::size_t i) const { return startOf(i).state; }
  TimeNs beginAt(std::size_t i) const { return events_ ? (*events_)[startOf(i).first].time : begins_[i]; }
  Span front() const { return (*this)[0]; }
  Span back() const { return (*this)[size() - 1]; }
  // The last span beginning at or before t (0 if none does), the spans in
  // time order: the last record at or before t (EventStore::partitionPoint,
  // a few of the records read), then the span it is in.
  std::size_t atOrBefore(TimeNs t) const;
  // Reads spans through a cursor of its own (one block of records held),
  // for a walk of one thread: in index order, each block is decoded once.
  class Reader;
  std::size_t memoryBytes() const {
    return settled_.capacityBytes() + tail_.capacity() * sizeof(SpanStart) + begins_.capacity() * sizeof(TimeNs);
  }

  class iterator {
   public:
    struct Arrow {
      Span span;
      const Span* operator->() const { return &span; }
    };
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Span;
    using difference_type = std::ptrdiff_t;
    using pointer = Arrow;
    using reference = Span;
    iterator() = default;
    iterator(const SpanList* l, std::size_t i) : l_(l), i_(static_cast<difference_type>(i)) {}
    reference operator*() const { return (*l_)[static_cast<std::size_t>(i_)]; }
    pointer operator->() const { return {**this}; }
    reference operator[](difference_type n) const { return *(*this + n); }
    iterator& operator++() { ++i_; return *this; }
    iterator operator++(int) { auto t = *this; ++i_; return t; }
    iterator& operator--() { --i_; return *this; }
    iterator operator--(int) { auto t = *this; --i_; return t; }
    iterator& operator+=(difference_type n) { i_ += n; return *this; }
    iterator& operator-=(difference_type n) { i_ -= n; return *this; }
    friend iterator operator+(iterator a, difference_type n) { return a += n; }
    friend iterator operator+(difference_type n, iterator a) { return a += n; }
    friend iterator operator-(iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) { return a.i_ - b.i_; }
    friend bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const iterator& a, const iterator& b) { return a.i_ <=> b.i_; }

   private:
    const SpanList* l_ = nullptr;
    difference_type i_ = 0;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }

 private:
  SpanStart startOf(std::size_t i) const { return i < settled_.size() ? settled_[i] : tail_[i - settled_.size()]; }
  ChunkedVector<SpanStart, 6, 12> settled_;
  std::vector<SpanStart> tail_;
  const EventStore* events_ = nullptr;  // null: begins_ holds the times
  std::vector<TimeNs> begins_;
};

class SpanList::Reader {
 public:
  explicit Reader(const SpanList& spans) : l_(&spans) {
    if (spans.events_) cursor_.emplace(*spans.events_);
  }
  std::size_t size() const { return l_->size(); }
  std::uint32_t firstAt(std::size_t i) const { return l_->firstAt(i); }
  TaskState stateAt(std::size_t i) const { return l_->stateAt(i); }
  TimeNs beginAt(std::size_t i) { return cursor_ ? (*cursor_)[l_->firstAt(i)].time : l_->begins_[i]; }
  Span operator[](std::size_t i) {
    const SpanStart s = l_->startOf(i);
    return {cursor_ ? (*cursor_)[s.first].time : l_->begins_[i], s.first, s.state};
  }

 private:
  const SpanList* l_;
  std::optional<EventStore::Cursor> cursor_;
};

// A mipmap of every span (none for fewer than kMipMinSpans): a finished
// task's, made in one go.
StateMipmap buildMipmap(const SpanList& spans);

inline TimeNs spanEnd(const SpanList& spans, std::size_t i) {
  return i + 1 < spans.size() ? spans.beginAt(i + 1) : kOpenEnd;
}

// A named destination that never received its message (no line for it).
struct Undelivered {
  std::uint32_t sendPos = 0;
  TaskIndex receiver = 0;
  std::uint32_t message = 0;
  std::int32_t bytes = 0;
};

// A user mark (xab_mark: a `mark` record) of the diagram, by time.
struct MarkAt {
  TimeNs time = 0;
  TaskIndex task = 0;
  std::uint32_t index = 0;  // the record, in the task's records
};

// What costs the whole trace, built on its own thread (see the top): the
// model's one chain of analyses (xab::analyse) and what the diagram draws
// from its results.
struct Analysis {
  xab::Analysis model;                    // messages, barriers, hang, mismatches; model.trace: the one it was made of
  HangText hangText;                      // model.hang in words (hang_text.h)
  std::uint64_t records = 0;              // model.trace->eventCount(): what it covers
  MessageLines lines;                     // by send time, of model.messages and model.trace
  std::vector<Undelivered> undelivered;   // by message
  std::vector<MarkAt> marks;              // by time
  struct Timing { double messages = 0, barriers = 0, hang = 0, mismatches = 0; } timing;
  double buildMs = 0;
};
using AnalysisPtr = std::shared_ptr<const Analysis>;

// The Why-slow analysis of an Analysis: wait states, their root causes,
// the critical path (the model's analyseWaits on its messages).  It costs
// a third of the Analysis, so it is made only once something shows it
// (ViewState::wantWhy), on a thread of its own, for the newest Analysis.
struct WhyAnalysis {
  WhyReport report;
  std::uint64_t records = 0;  // the Analysis it was made of covered these
  unsigned timeBase = 0;      // ViewSnapshot::timeBase and source it was made for
  std::string source;
  double buildMs = 0;
};
using WhyPtr = std::shared_ptr<const WhyAnalysis>;

// One record as a walk of the arrival order hands it out: its shape (kind,
// phase, which fields it has) read without decoding it, the whole event
// decoded when asked for (EventStore::Cursor).
class RecordRef {
 public:
  explicit RecordRef(const Event& e) : event_(&e) {}
  RecordRef(EventStore::Cursor& c, std::uint32_t index) : cursor_(&c), index_(index) {}
  EventStore::Shape shape() const {
    return event_ ? EventStore::Shape::of(*event_) : cursor_->shape(index_);
  }
  const Event& event() const { return event_ ? *event_ : (*cursor_)[index_]; }

 private:
  const Event* event_ = nullptr;
  EventStore::Cursor* cursor_ = nullptr;
  std::uint32_t index_ = 0;
};

struct ViewSnapshot {
  std::shared_ptr<const Trace> trace;
  ArrivalOrder order;                     // every record, in the order it arrived
  std::vector<SpanList> spans;            // per task, in time order
  // Per task, the states at levels of detail (the diagram at low zoom),
  // of the settled spans; none for a task of few spans.
  std::vector<StateMipmap> mipmaps;
  AnalysisPtr analysis;                   // never null once built
  // Null until asked for (ViewState::wantWhy); may be of an older analysis
  // (of fewer records) while the newest one's is made.
  WhyPtr whyAnalysis;
  unsigned timeBase = 0;  // the loader's count of time-base changes: times of another base are not comparable

  // The analysis covers every record of this snapshot.
  bool analysisComplete() const { return analysis && trace && analysis->records == trace->eventCount(); }
  // whyAnalysis is of this snapshot's analysis.
  bool whyReady() const { return whyAnalysis && analysis && analysis->model.trace && whyAnalysis->records == analysis->records; }
  const MessageTable& messages() const { return analysis->model.messages; }
  const BarrierAnalysis& barriers() const { return analysis->model.barriers; }
  const HangReport& hang() const { return analysis->model.hang; }
  const HangText& hangText() const { return analysis->hangText; }
  const MismatchReport& mismatches() const { return analysis->model.mismatch; }
  const FailureReport& failures() const { return analysis->model.failures; }
  const WhyReport& why() const;  // whyAnalysis's report, or an empty one
  const MessageLines& lines() const { return analysis->lines; }
  const std::vector<Undelivered>& undelivered() const { return analysis->undelivered; }
  TimeNs maxTransit() const { return analysis->lines.maxTransit(); }  // the longest line (visible-range search)
  const std::vector<MarkAt>& marks() const { return analysis->marks; }

  std::vector<ReadError> errors;          // malformed lines (kept ones)
  std::uint64_t errorCount = 0;
  std::string fatal;                      // the reader stopped: why
  std::string source;                     // file name or "stdin"
  std::string timeNote;                   // "global time", or why the task clocks are shown as recorded
  std::uint64_t bytes = 0;                // input bytes read
  // The input is over: a pipe closed, abmon.stop read, a file read once
  // (--no-follow).  Nothing more will come.
  bool inputEnded = false;
  // Everything written so far is read.  A followed file that its writer is
  // still appending to is caught up often; that is not the end of it.
  // (A pipe is caught up when nothing came for a moment.)
  bool caughtUp = false;
  bool followingFile = false;  // a regular file, followed as it grows
  // Records of the past read again from the input (TraceLoader::
  // readHistory), not the live window: the input goes on behind it.
  bool fromHistory = false;
  double buildMs = 0;                     // time this snapshot took (the analysis's is its own)
  std::int64_t takenMs = 0;               // real-time clock (ms) when the reader took this trace
  TimeNs newestArrival = 0;               // the latest recvTime, abmon's records too: the newest record's arrival

  std::size_t size() const { return order.size(); }
  // The run's position of this snapshot's position 0 (a budget's window,
  // records read again from the past: TraceCut; 0 for a whole trace).  A
  // view that keeps what it read of earlier snapshots starts again when
  // this changes: positions count from another record.
  std::uint64_t windowStart() const { return trace ? windowStartOf(*trace) : 0; }
  static std::uint64_t windowStartOf(const Trace& t) { return t.cut().cut ? t.cut().position - t.cut().carried : 0; }
  // Records of the run up to this snapshot's last (the window's start in
  // the run plus its records): what the reader's count is compared with.
  std::uint64_t runRecords() const { return windowStart() + size(); }
  // How this window continues an earlier one of the same run that a
  // budget's cut moved on from: the earlier one's position p, from
  // firstKept() on, is this one's p - shift; this one's first `carried`
  // positions are records carried across the cut (TraceCut::carried), new
  // to a view of the earlier window.  A view that kept what it read of the
  // earlier window (rows, counts) moves it rather than read it all again.
  struct Shift {
    std::uint64_t shift = 0;
    std::uint64_t carried = 0;
    std::uint64_t firstKept() const { return shift + carried; }
  };
  // The shift from the window that started at `start` (windowStart()) in
  // the run, `seen` of whose positions a view read; nullopt when this one
  // is not a later window of it holding some of those (the past read
  // again, a window before it, or one beyond what was seen: read it all).
  std::optional<Shift> shiftFrom(std::uint64_t start, std::uint64_t seen, bool wasFromHistory) const {
    if (!trace || fromHistory || wasFromHistory) return std::nullopt;
    return shiftOf(*trace, start, seen);
  }
  // The same for traces (SnapshotBuilder, which moves its order and spans).
  static std::optional<Shift> shiftOf(const Trace& later, std::uint64_t start, std::uint64_t seen) {
    if (!later.cut().cut || windowStartOf(later) <= start) return std::nullopt;
    const Shift s{windowStartOf(later) - start, later.cut().carried};
    if (s.firstKept() > seen) return std::nullopt;
    return s;
  }
  Event event(const OrderEntry& e) const;
  Event eventAt(std::size_t position) const { return event(order[position]); }
  // f(position, entry, event) for each position in [from, to), in order,
  // until f returns false (when it returns a bool): each task's events
  // decoded a block at a time by a cursor of its own, not one by one
  // through the store's shared cache (a walk of many tasks' interleaved
  // records reads about twice as fast).
  template <class F>
  void forEachEvent(std::size_t from, std::size_t to, F&& f) const;
  // The same with f(position, entry, record): a RecordRef, whose event is
  // decoded only if f asks for it (a filter by call or task reads the
  // shapes alone).
  template <class F>
  void forEachRecord(std::size_t from, std::size_t to, F&& f) const;
  // Events of `task` among the first `position` records of the arrival order.
  std::uint32_t prefixAt(TaskIndex task, std::size_t position) const;
  // The latest task time among the first `position` records: "now" at that
  // point (O(tasks log n)).
  TimeNs timeAt(std::size_t position) const;
  // Position in the arrival order of a task's record.
  std::size_t positionOf(EventRef ref) const;
  // The run's first time: the history's, once a memory budget cut records
  // away (times are shown from it).
  TimeNs firstTime() const {
    const TimeNs window = trace ? trace->firstTime() : 0;
    return history && !history->empty() ? std::min(history->origin(), window) : window;
  }
  TimeNs lastTime() const { return trace ? trace->lastTime() : 0; }

  // What a memory budget cut away before the trace's window, summarised
  // (run_history.h); null while nothing is cut.
  std::shared_ptr<const RunHistory> history;
  // The earliest time the diagram shows: the history's start, or tasksBegin.
  TimeNs runBegin() const { return history && !history->empty() ? std::min(history->origin(), tasksBegin) : tasksBegin; }
  TimeNs tasksBegin = 0;                  // the earliest task record (abmon.start may be earlier)
  TimeNs tasksEnd = 0;                    // the latest task record (abmon.stop may be later)
  TimeNs monitorEnd = 0;                  // abmon.stop's time, 0 while abmon runs
  // order: the walk of the new records that extends the order and the
  // spans; spans: the spans' copies for the snapshot; mipmaps: the newly
  // settled spans folded into them.
  struct Timing { double order = 0, spans = 0, mipmaps = 0; } timing;
};

template <class Walk>
void ArrivalOrder::extend(const Trace& trace, Walk&& walk) {
  const std::size_t total = trace.eventCount() + trace.monitorEvents().size();
  if (size_ > total || (isNarrow_ && trace.taskCount() >= kNarrowMonitor)) reset(trace);
  trace_ = &trace;
  // Each new position's task: each task's records from its first at or
  // after `from` (its seq numbers rise), placed at their numbers.
  const std::size_t from = size_;
  std::vector<TaskIndex> row(total > from ? total - from : 0, kMonitorTask);
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    walk(t, indexOf(t, from), [&](std::uint32_t seq) {
      if (seq >= from && seq < total) row[seq - from] = t;
    });
  appendRow(row, total);
}

template <class F>
void ArrivalOrder::forEach(std::size_t from, std::size_t to, F&& f) const {
  if (from >= to || !trace_) return;
  std::vector<std::uint32_t> next(trace_->taskCount() + 1);
  for (TaskIndex t = 0; t < trace_->taskCount(); ++t) next[t] = indexOf(t, from);
  next.back() = indexOf(kMonitorTask, from);
  for (std::size_t p = from; p < to && p < size_; ++p) {
    TaskIndex t = taskAt(p);
    std::uint32_t& n = next[t == kMonitorTask ? trace_->taskCount() : t];
    f(p, OrderEntry{t, n++});
  }
}

template <class F>
void ViewSnapshot::forEachRecord(std::size_t from, std::size_t to, F&& f) const {
  if (!trace) return;
  std::vector<std::unique_ptr<EventStore::Cursor>> cursors(trace->taskCount());
  const auto& monitor = trace->monitorEvents();
  bool stopped = false;
  order.forEach(from, to, [&](std::size_t p, const OrderEntry& e) {
    if (stopped) return;
    auto visit = [&](const RecordRef& r) {
      if constexpr (std::is_same_v<std::invoke_result_t<F&, std::size_t, const OrderEntry&, const RecordRef&>, bool>)
        stopped = !f(p, e, r);
      else
        f(p, e, r);
    };
    if (e.task == kMonitorTask) {
      visit(RecordRef(monitor[e.index]));
    } else {
      auto& c = cursors[e.task];
      if (!c) c = std::make_unique<EventStore::Cursor>(trace->events(e.task));
      visit(RecordRef(*c, e.index));
    }
  });
}

template <class F>
void ViewSnapshot::forEachEvent(std::size_t from, std::size_t to, F&& f) const {
  forEachRecord(from, to, [&](std::size_t p, const OrderEntry& e, const RecordRef& r) { return f(p, e, r.event()); });
}

// Builds the snapshots of one growing trace, each from the last: on the
// loader's thread, one at a time.
class SnapshotBuilder {
 public:
  // The order, spans and time bounds of `trace`, which extends the trace
  // of the previous call (or starts again when it does not); the analysis
  // is left to the caller.  On a new time base (`newTimeBase`: the times
  // changed, not only the records) the mipmaps are made again.
  std::shared_ptr<ViewSnapshot> update(std::shared_ptr<const Trace> trace, bool newTimeBase = false);

 private:
  struct TaskSpans {
    ChunkedVector<SpanStart, 6, 12> settled;
    std::vector<SpanStart> tail;
    std::uint32_t next = 0;  // the first record not in `settled`
    bool exited = false;     // spans end at an exit
    // Of settled[0, folded), made once there are kMipMinSpans (a builder
    // holds a few KiB: most tasks of a trace of thousands have none).
    std::unique_ptr<MipmapBuilder> mipmap;
    std::size_t folded = 0;
    // Under a budget, the mipmap's bins begin at the task's first record of
    // the run, and show only from the first record at or after `junction`
    // (the first of the window's own, after those carried across the cut)
    // that opens its own interval (opensOwnInterval): from there on the
    // window's spans are the run's (StateMipmap::from).
    std::uint32_t junction = 0;
    bool fromPending = false;                // no such record yet
    std::uint32_t fromRecord = UINT32_MAX;   // that record (UINT32_MAX: every bin shown)
    TimeNs mipFrom = INT64_MIN;              // its time
    void showFrom(std::uint32_t record, TimeNs time) {
      fromRecord = record;
      mipFrom = time;
      fromPending = false;
    }
  };
  // Task t's spans of `next`, a later window of the trace they were made
  // of (`shift`: ViewSnapshot::shiftOf): those from the first record after
  // the junction that opens its own interval moved (their first records
  // renumbered), those before it made again; the mipmap kept.
  void carrySpans(const Trace& next, const ViewSnapshot::Shift& shift);
  TaskSpans carryTask(const Trace& next, TaskIndex t, TaskSpans& old, std::uint32_t carried, std::uint32_t split);
  // Task t's spans from record ts.next on; place(seq) for each record from
  // firstNew on (ArrivalOrder::extend's walk).
  template <class Place>
  void extendSpans(const Trace& trace, TaskIndex t, TaskSpans& ts, std::uint32_t firstNew, Place&& place);
  // A trace that is a later window of the same run (a memory budget's
  // cut): the spans of what it dropped go into the history.
  void foldCut(const Trace& next);
  // The settled spans not in task t's mipmap yet, folded into it.
  static void foldMipmap(const EventStore& events, TimeNs origin, TaskSpans& ts);
  std::shared_ptr<const Trace> previous_;
  TimeNs previousBegin_ = 0;  // the run's first task time, before any cut
  std::shared_ptr<RunHistory> history_;
  ArrivalOrder order_;
  std::vector<TaskSpans> spans_;
};

// The whole-trace analyses of a snapshot's trace.
AnalysisPtr analyseSnapshot(const ViewSnapshot& s);

// The wait states of s.analysis (on the calling thread).
WhyPtr analyseWhy(const ViewSnapshot& s);

// A complete snapshot in one go (a finished file, a test, the benchmark);
// with its WhyAnalysis unless `why` is false (as the loader's come).
std::shared_ptr<ViewSnapshot> buildSnapshot(std::shared_ptr<const Trace> trace, bool why = true);

}  // namespace xab::view
