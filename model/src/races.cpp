// Message races (xab/model/races.h).
//
// First the order: a vector clock per task (Mattern; Fidge), walked in
// causal order (causal_walk.h).  A task's own component is the index of
// its current record plus one; a receive takes in its message's send's
// clock, a spawned task its parent's at the spawn.  Of each message only
// the sender's component for each destination is kept: the message's send
// happens after the destination's record i exactly when that component
// exceeds i + 1.
//
// Then, per task and tag, its incoming messages in the order it received
// them (never received: last) with suffix minima of that component (the
// two least of different senders): a receive at record r races when some
// message received after it, from another sender, has a component of at
// most r + 1.
#include <xab/model/causal_walk.h>
#include <xab/model/races.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

namespace xab {
namespace {

constexpr std::uint32_t kNever = std::numeric_limits<std::uint32_t>::max();

using Clock = std::vector<std::uint32_t>;

void join(Clock& into, const Clock& from) {
  for (std::size_t k = 0; k < into.size(); ++k) into[k] = std::max(into[k], from[k]);
}

// Per message, per destination (its destinations' order): the sender's
// component for that destination at the send, kNever when not known.
// Parallel to the table's destinations: message m's start at
// table.messages.firstDestination(m).
struct Order {
  std::vector<std::uint32_t> atSend;
};

Order causalOrder(const Trace& trace, const MessageTable& table) {
  const std::size_t n = trace.taskCount();
  Order out;
  out.atSend.assign(table.messages.destinationCount(), kNever);
  std::vector<Clock> clock(n, Clock(n, 0));
  std::vector<std::uint32_t> cursor(n, 0);
  MessageLookup lookup(table);  // the walk takes each task's records in order
  // Clocks of sends some receive has yet to take in, with how many.
  std::unordered_map<std::uint32_t, std::pair<Clock, std::size_t>> pending;
  std::map<EventRef, Clock, decltype([](EventRef a, EventRef b) {
             return a.task != b.task ? a.task < b.task : a.index < b.index;
           })>
      atSpawn;  // clocks at spawn records that started a task of the trace
  const auto spawned = detail::spawnedAt(trace);
  for (TaskIndex t = 0; t < n; ++t)
    if (spawned[t]) atSpawn.emplace(*spawned[t], Clock());

  auto taskOfTid = [&](Tid tid) { return trace.findTask(tid); };

  detail::walkCausally(trace, cursor, [&](TaskIndex t, bool force) {
    const std::uint32_t i = cursor[t];
    const EventRef here{t, i};
    const Event& e = trace.event(here);
    if (i == 0 && spawned[t]) {
      const EventRef s = *spawned[t];
      if (cursor[s.task] <= s.index && !force) return false;
      if (const auto it = atSpawn.find(s); it != atSpawn.end() && !it->second.empty()) join(clock[t], it->second);
    }
    std::int64_t m = -1;
    if (!e.isBegin() && (isMsgOut(e.kind) || gotMessage(e))) m = lookup.messageOf(here);
    if (m >= 0 && gotMessage(e)) {
      const EventRef send = table.messages.send(static_cast<std::size_t>(m));
      if (cursor[send.task] <= send.index && !force) return false;
      if (auto it = pending.find(static_cast<std::uint32_t>(m)); it != pending.end()) {
        join(clock[t], it->second.first);
        if (--it->second.second == 0) pending.erase(it);
      }
    }
    clock[t][t] = i + 1;
    if (m >= 0 && isMsgOut(e.kind)) {
      const auto mi = static_cast<std::size_t>(m);
      std::uint32_t at = table.messages.firstDestination(mi);
      for (Tid d : table.messages.destinations(mi))
        if (const auto dt = taskOfTid(d)) out.atSend[at++] = clock[t][*dt];
        else ++at;
      if (const std::size_t receives = table.messages.receives(mi).size(); receives > 0)
        pending[static_cast<std::uint32_t>(m)] = {clock[t], receives};
    }
    if (e.kind == Kind::SPAWN && !atSpawn.empty())
      if (auto it = atSpawn.find(here); it != atSpawn.end()) it->second = clock[t];
    ++cursor[t];
    return true;
  });
  return out;
}

// One incoming message of a task, as the race check sees it.
struct Incoming {
  std::uint32_t receivedAt;  // the receive's record, kNever if never received
  std::uint32_t atSend;      // the sender's component for this task at the send
  TaskIndex sender;
  std::uint32_t message;
};

// The least atSend of a suffix, and the least of a sender other than its.
struct Least {
  std::uint32_t at = kNever, message = 0;
  TaskIndex sender = 0;
  std::uint32_t otherAt = kNever, otherMessage = 0;
};

struct Suffixes {
  std::size_t count = 0;      // incoming messages, counted before `in` is filled (one allocation)
  std::vector<Incoming> in;   // by receivedAt
  std::vector<std::uint32_t> asks;  // the receives from any task that ask it (positions in their task's list), by record

  // For each receive asked about, whether a message received after it,
  // from a sender other than the one of the message it took, was sent
  // not after it: a race, counted in g (its first one, by record, kept).
  // One sweep from the end: the least components of the suffix are kept
  // as it grows, never stored per message.
  template <class Receive>
  void answer(const std::vector<Receive>& receives, const MessageTable& table, TaskIndex t, RaceGroup& g) {
    std::stable_sort(in.begin(), in.end(),
                     [](const Incoming& a, const Incoming& b) { return a.receivedAt < b.receivedAt; });
    Least l;
    std::size_t k = in.size();
    for (std::size_t q = asks.size(); q-- > 0;) {
      const auto& receive = receives[asks[q]];
      const std::uint32_t r = receive.index;
      for (; k > 0 && in[k - 1].receivedAt > r; --k) {
        const Incoming& x = in[k - 1];
        if (x.atSend < l.at) {
          if (x.sender != l.sender) l.otherAt = l.at, l.otherMessage = l.message;
          l.at = x.atSend, l.message = x.message, l.sender = x.sender;
        } else if (x.sender != l.sender && x.atSend < l.otherAt) {
          l.otherAt = x.atSend, l.otherMessage = x.message;
        }
      }
      const TaskIndex sender = table.messages.send(receive.message).task;
      std::int64_t other = -1;
      if (l.at != kNever && l.sender != sender && l.at <= r + 1) other = l.message;
      else if (l.otherAt != kNever && l.otherAt <= r + 1) other = l.otherMessage;
      ++g.receives;
      if (other < 0) continue;
      ++g.racy;
      g.first = MessageRace{{t, r}, receive.message, other};  // the sweep goes back: the last kept is the first
    }
  }
};

bool mayReceiveFromAnyTask(Kind k) { return k == Kind::RECV || k == Kind::TRECV || k == Kind::PRECV; }

// A receive from any task that took a message.
struct AnySource {
  std::uint32_t index;  // its end record
  std::int32_t tag;     // the tag it asked for (kAnyTag: any)
  std::uint32_t message;
};

// f(receive) on each of task t's receives from any task, in record order.
template <class F>
void receivesFromAnyTask(const Trace& trace, MessageLookup& lookup, TaskIndex t, F&& f) {
  const auto& ev = trace.events(t);
  for (std::uint32_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (e.isBegin() || !mayReceiveFromAnyTask(e.kind) || !gotMessage(e)) continue;
    const auto b = detail::beginOf(ev, i);
    if (!b || ev[*b].get(Key::Src, 0) != kAnyTid) continue;
    const std::int64_t m = lookup.messageOf({t, i});
    if (m >= 0) f(AnySource{i, ev[*b].get(Key::Tag, kAnyTag), static_cast<std::uint32_t>(m)});
  }
}

// Task t's receives from any task (tasks asked in rising order of the
// lookup's).
std::vector<AnySource> receivesFromAnyTask(const Trace& trace, MessageLookup& lookup, TaskIndex t) {
  std::vector<AnySource> out;
  receivesFromAnyTask(trace, lookup, t, [&](const AnySource& r) { out.push_back(r); });
  return out;
}

}  // namespace

RaceReport findMessageRaces(const Trace& trace, const MessageTable& table) {
  RaceReport out;
  const std::size_t n = trace.taskCount();
  if (n > kRaceTaskLimit) return out;
  out.checked = true;
  // Per receiving task, the tags its receives from any task ask for: only
  // its messages of those tags (all of them for a receive of any tag) are
  // kept below.
  std::vector<std::map<std::int32_t, Suffixes>> byTag(n);
  std::vector<bool> anyTag(n, false);
  bool some = false;
  {
    MessageLookup lookup(table);
    for (TaskIndex t = 0; t < n; ++t)
      receivesFromAnyTask(trace, lookup, t, [&](const AnySource& r) {
        some = true;
        if (r.tag == kAnyTag) anyTag[t] = true;
        else byTag[t][r.tag];
      });
  }
  if (!some) return out;
  const Order order = causalOrder(trace, table);

  std::vector<Suffixes> all(n);
  // Over the messages: counted, then stored for receiving tasks [from, to)
  // (no growth by doubling).
  auto incoming = [&](TaskIndex from, TaskIndex to, auto&& f) {
    for (std::uint32_t m = 0; m < table.messages.size(); ++m) {
      const auto destinations = table.messages.destinations(m);
      std::optional<std::int32_t> tag;  // read from the send record when some destination asks
      for (std::uint32_t j = 0; j < destinations.size(); ++j) {
        const std::uint32_t atSend = order.atSend[table.messages.firstDestination(m) + j];
        const auto d = trace.findTask(destinations[j]);
        if (!d || *d < from || *d >= to || atSend == kNever) continue;
        auto tagged = byTag[*d].end();
        if (!byTag[*d].empty()) {
          if (!tag) tag = trace.event(table.messages.send(m)).get(Key::Tag);
          tagged = byTag[*d].find(*tag);
        }
        if (!anyTag[*d] && tagged == byTag[*d].end()) continue;
        std::uint32_t at = kNever;
        for (const MessageReceive& r : table.messages.receives(m))
          if (r.recv.task == *d) {
            at = r.recv.index;
            break;
          }
        const Incoming x{at, atSend, table.messages.send(m).task, m};
        if (tagged != byTag[*d].end()) f(tagged->second, x);
        if (anyTag[*d]) f(all[*d], x);
      }
    }
  };
  incoming(0, static_cast<TaskIndex>(n), [](Suffixes& s, const Incoming&) { ++s.count; });
  std::vector<std::size_t> held(n, 0);  // incoming messages each task keeps
  std::size_t total = 0;
  for (TaskIndex t = 0; t < n; ++t) {
    held[t] = all[t].count;
    for (const auto& [tag, s] : byTag[t]) held[t] += s.count;
    total += held[t];
  }
  // The receiving tasks in runs of about an eighth of all incoming
  // messages (one task at least), one pass over the messages a run: the
  // lists of one run are held at a time, not of every task.
  const std::size_t budget = total / 8 + 1;
  // Each receive from any task asks its suffix (its task's messages of
  // the tag it asked for) which message could have come first: a suffix
  // is one group, (task, tag).
  std::map<std::pair<TaskIndex, std::int32_t>, RaceGroup> groups;
  // A task's receives from any task are listed when it is answered (one
  // task's at a time).
  MessageLookup answering(table);
  auto answerTask = [&](TaskIndex t) {
    const std::vector<AnySource> anySource = receivesFromAnyTask(trace, answering, t);
    for (std::uint32_t k = 0; k < anySource.size(); ++k) {
      const AnySource& r = anySource[k];
      (r.tag == kAnyTag ? all[t] : byTag[t].find(r.tag)->second).asks.push_back(k);
    }
    out.anySource += anySource.size();
    auto group = [&](std::int32_t tag, Suffixes& s) {
      if (s.asks.empty()) return;
      RaceGroup& g = groups[{t, tag}];
      g.task = t;
      g.tag = tag;
      s.answer(anySource, table, t, g);
      out.racy += g.racy;
    };
    group(kAnyTag, all[t]);
    for (auto& [tag, s] : byTag[t]) group(tag, s);
    all[t] = Suffixes{};
    byTag[t].clear();
  };
  for (TaskIndex from = 0, to = 0; from < n; from = to) {
    for (std::size_t run = 0; to < n && (to == from || run + held[to] <= budget); ++to) run += held[to];
    for (TaskIndex t = from; t < to; ++t) {
      all[t].in.reserve(all[t].count);
      for (auto& [tag, s] : byTag[t]) s.in.reserve(s.count);
    }
    incoming(from, to, [](Suffixes& s, const Incoming& x) { s.in.push_back(x); });
    for (TaskIndex t = from; t < to; ++t) answerTask(t);
  }
  for (auto& [key, g] : groups)
    if (g.racy > 0) out.groups.push_back(g);
  return out;
}

std::string describe(const Trace& trace, const MessageTable& table, const RaceGroup& g) {
  const Message& took = table.messages[static_cast<std::size_t>(g.first.took)];
  const Message& other = table.messages[static_cast<std::size_t>(g.first.other)];
  const Event& r = trace.event(g.first.receive);
  std::string s = trace.label(g.task) + " receives " +
                  (g.tag == kAnyTag ? std::string("any tag") : "tag " + std::to_string(g.tag)) + " from any task: " +
                  std::to_string(g.racy) + " of " + std::to_string(g.receives) +
                  (g.receives == 1 ? " receive is a message race" : " receives are message races");
  s += "; at " + formatSeconds(r.time, trace.firstTime()) + " s it took " + trace.label(took.sender) +
       "'s message (tag " + std::to_string(took.tag) + ") while " + trace.label(other.sender) + "'s (tag " +
       std::to_string(other.tag) + "), sent independently of that receive, could have come first";
  return s;
}

}  // namespace xab
