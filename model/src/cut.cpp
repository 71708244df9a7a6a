// A cut trace: the window of a reader that holds a run of any length
// (TraceReader::cut), and a range read back from the middle of a run
// (TraceSource::readRange).  docs/model.md, "A run of any length".
#include <xab/model/builder.h>
#include <xab/model/messages.h>
#include <xab/model/reader.h>

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>

namespace xab {

std::uint32_t Trace::usesBefore(TaskIndex t, Kind kind, StrId group, std::int32_t count) const {
  const UseKey key{t, kind, group, count};
  auto less = [](const std::pair<UseKey, std::uint32_t>& a, const UseKey& b) {
    return std::tie(a.first.task, a.first.kind, a.first.group, a.first.count) <
           std::tie(b.task, b.kind, b.group, b.count);
  };
  auto it = std::lower_bound(usesBefore_.begin(), usesBefore_.end(), key, less);
  return it != usesBefore_.end() && it->first == key ? it->second : 0;
}

std::span<const InFlightAtCut> Trace::inFlightAtCut(Tid to) const {
  auto b = std::lower_bound(inFlight_.begin(), inFlight_.end(), to, [](const InFlightAtCut& f, Tid t) { return f.to < t; });
  auto e = std::upper_bound(b, inFlight_.end(), to, [](Tid t, const InFlightAtCut& f) { return t < f.to; });
  return {b, e};
}

namespace {

// A call whose uses are numbered per task (barriers.cpp's Collector).
bool numberedUse(Kind k) { return k == Kind::BARRIER || isCollective(k); }

using UseMap = std::map<std::tuple<TaskIndex, Kind, StrId, std::int32_t>, std::uint32_t>;
// (destination, sender, tag) -> sends less receives (InFlightAtCut).
using FlightMap = std::map<std::tuple<Tid, TaskIndex, std::int32_t>, std::int64_t>;

// A dropped record's part in the messages in flight at the cut: a send
// (that did not fail) adds one for each destination, a receive takes one
// from its sender's (as messages.cpp pairs them by order).
void countFlight(const Trace& tr, TaskIndex t, const Event& e, FlightMap& flight) {
  if (sentMessage(e)) {
    if (const auto dst = sendDestinations(tr, e))
      for (Tid d : *dst) ++flight[{d, t, e.get(Key::Tag)}];
  } else if (gotMessage(e)) {
    if (const auto from = tr.findTask(e.get(Key::Src))) --flight[{tr.task(t).tid, *from, e.get(Key::Tag)}];
  }
}

// What one task's records before the cut leave behind.
struct Dropped {
  std::vector<Event> open;  // blocking calls open at the cut, innermost last
  // A task that ended inside blocking calls (task.exit, lost records) and
  // made no call since: those calls and the records that ended them (so
  // that the hang diagnosis finds it ended blocked).
  std::vector<Event> ended, exits;
  std::vector<Event>* clocks = nullptr;  // the task's clock records before the cut
  std::map<Kind, bool> inUse;  // a numbered call begun and not ended
};

// A record before the cut, which the trace no longer holds.
void drop(TaskIndex t, const Event& e, Dropped& d, CutTask& ct, UseMap& uses) {
  const bool clears = e.kind == Kind::TASK_EXIT || e.kind == Kind::ABMON_LOST;
  if (clears && !d.open.empty()) d.ended = d.open, d.exits.clear();
  if (clears && !d.ended.empty()) d.exits.push_back(e);
  else if (!clears && !isLibabRecord(e.kind) && e.kind != Kind::ABMON_BAD) d.ended.clear(), d.exits.clear();
  stepOpenCalls(d.open, e, e, [](const Event& x) { return x.kind; });
  if (e.kind == Kind::CLOCK) {  // the first few of the run, and the last few: a ring behind them
    auto& c = *d.clocks;
    constexpr std::size_t n = Trace::kCutClocks;
    if (c.size() < 2 * n) c.push_back(e);
    else std::move(c.begin() + n + 1, c.end(), c.begin() + n), c.back() = e;
  }
  ++ct.dropped;
  ct.until = ct.dropped == 1 ? e.time : std::max(ct.until, e.time);
  if (isMsgOut(e.kind) && e.phase == Phase::End) {
    const int s = slotOf(e.kind, e.phase, Key::Serial);
    if (e.has(s) && e.a[s] > 0) ct.lastSerial = std::max(ct.lastSerial, e.a[s]);
    else ct.sentUnnumbered = true;
  }
  if (numberedUse(e.kind)) {  // as barriers.cpp counts a use: a begin, or an end without its begin
    bool& open = d.inUse[e.kind];
    if (e.isBegin() || !open) ++uses[{t, e.kind, e.get(Key::Group, -1), e.get(Key::Count, -1)}];
    open = e.isBegin();
  }
}

// A kept record's tid list, copied into the new list table.
void moveLists(Event& e, const Trace& from, std::vector<ListId>& remap, ChunkedVector<std::vector<Tid>, 4, 10>& to) {
  if (e.kind == Kind::OTHER) return;
  const auto slots = kindSlots(e.kind, e.phase);
  for (std::size_t s = 0; s < slots.size(); ++s) {
    if (slots[s].spelling != Spelling::List || !e.has(static_cast<int>(s))) continue;
    const ListId old = e.a[s];
    if (old < 0 || static_cast<std::size_t>(old) >= remap.size()) continue;
    if (remap[static_cast<std::size_t>(old)] < 0) {
      remap[static_cast<std::size_t>(old)] = static_cast<ListId>(to.size());
      const auto l = from.list(old);
      to.push_back(std::vector<Tid>(l.begin(), l.end()));
    }
    e.a[s] = remap[static_cast<std::size_t>(old)];
  }
}

}  // namespace

// What a cut makes of the records of a frozen copy of the builder's trace
// (TraceBuilder::planCut), to be put in place by applyCut with the records
// the builder took since the copy.
struct TraceBuilder::CutPlan {
  std::uint32_t from = 0, to = 0, carried = 0;
  bool open = false;  // to is the end: records after the copy are kept too
  std::vector<std::size_t> frozenSizes;  // per task: its records in the copy
  std::size_t frozenMonitor = 0;
  std::unordered_map<Tid, std::size_t> frozenRefClocks;
  std::vector<EventStore> stores;
  std::vector<Event> monitor;
  std::vector<Tid> monitorTids;
  ChunkedVector<std::vector<Tid>, 4, 10> lists;
  std::vector<ListId> remap;
  std::unordered_map<Tid, std::vector<Event>> refClocks;
  struct TaskEnd {
    bool any = false;  // a record of the task is held
    TimeNs last = 0;   // the latest time among them
    bool clearExit = false;
  };
  std::vector<TaskEnd> ends;
  bool anyTime = false;
  TimeNs first = 0, last = 0;
  std::uint64_t held = 0;
  TraceCut cut;
  std::vector<std::uint64_t> carriedAt;
  decltype(Trace::usesBefore_) usesBefore;
  std::vector<InFlightAtCut> inFlight;
  std::vector<CutTask> cutTasks;
  std::vector<std::vector<Event>> cutClocks;

  std::uint32_t renumber(std::uint32_t seq) const { return seq - from + carried; }
  void noteHeld(TimeNs time) {
    first = anyTime ? std::min(first, time) : time;
    last = anyTime ? std::max(last, time) : time;
    anyTime = true;
  }
};

std::shared_ptr<TraceBuilder::CutPlan> TraceBuilder::planCut(std::shared_ptr<const Trace> frozen, std::uint32_t mark,
                                                             std::uint32_t from, std::uint32_t to) {
  auto plan = std::make_shared<CutPlan>();
  CutPlan& p = *plan;
  const Trace& tr = *frozen;
  p.open = to == UINT32_MAX;
  from = std::max(from, tr.cut_.carried);
  to = std::min(to, mark);
  if (to < from) to = from;
  p.from = from, p.to = to;
  const std::size_t tasks = tr.tasks_.size();
  p.cutTasks = tr.cutTasks_;
  p.cutClocks = tr.cutClocks_;
  p.cutTasks.resize(tasks);
  p.cutClocks.resize(tasks);
  UseMap uses;
  for (const auto& [k, n] : tr.usesBefore_) uses[{k.task, k.kind, k.group, k.count}] = n;
  FlightMap flight;
  for (const InFlightAtCut& f : tr.inFlight_) flight[{f.to, f.from, f.tag}] = f.count;

  // Carried records: (old seq, task or -1 for a monitor record, the event, its tid).
  struct Carry {
    std::uint32_t seq;
    std::int64_t task;
    Event e;
    Tid tid;
  };
  std::vector<Carry> carry;
  std::vector<std::size_t> split(tasks), stop(tasks);
  TimeNs before = tr.cut_.time;
  bool anyBefore = tr.cut_.cut;
  for (TaskIndex t = 0; t < tasks; ++t) {
    const EventStore& st = tr.events_[t];
    split[t] = st.partitionPoint([&](const Event& e) { return e.seq < from; });
    stop[t] = st.partitionPoint([&](const Event& e) { return e.seq < to; });
    Dropped d;
    d.clocks = &p.cutClocks[t];
    EventStore::Cursor c(st);
    for (std::size_t i = 0; i < split[t]; ++i) {
      const Event& e = c[i];
      drop(t, e, d, p.cutTasks[t], uses);
      countFlight(tr, t, e, flight);
      before = anyBefore ? std::max(before, e.time) : e.time;
      anyBefore = true;
    }
    if (d.open.empty()) {
      d.open = std::move(d.ended);
      d.open.insert(d.open.end(), d.exits.begin(), d.exits.end());
    }
    for (const Event& e : d.open) {
      carry.push_back({e.seq, static_cast<std::int64_t>(t), e, tr.tasks_[t].tid});
      if (numberedUse(e.kind) && e.isBegin()) --uses[{t, e.kind, e.get(Key::Group, -1), e.get(Key::Count, -1)}];
    }
  }
  for (std::size_t i = 0; i < tr.monitor_.size(); ++i) {
    const Event& e = tr.monitor_[i];
    if (e.seq < from && (e.kind == Kind::ABMON_START || e.kind == Kind::RELAY_START))
      carry.push_back({e.seq, -1, e, tr.monitorTid(i)});
  }
  std::sort(carry.begin(), carry.end(), [](const Carry& a, const Carry& b) { return a.seq < b.seq; });
  const auto k = static_cast<std::uint32_t>(carry.size());
  p.carried = k;

  p.cut.position = tr.runPosition(from);
  p.cut.carried = k;
  p.cut.dropped = p.cut.position - k;
  p.cut.time = before;
  p.cut.cut = true;
  for (const Carry& c : carry) p.carriedAt.push_back(tr.runPosition(c.seq));

  // The new stores: each task's carried begins, then its kept records.
  p.remap.assign(tr.lists_.size(), -1);
  p.stores.resize(tasks);
  p.ends.resize(tasks);
  for (std::uint32_t j = 0; j < k; ++j) {
    Carry& c = carry[j];
    c.e.seq = j;
    moveLists(c.e, tr, p.remap, p.lists);
    if (c.task < 0) {
      p.monitor.push_back(c.e);
      p.monitorTids.push_back(c.tid);
      p.noteHeld(c.e.time);
    }
  }
  const std::uint64_t end = tr.runPosition(to);  // a range's end: the exits after it are not its
  for (TaskIndex t = 0; t < tasks; ++t) {
    EventStore& out = p.stores[t];
    CutPlan::TaskEnd& taskEnd = p.ends[t];
    const TaskInfo& info = tr.tasks_[t];
    taskEnd.clearExit = !p.open && info.exit != ExitHow::None && info.exitPosition >= end;
    auto keep = [&](Event e) {
      moveLists(e, tr, p.remap, p.lists);
      out.push_back(e);
      // firstTime stays the task's start in the whole run (a spawn's wait ends there).
      taskEnd.last = taskEnd.any ? std::max(taskEnd.last, e.time) : e.time;
      taskEnd.any = true;
      p.noteHeld(e.time);
      ++p.held;
    };
    for (const Carry& c : carry)
      if (c.task == static_cast<std::int64_t>(t)) keep(c.e);
    EventStore::Cursor cur(tr.events_[t]);
    for (std::size_t i = split[t]; i < stop[t]; ++i) {
      Event e = cur[i];
      e.seq = p.renumber(e.seq);
      keep(e);
    }
    p.frozenSizes.push_back(tr.events_[t].size());
  }
  for (std::size_t i = 0; i < tr.monitor_.size(); ++i) {
    Event e = tr.monitor_[i];
    if (e.seq < from || e.seq >= to) continue;
    e.seq = p.renumber(e.seq);
    p.monitor.push_back(e);
    p.monitorTids.push_back(tr.monitorTid(i));
    p.noteHeld(e.time);
  }
  p.frozenMonitor = tr.monitor_.size();
  for (const auto& [tid, clocks] : tr.refClocks_) {
    std::vector<Event>& kept = p.refClocks[tid];
    for (Event e : clocks)
      if (e.seq >= from && (p.open || e.seq < to)) {
        e.seq = p.renumber(e.seq);
        kept.push_back(e);
      }
    p.frozenRefClocks[tid] = clocks.size();
  }
  for (const auto& [key, n] : uses)
    if (n > 0) p.usesBefore.push_back({{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key)}, n});
  for (const auto& [key, n] : flight)
    if (n != 0) p.inFlight.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), n});
  return plan;
}

void TraceBuilder::applyCut(CutPlan& p) {
  Trace& tr = trace_;
  const std::size_t tasks = tr.tasks_.size();
  p.remap.resize(tr.lists_.size(), -1);
  p.stores.resize(tasks);
  p.ends.resize(tasks);
  p.frozenSizes.resize(tasks, 0);
  for (TaskIndex t = 0; t < tasks; ++t) {
    EventStore& out = p.stores[t];
    TaskInfo& info = tr.tasks_[t];
    if (p.ends[t].clearExit) info.exit = ExitHow::None, info.exitTime = 0;
    if (p.ends[t].any) info.lastTime = p.ends[t].last;
    if (!p.open) continue;
    // The records the builder took since the copy: numbered on, as the
    // builder would have numbered them after the cut.
    EventStore::Cursor cur(tr.events_[t]);
    for (std::size_t i = p.frozenSizes[t]; i < tr.events_[t].size(); ++i) {
      Event e = cur[i];
      e.seq = p.renumber(e.seq);
      moveLists(e, tr, p.remap, p.lists);
      // As append() dates a task's first record and the ones after it.
      if (!out.empty()) info.lastTime = std::max(info.lastTime, e.time);
      else if (t < adopted_) info.lastTime = e.time;
      else info.firstTime = info.lastTime = e.time;
      out.push_back(e);
      p.noteHeld(e.time);
      ++p.held;
    }
  }
  if (p.open) {
    for (std::size_t i = p.frozenMonitor; i < tr.monitor_.size(); ++i) {
      Event e = tr.monitor_[i];
      e.seq = p.renumber(e.seq);
      p.monitor.push_back(e);
      p.monitorTids.push_back(tr.monitorTid(i));
      p.noteHeld(e.time);
    }
    for (const auto& [tid, clocks] : tr.refClocks_) {
      std::vector<Event>& kept = p.refClocks[tid];
      auto it = p.frozenRefClocks.find(tid);
      for (std::size_t i = it == p.frozenRefClocks.end() ? 0 : it->second; i < clocks.size(); ++i) {
        Event e = clocks[i];
        e.seq = p.renumber(e.seq);
        kept.push_back(e);
      }
    }
  }
  tr.events_ = std::move(p.stores);
  tr.monitor_ = std::move(p.monitor);
  tr.monitorTids_ = std::move(p.monitorTids);
  tr.lists_ = std::move(p.lists);
  tr.refClocks_ = std::move(p.refClocks);
  tr.eventCount_ = p.held;
  if (p.anyTime) tr.firstTime_ = p.first, tr.lastTime_ = p.last;
  tr.cut_ = p.cut;
  tr.carriedPositions_ = std::move(p.carriedAt);
  tr.usesBefore_ = std::move(p.usesBefore);
  tr.inFlight_ = std::move(p.inFlight);
  p.cutTasks.resize(tasks);
  p.cutClocks.resize(tasks);
  tr.cutTasks_ = std::move(p.cutTasks);
  tr.cutClocks_ = std::move(p.cutClocks);
  seq_ = p.renumber(p.open ? seq_ : p.to);
}

void TraceBuilder::cut(std::uint32_t from, std::uint32_t to) {
  const std::uint32_t first = std::max(from, trace_.cut_.carried);
  if (first == trace_.cut_.carried && to >= seq_) return;  // nothing to drop
  auto plan = planCut(freeze(), seq_, from, to);
  applyCut(*plan);
}


void TraceBuilder::continueRun(const Trace& table, std::uint64_t position, TimeNs before) {
  trace_.header_ = table.header_;
  for (TaskIndex t = 0; t < table.taskCount(); ++t) {
    const TaskInfo& in = table.task(t);
    TaskIndex k = taskFor(in.tid);
    TaskInfo& info = trace_.tasks_[k];
    if (in.name >= 0) setName(k, intern(table.str(in.name)), in.instance);
    if (in.host >= 0) info.host = intern(table.str(in.host));
    info.parent = in.parent, info.lang = in.lang, info.pid = in.pid;
    // An exit after `position` is not known yet to a reader of the run from there.
    if (in.exit != ExitHow::None && in.exitPosition < position)
      info.exit = in.exit, info.exitTime = in.exitTime, info.exitPosition = in.exitPosition;
    info.status = in.status, info.signal = in.signal;
    info.lost = in.lost, info.lostMessages = in.lostMessages;
    info.firstTime = in.firstTime, info.lastTime = in.lastTime;  // until a record of its own comes
  }
  haveLast_ = false;
  adopted_ = static_cast<TaskIndex>(trace_.tasks_.size());
  trace_.omitted_ = table.omitted_;
  // What came before `position` is not known: any send may be before it.
  if (position > 0) trace_.cutTasks_.assign(trace_.tasks_.size(), CutTask{1, INT64_MAX, INT32_MAX, true});
  trace_.cut_ = TraceCut{position, before, position, 0, position > 0};
}

void TraceBuilder::adoptCut(const Trace& from) {
  continueRun(from, from.cut_.position);
  trace_.cut_ = from.cut_;
  trace_.carriedPositions_ = from.carriedPositions_;
  trace_.cutTasks_ = from.cutTasks_;
  trace_.cutClocks_ = from.cutClocks_;
  trace_.usesBefore_ = from.usesBefore_;
  trace_.inFlight_ = from.inFlight_;
}

std::shared_ptr<const Trace> TraceBuilder::taskTable() const {
  auto out = std::make_shared<Trace>();
  out->header_ = trace_.header_;
  out->tasks_ = trace_.tasks_;
  out->byTid_ = trace_.byTid_;
  out->strings_ = trace_.strings_.freeze();
  out->omitted_ = trace_.omitted_;
  out->cut_ = trace_.cut_;
  return out;
}

}  // namespace xab
