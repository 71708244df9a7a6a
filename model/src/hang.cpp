// Hang diagnosis: who is blocked, on what, and why nothing will come.
#include <xab/model/causal_walk.h>
#include <xab/model/hang.h>
#include <xab/model/states.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace xab {
namespace {

bool isBlockedState(TaskState s) {
  return s == TaskState::Receiving || s == TaskState::Barrier || s == TaskState::Collective ||
         s == TaskState::Spawning || s == TaskState::Blocked;
}

// Tids that a task of the program ended with a pvm_kill that succeeded.
std::set<Tid> killedByProgram(const Trace& trace) {
  std::set<Tid> out;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    trace.events(t).forEach([&](const Event& e) {
      if (e.kind == Kind::KILL && e.phase == Phase::End && e.hasRc() && e.rc >= 0) out.insert(e.get(Key::Tid));
    });
  return out;
}

// libab's own records (clock exchanges, its cost, its sends to abmon) are
// not calls either: a send answering a poke inside a blocked call is told
// by a `flush` record after the call's begin record.
bool notACall(Kind k) {
  return k == Kind::TASK_EXIT || k == Kind::ABMON_LOST || k == Kind::ABMON_BAD || k == Kind::CLOCK ||
         k == Kind::COST || k == Kind::FLUSH;
}

// The begin record of the blocking call a task is still in after its last
// record, or -1: its last call record (task.exit and abmon's notes are not
// calls) begins a blocking call, or was made inside one (a pvm_addmhf
// handler, a pvm_recvf matching function) that has not ended.  A task
// that called pvm_exit, or whose blocking call ended, is in none.
std::int64_t openBlockingCall(const Trace& trace, TaskIndex t) {
  const auto& ev = trace.events(t);
  const std::size_t n = ev.size();
  for (std::size_t i = n; i-- > 0;) {
    const Event& e = ev[i];
    if (notACall(e.kind)) continue;
    if (e.kind == Kind::EXIT) return -1;
    if (e.isBegin() && isBlocking(e.kind)) return static_cast<std::int64_t>(i);
    if (e.insideCall()) return enclosingCall(trace, t, static_cast<std::uint32_t>(i));
    return -1;
  }
  return -1;
}

struct Diagnoser {
  const Trace& trace;
  const MessageTable& messages;
  const BarrierAnalysis& barriers;
  std::vector<StateInterval> now;  // current state per task (for one that ended blocked: that wait)
  std::vector<bool> blocked, exited, ended;
  std::set<Tid> killed;  // tids a task of the program ended with pvm_kill
  std::vector<std::optional<EventRef>> spawned;  // detail::spawnedAt, once needed
  HangReport report;

  Diagnoser(const Trace& tr, const MessageTable& m, const BarrierAnalysis& b)
      : trace(tr), messages(m), barriers(b) {
    killed = killedByProgram(trace);
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      now.push_back(currentState(trace, t));
      bool ex = trace.task(t).exit != ExitHow::None;
      bool in = false;  // still in a blocking call after its last record
      bool bounded = false;  // ... one with a timeout (trecv): it ends by itself
      if (!ex || !killed.count(trace.task(t).tid))
        if (std::int64_t at = openBlockingCall(trace, t); at >= 0) {
          now.back() = intervalAfter(trace, t, static_cast<std::uint32_t>(at));
          in = isBlockedState(now.back().state);
          bounded = in && boundedWait(t, trace.events(t)[static_cast<std::uint32_t>(at)], ex);
        }
      if (bounded) in = false;
      if (ex && in && lostRecords(t, now.back())) in = false;
      if (ex && in && crashedIn(t, now.back())) in = false;
      exited.push_back(ex);
      ended.push_back(ex && in);
      blocked.push_back(!bounded && ((!ex && isBlockedState(now.back().state)) || (ex && in)));
    }
  }

  // Did the task install a matching function of its own (pvm_recvf)
  // before record `before`?  Then what a receive accepts is the program's
  // choice, not tag and source.
  bool ownMatcher(TaskIndex t, std::uint32_t before) const {
    const auto& ev = trace.events(t);
    for (std::uint32_t i = 0; i < before && i < ev.size(); ++i)
      if (ev[i].kind == Kind::RECVF) return true;
    return false;
  }

  // A task PVM's tracer recorded (libab tells a task's language; PVM does
  // not) that ended without pvm_exit in a receive that an unreceived
  // message sent to it matches: its last records are missing, not its end.
  // libab sends a task's records when it ends, however it ends.
  bool lostRecords(TaskIndex t, const StateInterval& s) {
    if (trace.task(t).exit != ExitHow::TaskExit || s.state != TaskState::Receiving) return false;
    if (trace.task(t).lang >= 0 || ownMatcher(t, s.first)) return false;
    Tid me = trace.task(t).tid;
    for (std::size_t i = 0; i < messages.messages.size(); ++i) {
      const auto unreceived = messages.messages.unreceived(i);  // decodes no record
      if (std::find(unreceived.begin(), unreceived.end(), me) == unreceived.end()) continue;
      const Message m = messages.messages[i];
      if ((s.a != kAnyTid && trace.task(m.sender).tid != s.a) || (s.b != kAnyTag && m.tag != s.b)) continue;
      report.recordsMissing.push_back({t, s.call, m.tag, m.sender});
      return true;
    }
    return sentBeforeWindow(t, s);
  }

  // The same on a window (a cut trace) whose matching send is before the
  // cut: the messages to the task in flight at the cut, plus the window's
  // sends to it, less the window's receives of it, per sender and tag.
  std::map<std::tuple<Tid, TaskIndex, std::int32_t>, std::int64_t> windowFlight;  // once needed
  bool flightCounted = false;
  bool sentBeforeWindow(TaskIndex t, const StateInterval& s) {
    const Tid me = trace.task(t).tid;
    const auto before = trace.inFlightAtCut(me);
    if (!trace.cut().cut || before.empty()) return false;
    if (!flightCounted) {
      flightCounted = true;
      for (std::uint32_t i = 0; i < messages.messages.size(); ++i) {
        const Message m = messages.messages[i];
        for (Tid d : messages.messages.destinations(i)) ++windowFlight[{d, m.sender, m.tag}];
      }
      for (TaskIndex r = 0; r < trace.taskCount(); ++r)
        trace.events(r).forEach([&](const Event& e) {
          if (!gotMessage(e)) return;
          if (const auto from = trace.findTask(e.get(Key::Src))) --windowFlight[{trace.task(r).tid, *from, e.get(Key::Tag)}];
        });
    }
    for (const InFlightAtCut& f : before) {
      if ((s.a != kAnyTid && trace.task(f.from).tid != s.a) || (s.b != kAnyTag && f.tag != s.b)) continue;
      auto it = windowFlight.find({me, f.from, f.tag});
      if (f.count + (it == windowFlight.end() ? 0 : it->second) <= 0) continue;
      report.recordsMissing.push_back({t, s.call, f.tag, f.from});
      return true;
    }
    return false;
  }

  // A receive with a timeout (pvm_trecv) ends by itself: a task in one is
  // waiting, at most that long, not blocked.
  bool boundedWait(TaskIndex t, const Event& begin, bool ended) {
    if (begin.kind != Kind::TRECV || !begin.isBegin()) return false;
    std::int32_t us = begin.get(Key::Timeout, -1);
    if (us < 0) return false;
    report.boundedWaits.push_back({t, ended, us, begin.time});
    return true;
  }

  // The program's task ended by a fault signal while in a blocking call.
  bool crashedIn(TaskIndex t, const StateInterval& s) {
    static constexpr int kFaults[] = {4, 6, 7, 8, 11};  // SIGILL SIGABRT SIGBUS SIGFPE SIGSEGV
    const TaskInfo& info = trace.task(t);
    for (int number : kFaults) {
      if (info.signal != number) continue;
      report.crashed.push_back({t, number, s.call, info.exitTime});
      return true;
    }
    return false;
  }

  void pendingFor(BlockedTask& b) {
    Tid me = trace.task(b.task).tid;
    for (std::uint32_t i = 0; i < messages.messages.size(); ++i) {
      const auto unreceived = messages.messages.unreceived(i);  // decodes no record
      if (std::find(unreceived.begin(), unreceived.end(), me) == unreceived.end()) continue;
      const Message m = messages.messages[i];
      bool srcOk = b.state.a == kAnyTid || trace.task(m.sender).tid == b.state.a;
      bool tagOk = b.state.b == kAnyTag || m.tag == b.state.b;
      b.pending.push_back({i, m.sender, m.tag, m.bytes, b.state.state == TaskState::Receiving && srcOk && tagOk});
    }
  }

  // Computed once, on first need: which barrier each task is still in, and
  // each group's members (joined and not left) at the end of the trace.
  std::map<TaskIndex, const BarrierInstance*> openVisits;
  std::map<StrId, std::vector<TaskIndex>> groupMembers;
  bool indexed = false;

  void index() {
    if (indexed) return;
    indexed = true;
    for (const BarrierInstance& bi : barriers.instances)
      for (const BarrierVisit& v : bi.visits)
        if (v.depart == kOpenEnd) openVisits[v.task] = &bi;
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      std::map<StrId, bool> in;
      trace.events(t).forEach([&](const Event& e) {
        if (e.phase != Phase::End) return;
        if (e.kind == Kind::JOINGROUP) in[e.get(Key::Group, -1)] = !e.hasRc() || e.rc >= 0;
        if (e.kind == Kind::LVGROUP) in[e.get(Key::Group, -1)] = false;
      });
      for (const auto& [g, member] : in)
        if (member) groupMembers[g].push_back(t);
    }
  }

  const BarrierInstance* openBarrier(TaskIndex t) {
    index();
    auto it = openVisits.find(t);
    return it == openVisits.end() ? nullptr : it->second;
  }

  std::vector<TaskIndex> members(StrId group) {
    index();
    auto it = groupMembers.find(group);
    return it == groupMembers.end() ? std::vector<TaskIndex>{} : it->second;
  }

  // Every task still in a barrier of this group (any use: one waiting at
  // another use has arrived too, it is not missing).
  std::set<TaskIndex> inBarrierOf(StrId group) {
    index();
    std::set<TaskIndex> out;
    for (const auto& [t, bi] : openVisits)
      if (bi->group == group) out.insert(t);
    return out;
  }

  void barrierFacts(BlockedTask& b) {
    const BarrierInstance* bi = openBarrier(b.task);
    std::set<TaskIndex> arrived = inBarrierOf(b.state.a);
    std::size_t elsewhere = arrived.size();  // waiting at another use of it
    if (bi) {
      for (const BarrierVisit& v : bi->visits) {
        elsewhere -= arrived.count(v.task);
        arrived.insert(v.task);
        if (v.task != b.task && v.depart == kOpenEnd) b.waitingWith.push_back(v.task);
      }
      b.barrierKnown = true;
      b.arrived = bi->visits.size();
      b.barrierCount = bi->count;
      b.elsewhere = elsewhere;
    }
    for (TaskIndex m : members(b.state.a))
      if (!arrived.count(m)) b.missing.push_back(m);
  }

  // Each barrier use that tasks wait at, once: its waiters, and the
  // members that have not arrived.
  void barrierWaits() {
    std::set<const BarrierInstance*> done;
    for (const BlockedTask& b : report.blocked) {
      if (b.state.state != TaskState::Barrier) continue;
      const BarrierInstance* bi = openBarrier(b.task);
      if (!bi || !done.insert(bi).second) continue;
      BarrierWait w{bi->group, bi->count, bi->visits.size(), {}, b.missing};
      for (const BarrierVisit& v : bi->visits)
        if (v.depart == kOpenEnd) w.waiters.push_back(v.task);
      report.barrierWaits.push_back(std::move(w));
    }
  }

  void blockedTask(TaskIndex t) {
    BlockedTask b;
    b.task = t;
    b.state = now[t];
    b.ended = ended[t];
    if (b.ended) b.endedAt = trace.task(t).exitTime;
    b.ownMatcher = b.state.state == TaskState::Receiving && ownMatcher(t, b.state.first);
    if (b.state.state == TaskState::Receiving && b.state.a == kAnyTid) {
      if (spawned.empty()) spawned = detail::spawnedAt(trace);
      for (TaskIndex c = 0; c < trace.taskCount(); ++c) {
        const bool child = trace.task(c).parent == trace.task(t).tid || (spawned[c] && spawned[c]->task == t);
        if (child && trace.task(c).exit == ExitHow::TaskExit && !ended[c] && !blocked[c] &&
            !killed.count(trace.task(c).tid))
          b.goneChildren.push_back(c);
      }
    }
    pendingFor(b);
    if (b.state.state == TaskState::Barrier) barrierFacts(b);
    report.blocked.push_back(std::move(b));
  }

  // Wait-for edges: a receive from one named task, a barrier's missing members.
  std::vector<std::vector<TaskIndex>> waitGraph() const {
    std::vector<std::vector<TaskIndex>> g(trace.taskCount());
    for (const BlockedTask& b : report.blocked) {
      if (b.state.state == TaskState::Receiving && b.state.a != kAnyTid) {
        if (auto src = trace.findTask(b.state.a)) g[b.task].push_back(*src);
      }
      for (TaskIndex m : b.missing) g[b.task].push_back(m);
    }
    return g;
  }

  void findCycles() {
    auto g = waitGraph();
    std::vector<int> color(trace.taskCount(), 0);  // 0 new, 1 on stack, 2 done
    std::vector<TaskIndex> stack;
    std::set<std::vector<TaskIndex>> seen;
    std::function<void(TaskIndex)> dfs = [&](TaskIndex u) {
      color[u] = 1;
      stack.push_back(u);
      for (TaskIndex v : g[u]) {
        if (!blocked[v]) continue;
        if (color[v] == 1) {
          std::vector<TaskIndex> cyc(std::find(stack.begin(), stack.end(), v), stack.end());
          auto canon = cyc;
          std::rotate(canon.begin(), std::min_element(canon.begin(), canon.end()), canon.end());
          if (seen.insert(canon).second) report.cycles.push_back(canon);
        } else if (color[v] == 0) {
          dfs(v);
        }
      }
      stack.pop_back();
      color[u] = 2;
    };
    for (const BlockedTask& b : report.blocked)
      if (color[b.task] == 0) dfs(b.task);
  }

  void summarise() {
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      report.tasks.push_back({now[t], exited[t], ended[t], blocked[t]});
      report.liveTasks += !exited[t];
    }
    barrierWaits();
    std::size_t died = 0;
    for (const BlockedTask& b : report.blocked) died += b.ended;
    report.endedBlocked = died;
    report.stillBlocked = report.blocked.size() - died;
  }

  HangReport run() {
    for (TaskIndex t = 0; t < trace.taskCount(); ++t)
      if (blocked[t]) blockedTask(t);
    report.hung = !report.blocked.empty();
    findCycles();
    summarise();
    return std::move(report);
  }
};

}  // namespace

HangReport diagnoseHang(const Trace& trace, const MessageTable& messages,
                        const BarrierAnalysis& barriers, HangOptions) {
  return Diagnoser(trace, messages, barriers).run();
}

}  // namespace xab
