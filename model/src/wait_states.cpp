// wait_states.cpp -- finding the wait states of a trace
// (xab/model/wait_states.h).
#include <xab/model/wait_states.h>

#include <xab/model/causal_walk.h>

#include <algorithm>
#include <map>

namespace xab {

std::string_view waitPatternName(WaitPattern p) {
  switch (p) {
    case WaitPattern::LateSender: return "late sender";
    case WaitPattern::WrongOrder: return "wrong order";
    case WaitPattern::Barrier: return "barrier";
    case WaitPattern::Collective: return "collective";
    case WaitPattern::Spawn: return "spawn";
    case WaitPattern::Join: return "join";
  }
  return "?";
}

std::string_view waitPatternKey(WaitPattern p) {
  switch (p) {
    case WaitPattern::LateSender: return "lateSender";
    case WaitPattern::WrongOrder: return "wrongOrder";
    case WaitPattern::Barrier: return "barrier";
    case WaitPattern::Collective: return "collective";
    case WaitPattern::Spawn: return "spawn";
    case WaitPattern::Join: return "join";
  }
  return "?";
}

namespace {

// Records of xab's own (its clock, cost and flush records, the tasks'
// output): not the program's calls, skipped when looking for a loop.
bool xabOwn(const Event& e) {
  return e.kind == Kind::CLOCK || e.kind == Kind::COST || e.kind == Kind::FLUSH || e.kind == Kind::OUTPUT ||
         e.kind == Kind::TIDS || e.kind == Kind::STEP_WAIT;
}

// A poll that found no message (probe, nrecv, or trecv that timed out), or
// a probe that found the message the receive after it takes.
bool poll(const Event& e) {
  if (e.isBegin()) return e.kind == Kind::TRECV;
  if (e.kind == Kind::PROBE) return e.rc >= 0;
  return (e.kind == Kind::NRECV || e.kind == Kind::TRECV) && e.hasRc() && e.rc == 0;
}

// Where the waiting of the receive at record i began: its begin record
// (or itself, an nrecv), extended back over the polls just before it.
TimeNs waitBegin(const EventStore& ev, std::uint32_t i) {
  std::uint32_t k = i;
  if (auto b = detail::beginOf(ev, i)) k = *b;
  TimeNs begin = ev[k].time;
  while (k > 0) {
    const Event& e = ev[k - 1];
    if (!xabOwn(e) && !poll(e)) break;
    --k;
    if (!xabOwn(e)) begin = e.time;
  }
  return begin;
}

struct Finder {
  const Trace& trace;
  const MessageTable& messages;
  std::vector<std::optional<EventRef>> spawned;
  std::vector<WaitState> out;

  // The wait w for a record of task c at `at`: split at c's first record
  // when c did not exist yet and has a spawner.  The part before is
  // waiting for a spawn: caused by the spawner, or, when the waiter spawned
  // c itself, by c's start.
  void add(WaitState w, TaskIndex c, EventRef at) {
    if (w.end <= w.begin) return;
    TimeNs born = trace.task(c).firstTime;
    if (born > w.begin && spawned[c]) {
      WaitState s = w;
      s.pattern = WaitPattern::Spawn;
      s.end = std::min(born, w.end);
      s.cause = spawned[c]->task == w.task ? c : spawned[c]->task;
      s.causeAt = s.cause == c ? EventRef{c, 0} : *spawned[c];
      s.other = kNoTid;
      s.awaited = c;
      out.push_back(s);
      w.begin = s.end;
      if (w.end <= w.begin) return;
    }
    w.cause = w.awaited = c;
    w.causeAt = at;
    out.push_back(w);
  }

  void lateSenders() {
    // Per receiver: (its record, the send's time) of each message it took,
    // for the wrong-order test (a later receive's message sent earlier).
    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> taken(trace.taskCount());  // (record, message)
    for (std::uint32_t k = 0; k < messages.messages.size(); ++k)
      for (const MessageReceive& r : messages.messages.receives(k)) taken[r.recv.task].push_back({r.recv.index, k});
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      auto& list = taken[t];
      std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      const EventStore& ev = trace.events(t);
      // earliest[j]: the earliest send among the messages taken after list[j].
      std::vector<std::pair<TimeNs, Tid>> later(list.size() + 1, {INT64_MAX, kNoTid});
      for (std::size_t j = list.size(); j-- > 0;) {
        later[j] = later[j + 1];
        const Message m = messages.messages[list[j].second];
        if (m.time < later[j].first) later[j] = {m.time, trace.task(m.sender).tid};
      }
      for (std::size_t j = 0; j < list.size(); ++j) {
        const auto i = list[j].first;
        const Message m = messages.messages[list[j].second];
        const Event& e = ev[i];
        if (e.kind == Kind::HANDLER || m.sender == t) continue;
        WaitState w;
        w.task = t;
        w.at = i;
        w.call = e.kind;
        w.begin = waitBegin(ev, i);
        w.end = std::min(m.time, e.time);
        if (w.end <= w.begin) continue;
        if (later[j + 1].first < w.begin) {
          w.pattern = WaitPattern::WrongOrder;
          w.other = later[j + 1].second;
        }
        add(w, m.sender, m.send);
      }
    }
  }

  void collectives() {
    detail::Collectives c = detail::measureCollectives(trace);
    for (TaskIndex t = 0; t < trace.taskCount(); ++t)
      for (std::uint32_t i = 0; i < c.syncOf[t].size(); ++i) {
        if (c.syncOf[t][i] == kNoRecord) continue;
        const detail::Sync& s = c.syncs[c.syncOf[t][i]];
        const Event& end = trace.events(t)[i];
        auto b = detail::beginOf(trace.events(t), i);
        if (!b) continue;
        EventRef latest{};
        TimeNs latestTime = INT64_MIN;
        for (EventRef a : s.awaited)
          if (trace.event(a).time > latestTime) latestTime = trace.event(a).time, latest = a;
        if (latest.task == t) continue;
        WaitState w;
        w.task = t;
        w.at = i;
        w.call = end.kind;
        w.pattern = end.kind == Kind::BARRIER ? WaitPattern::Barrier : WaitPattern::Collective;
        w.group = end.get(Key::Group, -1);
        w.begin = trace.events(t)[*b].time;
        w.end = std::min(latestTime, end.time);
        add(w, latest.task, latest);
      }
  }

  // Loops of gettid (group, inst) or getinst (group, tid) that fail until
  // the task they name has joined.
  void joins() {
    std::map<std::pair<StrId, std::int32_t>, EventRef> joinedAs;  // (group, instance) -> its joingroup
    // Chunk by chunk (forEach): every record is read, at no index's cost.
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      std::uint32_t i = 0;
      trace.events(t).forEach([&](const Event& e) {
        if (e.kind == Kind::JOINGROUP && e.hasRc() && e.rc >= 0) joinedAs.emplace(std::pair{e.get(Key::Group, -1), e.rc}, EventRef{t, i});
        ++i;
      });
    }
    if (joinedAs.empty()) return;  // no group joined: nothing to wait for
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      const EventStore& ev = trace.events(t);
      std::uint32_t next = 0;
      ev.forEach([&](const Event& e) {
        const std::uint32_t i = next++;
        if ((e.kind != Kind::GETTID && e.kind != Kind::GETINST) || !e.hasRc() || e.rc < 0) return;
        Key which = e.kind == Kind::GETTID ? Key::Inst : Key::Tid;
        auto same = [&](const Event& p) {
          return p.kind == e.kind && p.hasRc() && p.rc < 0 && p.get(Key::Group, -1) == e.get(Key::Group, -1) &&
                 p.get(which, -2) == e.get(which, -2);
        };
        std::uint32_t k = i;
        TimeNs begin = e.time;
        while (k > 0 && (xabOwn(ev[k - 1]) || same(ev[k - 1]))) {
          --k;
          if (!xabOwn(ev[k])) begin = ev[k].time;
        }
        if (begin == e.time) return;
        std::int32_t inst = e.kind == Kind::GETTID ? e.get(Key::Inst, -1) : e.rc;
        auto j = joinedAs.find({e.get(Key::Group, -1), inst});
        if (j == joinedAs.end() || j->second.task == t) return;
        WaitState w;
        w.task = t;
        w.at = i;
        w.call = e.kind;
        w.pattern = WaitPattern::Join;
        w.group = e.get(Key::Group, -1);
        w.begin = begin;
        w.end = std::min(e.time, trace.event(j->second).time);
        add(w, j->second.task, j->second);
      });
    }
  }
};

}  // namespace

std::vector<WaitState> findWaitStates(const Trace& trace, const MessageTable& messages) {
  Finder f{trace, messages, detail::spawnedAt(trace), {}};
  f.lateSenders();
  f.collectives();
  f.joins();
  // By task, then time; a task's waits never overlap (a later one starts
  // no earlier than the one before ended).
  std::sort(f.out.begin(), f.out.end(), [](const WaitState& a, const WaitState& b) {
    return a.task != b.task ? a.task < b.task : a.begin < b.begin;
  });
  TaskIndex task = 0;
  TimeNs until = INT64_MIN;
  std::vector<WaitState> out;
  out.reserve(f.out.size());
  for (WaitState& w : f.out) {
    if (out.empty() || w.task != task) task = w.task, until = INT64_MIN;
    w.begin = std::max(w.begin, until);
    if (w.end <= w.begin) continue;
    until = w.end;
    out.push_back(w);
  }
  return out;
}

void addCpuWaits(WhyReport& w, const Trace& trace, const SampleReport& samples) {
  for (TaskIndex k = 0; k < w.perTask.size() && k < samples.tasks.size(); ++k) {
    if (samples.tasks[k].empty()) continue;
    const TaskInfo& i = trace.task(k);
    TimeNs life = std::max(i.lastTime, samples.tasks[k].at.back()) - std::min(i.firstTime, samples.tasks[k].at.front());
    TaskWaiting& p = w.perTask[k];
    p.cpuWait = samples.whole(trace, k).runnable;
    p.hostOverload = life > 0 ? static_cast<double>(p.cpuWait) / static_cast<double>(life) : 0;
  }
}

}  // namespace xab
