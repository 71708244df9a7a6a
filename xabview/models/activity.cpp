#include "activity.h"

#include <xab/traceformat/write.h>

#include <algorithm>

namespace xab::view {
namespace {

QString qs(std::string_view v) { return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())); }

QString items(const Event& e) {
  std::int32_t n = e.get(Key::N, 0);
  std::int32_t type = e.get(Key::Type, -1);
  if (type == 0) return QStringLiteral("a string of %1 chars").arg(n);
  QString name = qs(dataTypeName(type));
  if (name.isEmpty()) name = QStringLiteral("items");
  else if (n != 1) name += "s";
  return QStringLiteral("%1 %2").arg(n).arg(name);
}

// A peer as everything else names it, (name, instance); a tid the trace does
// not know, or any, as written.  `late`: the peer's first record comes
// after `position` in arrival order (records arrive per batch).
QString peer(const ViewSnapshot& s, std::int32_t tid, std::size_t position, bool* late = nullptr) {
  auto task = tid == kAnyTid ? std::nullopt : s.trace->findTask(tid);
  if (!task) return qs(formatTid(tid));
  if (late && position < s.size() && s.prefixAt(*task, position) == 0) *late = true;
  return qs(s.trace->label(*task));
}

QString laterHint(bool late) {
  return late ? QStringLiteral("; its records arrive later: each task's records come in batches") : QString();
}

QString group(const Trace& t, const Event& e) {
  return "`" + qs(t.str(e.get(Key::Group, -1))) + "`";
}

// Tasks that have arrived at the barrier instance that `e` (a
// barrier.begin of `task`) belongs to, by time `now`; and how many it needs.
// Whether the barrier.begin of `v` is among the first `position` records.
bool arrivalShown(const ViewSnapshot& s, const BarrierVisit& v, TimeNs now, std::size_t position) {
  if (position == SIZE_MAX) return v.arrive <= now;
  const auto& ev = s.trace->events(v.task);
  // The first record at or after the arrival time.
  std::size_t lo = ev.partitionPoint([&v](const Event& e) { return e.time < v.arrive; });
  for (; lo < ev.size() && ev[lo].time == v.arrive; ++lo)
    if (ev[lo].kind == Kind::BARRIER && ev[lo].isBegin()) return ev[lo].seq < position;
  return v.arrive <= now;
}

std::pair<int, int> barrierArrivals(const ViewSnapshot& s, TaskIndex task, const Event& e, TimeNs now,
                                    std::size_t position) {
  for (const auto& inst : s.barriers().instances) {
    auto it = std::find_if(inst.visits.begin(), inst.visits.end(),
                           [&](const BarrierVisit& v) { return v.task == task && v.arrive == e.time; });
    if (it == inst.visits.end()) continue;
    int arrived = static_cast<int>(std::count_if(inst.visits.begin(), inst.visits.end(),
                                                 [&](const BarrierVisit& v) { return arrivalShown(s, v, now, position); }));
    int need = inst.count > 0 ? inst.count : static_cast<int>(inst.visits.size());
    return {arrived, need};
  }
  return {1, e.get(Key::Count, 0)};
}

QString blockedWords(const ViewSnapshot& s, TaskIndex task, const Event& e, TimeNs now, std::size_t position,
                     Activity& kind) {
  const Trace& t = *s.trace;
  QString call = qs(kindName(e.kind));
  QString forTime = " for " + formatDuration(std::max<TimeNs>(0, now - e.time));
  kind = Activity::Blocked;
  switch (e.kind) {
    case Kind::RECV:
    case Kind::TRECV:
    case Kind::PRECV:
      return QStringLiteral("blocked in %1(src %2, tag %3)%4")
          .arg(call, peer(s, e.get(Key::Src, kAnyTid), position), qs(formatTag(e.get(Key::Tag, kAnyTag))), forTime);
    case Kind::BARRIER: {
      kind = Activity::Barrier;
      auto [arrived, need] = barrierArrivals(s, task, e, now, position);
      return QStringLiteral("in barrier %1 (%2 of %3 arrived)%4").arg(group(t, e)).arg(arrived).arg(need).arg(forTime);
    }
    case Kind::REDUCE:
    case Kind::GATHER:
    case Kind::SCATTER:
      return QStringLiteral("in %1 on %2 (root %3)%4").arg(call, group(t, e)).arg(e.get(Key::Root, 0)).arg(forTime);
    case Kind::SPAWN:
      return QStringLiteral("spawning %1 x %2%3").arg(e.get(Key::Count, 0)).arg(qs(t.str(e.get(Key::File, -1))), forTime);
    default:
      return QStringLiteral("blocked in %1%2").arg(call, forTime);
  }
}

QString receivedWords(const ViewSnapshot& s, const Event& e, std::size_t position) {
  QString call = qs(kindName(e.kind));
  if (!gotMessage(e)) {  // each receive-like call has its own rc convention (messages.h)
    if (e.hasRc() && e.rc < 0 && e.kind != Kind::HANDLER) return QStringLiteral("%1 failed (%2)").arg(call).arg(e.rc);
    return QStringLiteral("%1: no message").arg(call);
  }
  bool late = false;
  const QString from = peer(s, e.get(Key::Src, 0), position, &late);
  return QStringLiteral("received %1 bytes from %2 (tag %3)%4")
      .arg(e.get(Key::Bytes, 0))
      .arg(from, qs(formatTag(e.get(Key::Tag, 0))), laterHint(late));
}

QString doneWords(const ViewSnapshot& s, const Event& e, std::size_t position, Activity& kind) {
  const Trace& t = *s.trace;
  kind = Activity::Computing;
  if (isPack(e.kind)) { kind = Activity::Communicating; return "packing " + items(e); }
  if (isUnpack(e.kind)) { kind = Activity::Communicating; return "unpacking " + items(e); }
  if (isMsgIn(e.kind)) { kind = Activity::Communicating; return receivedWords(s, e, position); }
  switch (e.kind) {
    case Kind::INITSEND:
    case Kind::MKBUF: kind = Activity::Communicating; return QStringLiteral("starting a message");
    case Kind::SEND:
    case Kind::PSEND:
      kind = Activity::Communicating;
      {
        bool late = false;
        const QString to = peer(s, e.get(Key::Dst, 0), position, &late);
        return QStringLiteral("sent %1 bytes to %2 (tag %3)%4")
            .arg(e.get(Key::Bytes, 0))
            .arg(to, qs(formatTag(e.get(Key::Tag, 0))), laterHint(late));
      }
    case Kind::MCAST:
      kind = Activity::Communicating;
      return QStringLiteral("multicast %1 bytes to %2 tasks (tag %3)")
          .arg(e.get(Key::Bytes, 0)).arg(t.list(e.get(Key::Dst, -1)).size()).arg(qs(formatTag(e.get(Key::Tag, 0))));
    case Kind::BCAST:
      kind = Activity::Communicating;
      return QStringLiteral("broadcast %1 bytes to %2 (tag %3)")
          .arg(e.get(Key::Bytes, 0)).arg(group(t, e), qs(formatTag(e.get(Key::Tag, 0))));
    case Kind::BARRIER: return "left barrier " + group(t, e);
    case Kind::JOINGROUP: return QStringLiteral("joined %1 as instance %2").arg(group(t, e)).arg(e.rc);
    case Kind::LVGROUP: return "left group " + group(t, e);
    case Kind::SPAWN: return QStringLiteral("spawned %1 x %2").arg(e.rc).arg(qs(t.str(e.get(Key::File, -1))));
    case Kind::MYTID: return QStringLiteral("enrolled in PVM");
    case Kind::MARK: return "at mark \"" + qs(t.str(e.get(Key::Text, -1))) + "\"";
    case Kind::EXIT:
    case Kind::TASK_EXIT: kind = Activity::Exited; return QStringLiteral("exited");
    case Kind::ABMON_LOST: return QStringLiteral("lost %1 events").arg(e.get(Key::N, 0));
    default: return "computing (after " + qs(kindName(e.kind)) + ")";
  }
}

}  // namespace

TaskActivity describeTask(const ViewState& state, TaskIndex task) {
  return describeTask(*state.snapshot(), task, state.shownOf(task), state.nowTime(), state.position());
}

TaskActivity describeTask(const ViewSnapshot& s, TaskIndex task, std::uint32_t shown, TimeNs now,
                          std::size_t position) {
  TaskActivity out;
  const Trace& t = *s.trace;
  const TaskInfo& info = t.task(task);
  auto exited = [&] {
    out.kind = Activity::Exited;
    out.text = info.exit == ExitHow::Exit ? QStringLiteral("exited") : QStringLiteral("exited (pvmd says gone)");
    return out;
  };
  if (shown == 0) {
    // A budget's window may hold none of a task that ended before it: the
    // task table keeps its exit.
    if (t.cut().cut && t.events(task).empty() && info.exit != ExitHow::None && info.exitTime <= now) {
      out.since = info.exitTime;
      return exited();
    }
    out.text = QStringLiteral("not started");
    return out;
  }
  const auto& ev = t.events(task);
  const Event& e = ev[shown - 1];
  out.since = e.time;
  if (info.exit != ExitHow::None && info.exitTime <= e.time) return exited();
  if (e.isBegin() && isBlocking(e.kind)) out.text = blockedWords(s, task, e, now, position, out.kind);
  else out.text = doneWords(s, e, position, out.kind);
  return out;
}

Activity activityOf(TaskState state) {
  switch (state) {
    case TaskState::NotStarted: return Activity::NotStarted;
    case TaskState::Computing: return Activity::Computing;
    case TaskState::Packing:
    case TaskState::Unpacking:
    case TaskState::Sending: return Activity::Communicating;
    case TaskState::Barrier: return Activity::Barrier;
    case TaskState::Exited: return Activity::Exited;
    default: return Activity::Blocked;
  }
}

QString activityName(Activity a) {
  static const char* names[] = {"not started", "computing", "communicating", "blocked", "in barrier", "exited"};
  return names[static_cast<int>(a)];
}

QColor activityColor(Activity a) {
  switch (a) {
    case Activity::Computing: return QColor(0x4c, 0xaf, 0x50);
    case Activity::Communicating: return QColor(0x21, 0x96, 0xf3);
    case Activity::Blocked: return QColor(0xe5, 0x39, 0x35);
    case Activity::Barrier: return QColor(0xff, 0xa0, 0x00);
    case Activity::Exited: return QColor(0x9e, 0x9e, 0x9e);
    default: return QColor(0xee, 0xee, 0xee);
  }
}

QColor stateColor(TaskState s) {
  switch (s) {
    case TaskState::Packing: return QColor(0x64, 0xb5, 0xf6);
    case TaskState::Unpacking: return QColor(0x19, 0x76, 0xd2);
    case TaskState::Collective: return QColor(0xff, 0x70, 0x43);
    case TaskState::Spawning: return QColor(0xab, 0x47, 0xbc);
    // Not the red of Receiving: waiting for a message and waiting in
    // another call (pvm_addhosts ...) are different stories.
    case TaskState::Blocked: return QColor(0x79, 0x55, 0x48);
    default: return activityColor(activityOf(s));
  }
}

QString formatDuration(TimeNs d) {
  double s = static_cast<double>(d) / 1e9;
  if (s >= 1) return QString::number(s, 'f', 1) + " s";
  if (s >= 1e-3) return QString::number(s * 1e3, 'f', 1) + " ms";
  return QString::number(s * 1e6, 'f', 0) + QStringLiteral(" µs");
}

// The record's fields as the trace writes them (the trace-format library's
// spelling), except strings, shown as their text rather than %-escaped.
QString eventArgs(const Trace& trace, const Event& e) {
  std::string out;
  appendEventArgs(out, trace, e);
  return qs(std::string_view(out).substr(out.empty() ? 0 : 1));  // without the first space
}

void appendEventArgs(std::string& out, const Trace& trace, const Event& e) {
  auto specs = kindSlots(e.kind, e.phase);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (!e.has(static_cast<int>(i))) continue;
    text::appendKey(out, specs[i].key);
    std::int32_t v = e.a[i];
    switch (specs[i].spelling) {
      case Spelling::String: out += trace.str(v); break;
      case Spelling::List: text::appendTidList(out, trace.list(v)); break;
      default: text::appendValue(out, specs[i].spelling, v);
    }
  }
  if (e.hasRc()) {
    text::appendKey(out, "rc");
    if (kindRcType(e.kind) == 't')
      text::appendTidResult(out, e.rc);
    else
      text::appendInt(out, e.rc);
  }
}

}  // namespace xab::view
