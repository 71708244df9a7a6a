// causal_walk.cpp -- the trace's communication as the re-dating passes see
// it (xab/model/causal_walk.h).
#include <xab/model/causal_walk.h>

#include <iterator>

namespace xab::detail {

Communication measureCommunication(const Trace& trace, const MessageTable& m,
                                   const std::vector<std::vector<TimeNs>>* beginCost) {
  Communication c;
  c.sendOf.resize(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) c.sendOf[t].assign(trace.events(t).size(), std::nullopt);
  TimeNs transfer = INT64_MAX, duration = INT64_MAX;
  for (std::size_t k = 0; k < m.messages.size(); ++k) {
    const EventRef send = m.messages.send(k);
    for (const MessageReceive& r : m.messages.receives(k)) {
      c.sendOf[r.recv.task][r.recv.index] = send;
      transfer = std::min(transfer, std::max<TimeNs>(0, trace.event(r.recv).time - trace.event(send).time));
    }
  }
  c.transfer = transfer == INT64_MAX ? 0 : transfer;
  for (std::size_t k = 0; k < m.messages.size(); ++k)
    for (const MessageReceive& r : m.messages.receives(k)) {
      auto b = beginOf(trace.events(r.recv.task), r.recv.index);
      if (!b) continue;
      TimeNs begin = trace.events(r.recv.task)[*b].time;
      if (trace.event(m.messages.send(k)).time + c.transfer > begin) continue;  // it waited for its message
      TimeNs d = trace.event(r.recv).time - begin - (beginCost ? (*beginCost)[r.recv.task][*b] : 0);
      duration = std::min(duration, std::max<TimeNs>(0, d));
    }
  c.receiveDuration = duration == INT64_MAX ? 0 : duration;
  return c;
}

namespace {

constexpr Kind kCollectiveKinds[] = {Kind::BARRIER, Kind::REDUCE, Kind::GATHER, Kind::SCATTER};

// Each task's instance number in each group it joined (joingroup's rc):
// whom a reduce, gather or scatter names as its root.  `present`: which
// of kCollectiveKinds some record has (bit k for kCollectiveKinds[k]),
// found in the same pass so that an absent kind costs no pass of its own.
std::map<StrId, std::map<std::int32_t, TaskIndex>> groupInstances(const Trace& trace, unsigned& present) {
  std::map<StrId, std::map<std::int32_t, TaskIndex>> out;
  present = 0;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t)
    trace.events(t).forEach([&](const Event& e) {
      if (e.kind == Kind::JOINGROUP && !e.isBegin() && e.hasRc() && e.rc >= 0) out[e.get(Key::Group, -1)][e.rc] = t;
      for (unsigned k = 0; k < std::size(kCollectiveKinds); ++k)
        if (e.kind == kCollectiveKinds[k]) present |= 1u << k;
    });
  return out;
}

// Whom the visit v of a collective of `kind` waits for (Sync).
std::vector<const BarrierVisit*> awaitedBy(Kind kind, const BarrierInstance& b, const BarrierVisit& v,
                                           std::optional<TaskIndex> root) {
  bool isRoot = root && *root == v.task;
  bool waitsForAll = kind == Kind::BARRIER || ((kind == Kind::REDUCE || kind == Kind::GATHER) && isRoot);
  bool waitsForRoot = kind == Kind::SCATTER && root && !isRoot;
  std::vector<const BarrierVisit*> out;
  if (!waitsForAll && !waitsForRoot) return out;
  for (const BarrierVisit& m : b.visits)
    if (m.arriveAt != kNoRecord && (waitsForAll || m.task == *root || &m == &v)) out.push_back(&m);
  return out;
}

}  // namespace

Collectives measureCollectives(const Trace& trace, const std::vector<std::vector<TimeNs>>* arrivalCost) {
  Collectives c;
  c.syncOf.resize(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) c.syncOf[t].assign(trace.events(t).size(), kNoRecord);
  unsigned present = 0;
  auto instances = groupInstances(trace, present);
  for (unsigned k = 0; k < std::size(kCollectiveKinds); ++k) {
    if (!(present & (1u << k))) continue;
    const Kind kind = kCollectiveKinds[k];
    for (const BarrierInstance& b : collectiveInstances(trace, kind)) {
      // A cut trace: a use whose members' arrivals straddle the cut lacks
      // those before it; its last arrival is not known.
      if (trace.cut().cut && b.count > 0 && b.visits.size() < static_cast<std::size_t>(b.count)) continue;
      std::optional<TaskIndex> root;
      if (auto g = instances.find(b.group); g != instances.end() && b.root >= 0)
        if (auto r = g->second.find(b.root); r != g->second.end()) root = r->second;
      for (const BarrierVisit& v : b.visits) {
        if (v.departAt == kNoRecord) continue;
        const Event& end = trace.events(v.task)[v.departAt];
        if (end.hasRc() && end.rc < 0) continue;  // failed: it waited for nobody
        auto awaited = awaitedBy(kind, b, v, root);
        if (awaited.empty()) continue;
        Sync s;
        const BarrierVisit* latest = awaited.front();
        for (const BarrierVisit* a : awaited) {
          s.awaited.push_back({a->task, a->arriveAt});
          if (a->arrive > latest->arrive) latest = a;
        }
        TimeNs cost = arrivalCost ? (*arrivalCost)[latest->task][latest->arriveAt] : 0;
        s.release = std::max<TimeNs>(0, v.depart - latest->arrive - cost);
        c.syncOf[v.task][v.departAt] = static_cast<std::uint32_t>(c.syncs.size());
        c.syncs.push_back(std::move(s));
      }
    }
  }
  return c;
}

}  // namespace xab::detail
