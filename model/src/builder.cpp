#include "builder.h"

#include <algorithm>

namespace xab {

TraceBuilder::TraceBuilder() = default;

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
  if (seq.empty()) {
    info.firstTime = info.lastTime = e.time;
  } else {
    info.lastTime = std::max(info.lastTime, e.time);
  }
  bool exitCall = e.kind == Kind::EXIT && e.phase == Phase::End;
  if ((exitCall || e.kind == Kind::TASK_EXIT) && info.exit == ExitHow::None) {
    info.exit = exitCall ? ExitHow::Exit : ExitHow::TaskExit;
    info.exitTime = e.time;
  }
  if (e.kind == Kind::ABMON_LOST) {  // saturating counts
    info.lost = addTime(info.lost, e.get(Key::N));
    info.lostMessages = addTime(info.lostMessages, e.get(Key::Messages));
  }
  noteTime(e.time);
  seq.push_back(e);
  ++trace_.eventCount_;
  ++seq_;
}

void TraceBuilder::appendMonitor(const Event& e) {
  noteTime(e.time);
  trace_.monitor_.push_back(e);
  if (e.kind == Kind::ABMON_STOP) trace_.stopped_ = true;
  ++seq_;
}

std::shared_ptr<const Trace> TraceBuilder::freeze() const {
  auto out = std::make_shared<Trace>();
  out->header_ = trace_.header_;
  out->tasks_ = trace_.tasks_;
  out->events_.reserve(trace_.events_.size());
  for (const auto& seq : trace_.events_) out->events_.push_back(seq.freeze());
  out->monitor_ = trace_.monitor_;
  out->byTid_ = trace_.byTid_;
  out->strings_ = trace_.strings_.freeze();
  out->lists_ = trace_.lists_.freeze();
  out->eventCount_ = trace_.eventCount_;
  out->firstTime_ = trace_.firstTime_;
  out->lastTime_ = trace_.lastTime_;
  out->stopped_ = trace_.stopped_;
  return out;
}

std::shared_ptr<const Trace> TraceBuilder::take() {
  auto out = std::make_shared<Trace>(std::move(trace_));
  trace_ = Trace{};
  interned_.clear();
  perName_.clear();
  haveLast_ = false;
  seq_ = 0;
  return out;
}

}  // namespace xab
