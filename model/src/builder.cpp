#include <xab/model/builder.h>

#include <algorithm>

namespace xab {

TraceBuilder::TraceBuilder() = default;

void TraceBuilder::header(const text::Header& h) {
  TraceHeader& out = trace_.header_;
  out.present = true;
  out.version = h.version;
  out.abmon = h.hasAbmon ? h.abmon : 0;
  out.host = std::string(h.host);
  out.pid = h.pid;
  out.start = h.start;
}

void TraceBuilder::record(const text::Record& r) {
  Event e{};
  e.time = r.time;
  e.recvTime = r.recvTime;
  e.kind = r.kind;
  e.phase = r.phase;
  e.present = r.present;
  e.rc = r.rc;
  if (r.kind == Kind::OTHER) {
    e.a[0] = intern(r.str[0]);
    e.present = 1;
  } else {
    // Values as they are (0 where absent), then the strings and lists
    // given by reference become ids of the trace's tables.
    const auto& list = schema::kSlots[static_cast<std::size_t>(r.kind)][r.phase == Phase::Begin ? 1 : 0];
    for (int s = 0; s < kMaxSlots; ++s) e.a[s] = (r.present >> s & 1) ? r.a[s] : 0;
    for (unsigned refs = r.present & list.refMask; refs; refs &= refs - 1) {
      int s = __builtin_ctz(refs);
      if (list.items[s].spelling == Spelling::String)
        e.a[s] = intern(r.str[s]);
      else
        e.a[s] = addList({r.list[s].begin(), r.list[s].end()});
    }
  }
  e.seq = nextSeq();
  if (isMonitorRecord(e.kind)) {
    monitorTids_.insert(r.tid);
    appendMonitor(e, r.tid);
    return;
  }
  if (e.kind == Kind::CLOCK && monitorTids_.count(r.tid)) {
    appendReferenceClock(r.tid, e);
    return;
  }
  TaskIndex t = taskFor(r.tid);
  if (r.id.any()) identity(t, r.id);
  if (r.kind == Kind::INFO) identity(t, infoIdentity(r));
  if (r.kind == Kind::FILTER)
    if (int s = slotOf(r.kind, r.phase, Key::Omit); r.has(s)) trace_.omitted_ |= static_cast<std::uint32_t>(r.a[s]);
  append(t, e);
}

// An info record is a task's identity on a line of its own (abmon writes
// one for a task that made no recorded call, or whose name came late):
// its fields are the identity's.
text::Identity TraceBuilder::infoIdentity(const text::Record& r) {
  text::Identity id;
  auto slot = [&r](Key key) { return slotOf(r.kind, r.phase, key); };
  if (int s = slot(Key::Name); r.has(s)) id.name = r.str[s], id.hasName = true;
  if (int s = slot(Key::Host); r.has(s)) id.host = r.str[s], id.hasHost = true;
  if (int s = slot(Key::Parent); r.has(s)) id.parent = r.a[s], id.hasParent = true;
  if (int s = slot(Key::Lang); r.has(s)) id.lang = r.a[s], id.hasLang = true;
  if (int s = slot(Key::Pid); r.has(s)) id.pid = r.a[s], id.hasPid = true;
  return id;
}

void TraceBuilder::identity(TaskIndex t, const text::Identity& id) {
  TaskInfo& info = trace_.tasks_[t];
  if (id.hasName) setName(t, intern(id.name), id.instance);
  if (id.hasHost) info.host = intern(id.host);
  if (id.hasParent) info.parent = id.parent;
  if (id.hasLang) info.lang = id.lang;
  if (id.hasPid) info.pid = id.pid;
}

TaskIndex TraceBuilder::taskFor(Tid tid) {
  // Records come in batches per task, so the last task is the usual answer.
  if (haveLast_ && tid == lastTid_) return lastTask_;
  auto [it, added] = trace_.byTid_.try_emplace(tid, static_cast<TaskIndex>(trace_.tasks_.size()));
  if (added) {
    TaskInfo info;
    info.tid = tid;
    trace_.tasks_.push_back(info);
    trace_.events_.emplace_back();
  }
  lastTid_ = tid;
  lastTask_ = it->second;
  haveLast_ = true;
  return it->second;
}

StrId TraceBuilder::intern(std::string_view s) {
  auto it = interned_.find(s);
  if (it != interned_.end()) return it->second;
  auto id = static_cast<StrId>(trace_.strings_.size());
  trace_.strings_.push_back(std::string(s));
  // The stored string never moves (chunked storage), so a view of it is a
  // safe key.
  interned_.emplace(std::string_view(trace_.strings_.back()), id);
  return id;
}

ListId TraceBuilder::addList(std::vector<Tid> tids) {
  auto id = static_cast<ListId>(trace_.lists_.size());
  trace_.lists_.push_back(std::move(tids));
  return id;
}

void TraceBuilder::setName(TaskIndex t, StrId name, std::int32_t instance) {
  TaskInfo& info = trace_.tasks_[t];
  if (info.name == name && instance < 0) return;
  info.name = name;
  std::int32_t& next = perName_[name];
  if (instance < 0) {
    info.instance = next++;
  } else {  // later tasks of this name without one count on from it
    info.instance = instance;
    next = std::max(next, instance + 1);
  }
}

void TraceBuilder::noteTime(TimeNs t) {
  if (trace_.eventCount_ == 0 && trace_.monitor_.empty()) {
    trace_.firstTime_ = trace_.lastTime_ = t;
    return;
  }
  trace_.firstTime_ = std::min(trace_.firstTime_, t);
  trace_.lastTime_ = std::max(trace_.lastTime_, t);
}

void TraceBuilder::append(TaskIndex t, const Event& e) {
  TaskInfo& info = trace_.tasks_[t];
  auto& seq = trace_.events_[t];
  if (seq.empty() && t < adopted_) {  // a task of the run's table: it started before this trace
    info.lastTime = e.time;
  } else if (seq.empty()) {
    info.firstTime = info.lastTime = e.time;
  } else {
    info.lastTime = std::max(info.lastTime, e.time);
  }
  bool exitCall = e.kind == Kind::EXIT && e.phase == Phase::End;
  if ((exitCall || e.kind == Kind::TASK_EXIT) && info.exit == ExitHow::None) {
    info.exit = exitCall ? ExitHow::Exit : ExitHow::TaskExit;
    info.exitTime = e.time;
    info.exitPosition = trace_.runPosition(seq_);
  }
  if (e.kind == Kind::ABMON_LOST) {  // saturating counts
    info.lost = addTime(info.lost, e.get(Key::N));
    info.lostMessages = addTime(info.lostMessages, e.get(Key::Messages));
  }
  noteTime(e.time);
  spanFirst_ = std::min(spanFirst_, e.time);
  spanLast_ = std::max(spanLast_, e.time);
  Event stored = e;
  markInsideCall(t, stored);
  seq.push_back(stored);
  ++trace_.eventCount_;
  ++seq_;
}

// A task is one thread: what it records between a blocking call's begin
// and that call's end was done inside the call (a handler PVM ran, the
// program's matching function, a handler's own receive): stepOpenCalls.
void TraceBuilder::markInsideCall(TaskIndex t, Event& e) {
  if (openCalls_.size() <= t) openCalls_.resize(t + 1);
  if (stepOpenCalls(openCalls_[t], e, e.kind, [](Kind k) { return k; })) e.present |= Event::kInsideCall;
}

void TraceBuilder::appendMonitor(const Event& e, Tid tid) {
  noteTime(e.time);
  trace_.monitor_.push_back(e);
  trace_.monitorTids_.push_back(tid);
  if (e.kind == Kind::ABMON_STOP) trace_.stopped_ = true;
  if (e.kind == Kind::PROGRAM_EXIT)
    if (auto it = trace_.byTid_.find(e.get(Key::Tid)); it != trace_.byTid_.end()) {
      trace_.tasks_[it->second].status = e.get(Key::Status);
      trace_.tasks_[it->second].signal = e.get(Key::Signal);
    }
  ++seq_;
}

// A relay's clock record is no task's and no monitor record: it takes no
// place in the arrival order, whose positions are the task and monitor
// records (Event::seq), none missing.
void TraceBuilder::appendReferenceClock(Tid tid, const Event& e) {
  trace_.refClocks_[tid].push_back(e);
}

std::shared_ptr<const Trace> TraceBuilder::freeze() const {
  auto out = std::make_shared<Trace>();
  out->copyAllButEvents(trace_);
  out->events_.reserve(trace_.events_.size());
  for (const auto& seq : trace_.events_) out->events_.push_back(seq.freeze());
  return out;
}

std::shared_ptr<const Trace> TraceBuilder::take() {
  auto out = std::make_shared<Trace>(std::move(trace_));
  trace_ = Trace{};
  interned_.clear();
  perName_.clear();
  openCalls_.clear();
  haveLast_ = false;
  seq_ = 0;
  adopted_ = 0;
  spanFirst_ = INT64_MAX, spanLast_ = INT64_MIN;
  return out;
}

}  // namespace xab

namespace xab {

text::Record toRecord(const Trace& trace, const Event& e, Tid tid) {
  text::Record r;
  r.recvTime = e.recvTime;
  r.time = e.time;
  r.tid = tid;
  r.kind = e.kind;
  r.phase = e.phase;
  r.present = e.present & ~Event::kInsideCall;
  r.rc = e.rc;
  if (e.kind == Kind::OTHER) {
    r.setOther(trace.str(e.a[0]));
  } else {
    auto slots = kindSlots(e.kind, e.phase);
    for (std::size_t s = 0; s < slots.size(); ++s) {
      r.a[s] = e.a[s];
      if (slots[s].spelling == Spelling::String) r.str[s] = trace.str(e.a[s]);
      if (slots[s].spelling == Spelling::List) r.list[s] = trace.list(e.a[s]);
    }
  }
  return r;
}

text::Record toRecord(const Trace& trace, TaskIndex task, std::uint32_t index, bool withIdentity) {
  text::Record r = toRecord(trace, trace.events(task)[index], trace.task(task).tid);
  if (withIdentity) {
    const TaskInfo& i = trace.task(task);
    text::Identity& id = r.id;
    id.hasName = i.name >= 0;
    id.name = trace.str(i.name);
    id.hasHost = i.host >= 0;
    id.host = trace.str(i.host);
    id.hasParent = true;
    id.parent = i.parent;
    id.hasLang = i.lang >= 0;
    id.lang = i.lang;
    id.hasPid = i.pid != 0;
    id.pid = i.pid;
  }
  return r;
}

}  // namespace xab
