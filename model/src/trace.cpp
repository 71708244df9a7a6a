#include <xab/model/trace.h>
#include <xab/traceformat/write.h>

#include <cstdio>

namespace xab {

std::optional<TaskIndex> Trace::findTask(Tid tid) const {
  auto it = byTid_.find(tid);
  if (it == byTid_.end()) return std::nullopt;
  return it->second;
}

void Trace::copyAllButEvents(const Trace& from) {
  header_ = from.header_;
  tasks_ = from.tasks_;
  monitor_ = from.monitor_;
  monitorTids_ = from.monitorTids_;
  refClocks_ = from.refClocks_;
  byTid_ = from.byTid_;
  strings_ = from.strings_.freeze();
  lists_ = from.lists_.freeze();
  eventCount_ = from.eventCount_;
  firstTime_ = from.firstTime_;
  lastTime_ = from.lastTime_;
  stopped_ = from.stopped_;
  omitted_ = from.omitted_;
  cut_ = from.cut_;
  carriedPositions_ = from.carriedPositions_;
  cutTasks_ = from.cutTasks_;
  cutClocks_ = from.cutClocks_;
  usesBefore_ = from.usesBefore_;
  inFlight_ = from.inFlight_;
}

std::string_view Trace::str(StrId id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= strings_.size()) return {};
  return strings_[static_cast<std::size_t>(id)];
}

std::span<const Tid> Trace::list(ListId id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= lists_.size()) return {};
  return lists_[static_cast<std::size_t>(id)];
}

std::string Trace::label(TaskIndex t) const {
  const TaskInfo& info = tasks_[t];
  if (info.name < 0) return "(" + formatTid(info.tid) + ")";
  return "(" + std::string(str(info.name)) + ", " + std::to_string(info.instance) + ")";
}

std::size_t Trace::memoryBytes() const {
  std::size_t n = sizeof(*this) + tasks_.capacity() * sizeof(TaskInfo) +
                  monitor_.capacity() * sizeof(Event) + monitorTids_.capacity() * sizeof(Tid) +
                  byTid_.size() * (sizeof(Tid) + sizeof(TaskIndex) + 2 * sizeof(void*));
  for (const auto& seq : events_) n += seq.capacityBytes() + sizeof(seq);
  for (const auto& [tid, ev] : refClocks_) n += ev.capacity() * sizeof(Event) + sizeof(ev);  // relays' clock records
  n += cutTasks_.capacity() * sizeof(CutTask) + carriedPositions_.capacity() * sizeof(std::uint64_t) +
       usesBefore_.capacity() * sizeof(usesBefore_[0]) + inFlight_.capacity() * sizeof(InFlightAtCut);  // what a cut left out
  for (const auto& c : cutClocks_) n += c.capacity() * sizeof(Event) + sizeof(c);
  n += strings_.capacityBytes();
  strings_.forEach([&](const std::string& s) {
    if (s.capacity() > 15) n += s.capacity() + 1;  // beyond the small-string buffer
  });
  n += lists_.capacityBytes();
  lists_.forEach([&](const std::vector<Tid>& l) { n += l.capacity() * sizeof(Tid); });
  return n;
}

std::string formatTid(Tid tid) {
  std::string out;
  text::appendTid(out, tid);
  return out;
}

std::string formatTag(std::int32_t tag) {
  std::string out;
  text::appendTag(out, tag);
  return out;
}

std::string formatSeconds(TimeNs t, TimeNs origin) {
  char buf[text::kMaxTimeChars];
  return std::string(buf, text::putSeconds(buf, t - origin, 6));
}

}  // namespace xab
