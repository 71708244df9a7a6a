#include "snapshot.h"

#include <xab/model/memory.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>

namespace xab::view {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// The first element of seq-ordered records whose seq is >= position.
template <class Seq>
std::uint32_t seqLowerBound(const Seq& records, std::size_t position) {
  std::size_t lo = 0, hi = records.size();
  while (lo < hi) {
    std::size_t mid = lo + (hi - lo) / 2;
    if (records[mid].seq < position) lo = mid + 1;
    else hi = mid;
  }
  return static_cast<std::uint32_t>(lo);
}

// A task's records: searched block by block (EventStore::partitionPoint).
std::uint32_t seqLowerBound(const EventStore& ev, std::size_t position) {
  return static_cast<std::uint32_t>(ev.partitionPoint([position](const Event& e) { return e.seq < position; }));
}

// The lines (of the trace the analysis keeps: they read its records) and
// the named destinations that never received.
void buildLines(Analysis& a) {
  const Trace& trace = *a.model.trace;
  const MessageTable& table = a.model.messages;
  a.lines.build(table, trace);
  a.undelivered.clear();
  for (std::uint32_t m = 0; m < table.messages.size(); ++m) {
    if (table.messages.unreceived(m).empty()) continue;
    const Message msg = table.messages[m];
    const std::uint32_t sendPos = trace.event(msg.send).seq;
    for (Tid d : msg.unreceived)
      if (auto r = trace.findTask(d)) a.undelivered.push_back({sendPos, *r, m, msg.bytes});
  }
}

void buildTimeBounds(const Trace& tr, ViewSnapshot& s) {
  s.tasksBegin = tr.taskCount() ? INT64_MAX : tr.firstTime();
  s.tasksEnd = tr.taskCount() ? INT64_MIN : tr.lastTime();
  for (TaskIndex t = 0; t < tr.taskCount(); ++t) {
    s.tasksBegin = std::min(s.tasksBegin, tr.task(t).firstTime);
    s.tasksEnd = std::max(s.tasksEnd, tr.task(t).lastTime);
  }
  // The newest record of any: abmon's own (its clock records, samples, its
  // stop) are records shown too.  A program's last records are followed by
  // abmon's stop after a quiet time of its own: the picture that shows the
  // stop shows the newest there is, not the program's last record aged.
  for (const Event& e : tr.monitorEvents()) {
    if (e.kind == Kind::ABMON_STOP) s.monitorEnd = e.time;
    s.newestArrival = std::max(s.newestArrival, e.recvTime);
  }
  for (TaskIndex t = 0; t < tr.taskCount(); ++t)
    if (!tr.events(t).empty()) s.newestArrival = std::max(s.newestArrival, tr.events(t).back().recvTime);
}

bool sameState(const StateInterval& x, const StateInterval& y) {
  return x.state == y.state && x.call == y.call && x.a == y.a && x.b == y.b;
}

}  // namespace

// Records are numbered in arrival order without gaps (Event::seq), so the
// order is filled by placing each record's task at its number: no sort.
void ArrivalOrder::build(const Trace& trace) {
  reset(trace);
  extend(trace);
}

void ArrivalOrder::reset(const Trace& trace) {
  trace_ = &trace;
  size_ = 0;
  isNarrow_ = trace.taskCount() < kNarrowMonitor;
  narrow_ = {};
  wide_ = {};
}

void ArrivalOrder::extend(const Trace& trace) {
  extend(trace, [&](TaskIndex t, std::uint32_t first, auto&& place) {
    const auto& ev = trace.events(t);
    EventStore::Cursor cursor(ev);
    for (std::size_t i = first; i < ev.size(); ++i) place(cursor[i].seq);
  });
}

ArrivalOrder ArrivalOrder::frozen(const Trace& trace) const {
  ArrivalOrder copy;
  copy.trace_ = &trace;
  copy.size_ = size_;
  copy.isNarrow_ = isNarrow_;
  copy.narrow_ = narrow_.freeze();
  copy.wide_ = wide_.freeze();
  return copy;
}

void ArrivalOrder::appendRow(const std::vector<TaskIndex>& row, std::size_t total) {
  for (TaskIndex t : row) push(t);
  size_ = total;
}

void ArrivalOrder::push(TaskIndex t) {
  if (isNarrow_) narrow_.push_back(t == kMonitorTask ? kNarrowMonitor : static_cast<std::uint16_t>(t));
  else wide_.push_back(t);
}

void ArrivalOrder::carry(const Trace& next, std::size_t firstKept, std::uint32_t carried) {
  ArrivalOrder out;
  out.trace_ = &next;
  out.isNarrow_ = isNarrow_;
  std::vector<TaskIndex> row(carried, kMonitorTask);  // a task's carried records are its first
  for (TaskIndex t = 0; t < next.taskCount(); ++t) {
    const auto& ev = next.events(t);
    EventStore::Cursor c(ev);
    for (std::size_t i = 0; i < ev.size() && c[i].seq < carried; ++i) row[c[i].seq] = t;
  }
  out.appendRow(row, carried);
  if (isNarrow_) out.narrow_.append(narrow_, firstKept);
  else out.wide_.append(wide_, firstKept);
  out.size_ = carried + (size_ > firstKept ? size_ - firstKept : 0);
  *this = std::move(out);
}

TaskIndex ArrivalOrder::taskAt(std::size_t p) const {
  if (isNarrow_) return narrow_[p] == kNarrowMonitor ? kMonitorTask : narrow_[p];
  return wide_[p];
}

std::uint32_t ArrivalOrder::indexOf(TaskIndex task, std::size_t position) const {
  if (position == 0) return 0;  // a walk from the start searches nothing
  if (task == kMonitorTask) return seqLowerBound(trace_->monitorEvents(), position);
  return seqLowerBound(trace_->events(task), position);
}

OrderEntry ArrivalOrder::operator[](std::size_t p) const {
  TaskIndex t = taskAt(p);
  std::uint32_t i = indexOf(t, p);
  // A position no record filled (not expected) reads as abmon's first, as before.
  if (t == kMonitorTask && (i >= trace_->monitorEvents().size() || trace_->monitorEvents()[i].seq != p)) i = 0;
  return {t, i};
}

Event ViewSnapshot::event(const OrderEntry& e) const {
  if (e.task == kMonitorTask) return trace->monitorEvents()[e.index];
  return trace->events(e.task)[e.index];
}

std::uint32_t ViewSnapshot::prefixAt(TaskIndex task, std::size_t position) const {
  // A task's records arrive in its call order, so their seq numbers rise.
  return seqLowerBound(trace->events(task), position);
}

TimeNs ViewSnapshot::timeAt(std::size_t position) const {
  if (!trace) return 0;
  TimeNs latest = tasksBegin;
  for (TaskIndex t = 0; t < trace->taskCount(); ++t) {
    std::uint32_t n = position >= size() ? static_cast<std::uint32_t>(trace->events(t).size()) : prefixAt(t, position);
    if (n > 0) latest = std::max(latest, trace->events(t)[n - 1].time);
  }
  return latest;
}

std::size_t ViewSnapshot::positionOf(EventRef ref) const { return trace->event(ref).seq; }

SpanList::SpanList(const ChunkedVector<Span, 6, 12>& settled, const std::vector<Span>& tail) {
  begins_.reserve(settled.size() + tail.size());
  auto add = [&](const Span& sp) {
    tail_.push_back({sp.first, sp.state});
    begins_.push_back(sp.begin);
  };
  settled.forEach(add);
  for (const Span& sp : tail) add(sp);
}

std::size_t SpanList::atOrBefore(TimeNs t) const {
  std::size_t k = 0;  // spans beginning at or before t
  if (events_) {
    const std::size_t records = events_->partitionPoint([t](const Event& e) { return e.time <= t; });
    if (records == 0) return 0;
    // Spans whose first record is at or before the last of those.
    std::size_t lo = 0, hi = size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (firstAt(mid) < records) lo = mid + 1;
      else hi = mid;
    }
    k = lo;
  } else {
    k = static_cast<std::size_t>(std::upper_bound(begins_.begin(), begins_.end(), t) - begins_.begin());
  }
  return k == 0 ? 0 : k - 1;
}

StateMipmap buildMipmap(const SpanList& spans) {
  if (spans.size() < kMipMinSpans) return {};
  SpanList::Reader read(spans);
  MipmapBuilder m;
  m.expect(read.beginAt(0), read.beginAt(spans.size() - 1));
  foldSpans(read, 0, m);
  return m.freeze();
}

// As stateIntervals(), from record ts.next on.  The spans before the last
// two are settled: a new record can change the state of the gap after the
// record before it (packing or sending depends on what comes next), which
// may then join the span before; nothing earlier.  So the last two spans
// are built again from their first record each time.
template <class Place>
void SnapshotBuilder::extendSpans(const Trace& trace, TaskIndex t, TaskSpans& ts, std::uint32_t firstNew, Place&& place) {
  const auto& ev = trace.events(t);
  std::vector<SpanStart> tail;
  std::optional<StateInterval> open;  // the last interval, whole (sameState needs all of it)
  bool exited = ts.exited;
  EventStore::Cursor cursor(ev);
  // One walk from the first record either needs: the new records' seqs
  // first, each interval's records after (a block read once).
  for (std::size_t i = std::min<std::size_t>(firstNew, ts.next); i < ev.size(); ++i) {
    if (i >= firstNew) place(cursor[i].seq);
    if (ts.fromPending && i >= ts.junction && opensOwnInterval(cursor[i])) {
      ts.showFrom(static_cast<std::uint32_t>(i), cursor[i].time);
    }
    if (exited || i < ts.next) continue;
    StateInterval iv = intervalAfter(trace, t, static_cast<std::uint32_t>(i), cursor);
    if (open && sameState(*open, iv) && open->end == iv.begin) {
      open->end = iv.end;
    } else {
      tail.push_back({iv.first, iv.state});
      open = iv;
    }
    exited = iv.state == TaskState::Exited;
  }
  if (ts.exited) return;
  // All but the last two become settled; the tail restarts at the first of those.
  if (tail.size() > 2) {
    const auto keep = tail.end() - 2;
    for (auto it = tail.begin(); it != keep; ++it) ts.settled.push_back(*it);
    tail = std::vector<SpanStart>(keep, tail.end());  // not erase(): that would keep the whole capacity
  }
  ts.next = tail.empty() ? ts.next : tail.front().first;
  if (exited) {  // an exit ends the task's spans: nothing after it counts
    for (const SpanStart& sp : tail) ts.settled.push_back(sp);
    tail.clear();
    ts.next = static_cast<std::uint32_t>(ev.size());
    ts.exited = true;
  }
  ts.tail = std::move(tail);
}

std::shared_ptr<ViewSnapshot> SnapshotBuilder::update(std::shared_ptr<const Trace> trace, bool newTimeBase) {
  auto started = Clock::now();
  auto s = std::make_shared<ViewSnapshot>();
  s->takenMs = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  s->trace = std::move(trace);
  const Trace& tr = *s->trace;
  // Another trace, or one that is not an extension of the last (another
  // window of the run, fewer tasks or records): start again.
  bool extends = previous_ && previous_->cut().position == tr.cut().position &&
                 previous_->taskCount() <= tr.taskCount() &&
                 previous_->eventCount() <= tr.eventCount() &&
                 previous_->monitorEvents().size() <= tr.monitorEvents().size();
  for (TaskIndex t = 0; extends && t < previous_->taskCount(); ++t)
    extends = previous_->events(t).size() <= tr.events(t).size();
  // A later window of the run (a budget's cut): what it dropped goes to the
  // history, and the order and spans of what it kept are moved, not made
  // again (only new records cost, and a few at each task's junction).
  std::optional<ViewSnapshot::Shift> shift;
  if (!extends && previous_ && tr.cut().position > previous_->cut().position) {
    foldCut(tr);
    if (previous_->taskCount() <= tr.taskCount())
      shift = ViewSnapshot::shiftOf(tr, ViewSnapshot::windowStartOf(*previous_), order_.size());
    // Every record of the old window from firstKept on is in the new one (a
    // window, not a range read back from the middle of a run).
    if (shift && tr.eventCount() + tr.monitorEvents().size() < shift->carried + order_.size() - shift->firstKept())
      shift.reset();
  }
  if (shift) {
    carrySpans(tr, *shift);
    order_.carry(tr, shift->firstKept(), static_cast<std::uint32_t>(shift->carried));
  } else if (!extends) {
    spans_.clear();
    order_ = ArrivalOrder();  // the walk below fills it from the start
  }
  if (newTimeBase)  // the mipmaps' bins are of the old times
    for (TaskIndex i = 0; i < spans_.size(); ++i) {
      TaskSpans& ts = spans_[i];
      ts.mipmap.reset();
      ts.folded = 0;
      if (ts.fromRecord != UINT32_MAX) ts.mipFrom = tr.events(i)[ts.fromRecord].time;
    }
  s->history = history_;
  auto t = Clock::now();
  buildTimeBounds(tr, *s);
  const std::size_t known = extends || shift ? spans_.size() : 0;
  spans_.resize(tr.taskCount());
  // A fresh start on a cut trace: each task's mipmap shows from its junction on.
  for (TaskIndex i = static_cast<TaskIndex>(known); tr.cut().cut && i < tr.taskCount(); ++i) {
    const std::uint32_t carried = seqLowerBound(tr.events(i), tr.cut().carried);
    spans_[i].junction = carried;
    spans_[i].fromPending = carried > 0 || tr.cutTask(i).dropped > 0;
  }
  order_.extend(tr, [&](TaskIndex i, std::uint32_t first, auto&& place) { extendSpans(tr, i, spans_[i], first, place); });
  s->order = order_.frozen(tr);
  s->timing.order = msSince(t);
  t = Clock::now();
  s->spans.reserve(tr.taskCount());
  s->mipmaps.resize(tr.taskCount());
  for (TaskIndex i = 0; i < tr.taskCount(); ++i) {
    s->spans.emplace_back(spans_[i].settled.freeze(), spans_[i].tail, &tr.events(i));
    const auto m = Clock::now();
    foldMipmap(tr.events(i), tr.task(i).firstTime, spans_[i]);
    if (spans_[i].mipmap && spans_[i].settled.size() >= kMipMinSpans) {  // as a fresh build's
      s->mipmaps[i] = spans_[i].mipmap->freeze();
      s->mipmaps[i].from = spans_[i].fromPending ? INT64_MAX : spans_[i].mipFrom;
    }
    s->timing.mipmaps += msSince(m);
  }
  s->timing.spans = msSince(t) - s->timing.mipmaps;
  s->buildMs = msSince(started);
  previous_ = s->trace;
  if (!s->history) previousBegin_ = s->tasksBegin;
  return s;
}

// The settled spans, each ending where the next begins (the first of the
// tail for the last), read from their records in order.
void SnapshotBuilder::foldMipmap(const EventStore& events, TimeNs origin, TaskSpans& ts) {
  if (ts.settled.size() < kMipMinSpans) return;
  struct Settled {
    const TaskSpans& ts;
    EventStore::Cursor records;
    std::size_t size() const { return ts.settled.size() + (ts.tail.empty() ? 0 : 1); }
    TaskState stateAt(std::size_t i) const { return i < ts.settled.size() ? ts.settled[i].state : ts.tail[0].state; }
    TimeNs beginAt(std::size_t i) {
      return records[i < ts.settled.size() ? ts.settled[i].first : ts.tail[0].first].time;
    }
  } spans{ts, EventStore::Cursor(events)};
  if (!ts.mipmap) {  // its bins from the task's first record of the run, as wide as the spans so far need
    ts.mipmap = std::make_unique<MipmapBuilder>();
    ts.mipmap->expect(std::min(origin, spans.beginAt(0)), spans.beginAt(spans.size() - 1));
  }
  ts.folded = foldSpans(spans, ts.folded, *ts.mipmap);
}

void SnapshotBuilder::carrySpans(const Trace& next, const ViewSnapshot::Shift& shift) {
  const Trace& old = *previous_;
  for (TaskIndex t = 0; t < spans_.size() && t < old.taskCount(); ++t) {
    const std::uint32_t carried = seqLowerBound(next.events(t), shift.carried);
    const std::uint32_t split = seqLowerBound(old.events(t), shift.firstKept());
    if (carried == 0 && split == 0) continue;  // nothing of it dropped or carried: as it was
    spans_[t] = carryTask(next, t, spans_[t], carried, split);
  }
}

// The head (from record 0 to the first at or after the junction that
// opens its own interval, j) made as a fresh build makes it: each interval
// depends on its own record, the one before it that is no note and those
// up to the next that is none, or, made inside a call, on the call's begin,
// which may be before the junction.  From j on every interval is the one
// the old window's record gave, so its spans after j are moved.
SnapshotBuilder::TaskSpans SnapshotBuilder::carryTask(const Trace& next, TaskIndex t, TaskSpans& old,
                                                      std::uint32_t carried, std::uint32_t split) {
  const auto& ev = next.events(t);
  const std::size_t oldSize = previous_->events(t).size();
  const std::size_t held = carried + (oldSize - split);  // records of the new window the old one held
  TaskSpans out;
  out.junction = carried;
  out.fromPending = true;
  EventStore::Cursor cursor(ev);
  std::vector<SpanStart> head;
  std::optional<StateInterval> open;
  bool exited = false;
  std::size_t j = held;
  for (std::size_t i = 0; i < held; ++i) {
    if (!exited) {
      StateInterval iv = intervalAfter(next, t, static_cast<std::uint32_t>(i), cursor);
      if (open && sameState(*open, iv) && open->end == iv.begin) {
        open->end = iv.end;
      } else {
        head.push_back({iv.first, iv.state});
        open = iv;
      }
      exited = iv.state == TaskState::Exited;
    }
    if (i >= carried && opensOwnInterval(cursor[i])) {
      j = i;
      out.showFrom(static_cast<std::uint32_t>(i), cursor[i].time);
      break;
    }
  }
  const std::size_t n = old.settled.size() + old.tail.size();
  auto oldAt = [&](std::size_t k) { return k < old.settled.size() ? old.settled[k] : old.tail[k - old.settled.size()]; };
  auto moved = [&](std::size_t k) {
    SpanStart sp = oldAt(k);
    sp.first = static_cast<std::uint32_t>(sp.first - split + carried);
    return sp;
  };
  if (exited) {  // an exit ends the task's spans
    for (const SpanStart& sp : head) out.settled.push_back(sp);
    out.next = static_cast<std::uint32_t>(ev.size());
    out.exited = true;
    return out;
  }
  const std::size_t i = j - carried + split;  // j in the old window
  // The old spans after j's (binary search on their first records).
  std::size_t lo = 0, hi = n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (oldAt(mid).first <= i) lo = mid + 1;
    else hi = mid;
  }
  const std::size_t k = lo;
  // No such record, or the old spans ended (an exit) before it: made again.
  if (j == held || (old.exited && (n == 0 || oldAt(n - 1).first <= i))) {
    TaskSpans fresh;
    fresh.junction = carried;
    fresh.fromPending = true;
    return fresh;
  }
  if (k < n && (old.exited || (k <= old.settled.size() && !old.tail.empty()))) {  // the old tail moved as the tail
    for (const SpanStart& sp : head) out.settled.push_back(sp);
    for (std::size_t m = k; m < old.settled.size(); ++m) out.settled.push_back(moved(m));
    for (std::size_t m = old.settled.size(); m < n; ++m) out.tail.push_back(moved(m));
    out.next = static_cast<std::uint32_t>(old.next - split + carried);
    out.exited = old.exited;
  } else {  // j in the old tail, or no span after it: the last two spans are the tail
    std::vector<SpanStart> all = head;
    for (std::size_t m = k; m < n; ++m) all.push_back(moved(m));
    const std::size_t settle = all.size() > 2 ? all.size() - 2 : 0;
    for (std::size_t m = 0; m < settle; ++m) out.settled.push_back(all[m]);
    out.tail.assign(all.begin() + static_cast<std::ptrdiff_t>(settle), all.end());
    out.next = out.tail.front().first;
  }
  // The mipmap's bins from j's time on are the same: kept, its folded
  // spans renumbered (made again if it had not folded up to j's).
  if (old.mipmap && old.folded >= k) {
    out.mipmap = std::move(old.mipmap);
    out.folded = old.folded - k + head.size();
  }
  return out;
}

// The spans of the records a cut dropped, folded into a copy of the
// history: each task's up to its first record in the new window (all of
// them, to the cut's time, for a task with none in it).  A span begins at
// its first record's time, so the spans cost their records' blocks: a task
// with a mipmap gives the bins it shows instead (its finest, each in the
// state that covered most of it, a fraction of a history bin), its spans
// only before the first and after the last of those.
void SnapshotBuilder::foldCut(const Trace& next) {
  const TraceCut& cut = next.cut();
  TimeNs origin = previousBegin_;
  auto h = history_ ? std::make_shared<RunHistory>(*history_)
                    : std::make_shared<RunHistory>(origin, std::max<TimeNs>(1'000'000, (cut.time - origin) / (RunHistory::kBins / 2)));
  for (TaskIndex t = 0; t < spans_.size(); ++t) {
    const TaskSpans& ts = spans_[t];
    const TimeNs windowBegin = t < next.taskCount() && !next.events(t).empty() ? next.events(t)[0].time : cut.time;
    const std::size_t n = ts.settled.size() + ts.tail.size();
    if (n == 0 || t >= previous_->taskCount()) continue;
    EventStore::Cursor records(previous_->events(t));  // in order, a block decoded once
    auto at = [&](std::size_t i) -> const SpanStart& { return i < ts.settled.size() ? ts.settled[i] : ts.tail[i - ts.settled.size()]; };
    auto beginAt = [&](std::size_t i) { return i < n ? records[at(i).first].time : windowBegin; };
    // Spans from i on, clipped to [from, until).
    auto foldSpans = [&](std::size_t i, TimeNs from, TimeNs until) {
      for (TimeNs begin = beginAt(i); i < n && begin < until; ++i) {
        const TimeNs end = std::min(until, beginAt(i + 1));
        const TaskState state = at(i).state;
        if (state != TaskState::Exited && state != TaskState::NotStarted && end > std::max(begin, from))
          h->fold(t, std::max(begin, from), end, state);
        if (state == TaskState::Exited) break;
        begin = beginAt(i + 1);
      }
    };
    StateMipmap m;
    if (ts.mipmap && !ts.fromPending && ts.settled.size() >= kMipMinSpans) {
      m = ts.mipmap->freeze();
      m.from = ts.mipFrom;
    }
    const TimeNs first = m.width0 ? m.firstShown(0) : windowBegin;
    const TimeNs last = m.width0 ? std::max(first, m.origin + (std::min(windowBegin, m.endOf(0)) - m.origin) / m.width0 * m.width0) : first;
    if (first >= last) {
      foldSpans(0, INT64_MIN, windowBegin);
      continue;
    }
    foldSpans(0, INT64_MIN, first);
    TimeNs runBegin = first;
    std::uint8_t run = kNoState;
    auto flush = [&](TimeNs end) {
      if (run != kNoState && run != static_cast<std::uint8_t>(TaskState::Exited) &&
          run != static_cast<std::uint8_t>(TaskState::NotStarted))
        h->fold(t, runBegin, end, static_cast<TaskState>(run));
    };
    for (TimeNs b = first; b < last; b += m.width0) {
      const std::uint8_t state = m.at(0, b);
      if (state == run) continue;
      flush(b);
      run = state;
      runBegin = b;
    }
    flush(last);
    // The spans from the one at `last` (a binary search on their times).
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (beginAt(mid) <= last) lo = mid + 1;
      else hi = mid;
    }
    foldSpans(lo == 0 ? 0 : lo - 1, last, windowBegin);
  }
  h->settle();
  h->setRecords(cut.dropped);
  history_ = std::move(h);
}

AnalysisPtr analyseSnapshot(const ViewSnapshot& s) {
  auto started = Clock::now();
  // What the reading and the snapshots freed is given back before the
  // analysis's lists are made, and what the analysis freed after.
  returnFreedPages();
  auto a = std::make_shared<Analysis>();
  const Trace& tr = *s.trace;
  a->records = tr.eventCount();
  // Two cores' worth: the model's message chain on a second thread, the
  // user's marks alongside on this one.
  AnalyseOptions options;
  options.breakdown = false;
  options.why = false;    // the Why-slow panel's (about a third of the analysis's time): analyseWhy
  options.races = false;  // nothing here shows them
  options.parallel = true;
  options.alongside = [&] {
    for (TaskIndex i = 0; i < tr.taskCount(); ++i) {  // the marks: one pass over the kinds, chunk by chunk
      std::uint32_t k = 0;
      tr.events(i).forEach([&](const Event& e) {
        if (e.kind == Kind::MARK) a->marks.push_back({e.time, i, k});
        ++k;
      });
    }
    std::stable_sort(a->marks.begin(), a->marks.end(), [](const MarkAt& x, const MarkAt& y) { return x.time < y.time; });
  };
  a->model = analyse(s.trace, options);
  a->timing.messages = a->model.ms.messages;
  a->timing.mismatches = a->model.ms.mismatch;
  a->timing.barriers = a->model.ms.barriers;
  auto t = Clock::now();
  a->hangText = hangText(tr, a->model.hang);
  buildLines(*a);
  a->timing.hang = a->model.ms.hang + msSince(t);
  returnFreedPages();
  a->buildMs = msSince(started);
  return a;
}

const WhyReport& ViewSnapshot::why() const {
  static const WhyReport none;
  return whyAnalysis ? whyAnalysis->report : none;
}

WhyPtr analyseWhy(const ViewSnapshot& s) {
  auto started = Clock::now();
  auto w = std::make_shared<WhyAnalysis>();
  w->timeBase = s.timeBase;
  w->source = s.source;
  if (!s.analysis || !s.analysis->model.trace) return w;
  const xab::Analysis& a = s.analysis->model;
  w->report = analyseWaits(*a.trace, a.messages);
  addCpuWaits(w->report, *a.trace, a.samples);
  w->records = s.analysis->records;
  w->buildMs = msSince(started);
  return w;
}

std::shared_ptr<ViewSnapshot> buildSnapshot(std::shared_ptr<const Trace> trace, bool why) {
  auto s = SnapshotBuilder().update(std::move(trace));
  s->analysis = analyseSnapshot(*s);
  if (why) s->whyAnalysis = analyseWhy(*s);
  return s;
}

}  // namespace xab::view
