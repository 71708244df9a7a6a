// Sends matched to receives by (sender tid, serial), into flat arrays.
//
// Four steps (MessageMatching): three passes over the records -- count (so
// every array is allocated once, at its final size: no growth doubling the
// peak), make the messages, match the receives -- then one over the
// messages for the destinations that never received.  Messages are made task by task in record order, so
// a task's messages are one range, sorted by record and (nearly always) by
// serial: both lookups are binary searches in that range.
#include <xab/model/messages.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

namespace xab {
namespace {

bool isSend(const Event& e) { return e.phase == Phase::End && isMsgOut(e.kind) && !(e.hasRc() && e.rc < 0); }  // a failed send sent nothing
bool isReceive(const Event& e) { return gotMessage(e); }

template <class F>
void forEachRecord(const Trace& trace, F&& f) {
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    std::uint32_t i = 0;
    trace.events(t).forEach([&](const Event& e) { f(t, i++, e); });
  }
}

std::span<const Tid> destinationsOf(const Trace& trace, const Event& e) {
  return sendDestinations(trace, e).value_or(std::span<const Tid>{});
}

}  // namespace

bool gotMessage(const Event& e) {
  if (e.phase != Phase::End || !isMsgIn(e.kind)) return false;
  switch (e.kind) {
    case Kind::HANDLER: return true;
    case Kind::PRECV: return e.hasRc() && e.rc == 0;
    default: return e.hasRc() && e.rc > 0;
  }
}

std::optional<std::span<const Tid>> sendDestinations(const Trace& trace, const Event& e) {
  int slot = slotOf(e.kind, e.phase, Key::Dst);
  if (!e.has(slot)) {
    if (e.kind == Kind::BCAST) return std::nullopt;  // an older trace: not recorded
    return std::span<const Tid>{};
  }
  if (e.kind == Kind::MCAST || e.kind == Kind::BCAST) return trace.list(e.a[slot]);
  return std::span<const Tid>{&e.a[slot], 1};
}

double PairStats::bandwidth() const {
  return transit > 0 ? static_cast<double>(bytes) * 1e9 / static_cast<double>(transit) : 0.0;
}

void PairStats::add(std::int32_t b, TimeNs t) {
  ++count;
  bytes += static_cast<std::uint64_t>(std::max(b, 0));
  transit = addTime(transit, std::max<TimeNs>(t, 0));
}

Message MessageList::operator[](std::size_t i) const {
  const Stored& s = stored_[i];
  Message m;
  m.send = s.send;
  m.sender = s.send.task;
  m.kind = s.kind;
  m.destinationsKnown = s.flags & kDestinationsKnown;
  m.tag = s.tag;
  m.bytes = s.bytes;
  m.serial = s.serial;
  m.time = s.time;
  const auto at = static_cast<std::uint32_t>(i);
  if (s.kind == Kind::BCAST) {
    auto g = std::lower_bound(groups_.begin(), groups_.end(), std::pair<std::uint32_t, StrId>{at, INT32_MIN});
    if (g != groups_.end() && g->first == at) m.group = g->second;
  }
  m.destinations = {destinations_.data() + s.destinations, endOf(i, &Stored::destinations, destinations_.size()) - s.destinations};
  m.receives = {receives_.data() + s.receives, endOf(i, &Stored::receives, receives_.size()) - s.receives};
  if (s.flags & kUnreceived) {
    auto u = std::lower_bound(unreceivedAt_.begin(), unreceivedAt_.end(), std::pair<std::uint32_t, std::uint32_t>{at, 0});
    const std::uint32_t end = u + 1 != unreceivedAt_.end() ? (u + 1)->second : static_cast<std::uint32_t>(unreceived_.size());
    m.unreceived = {unreceived_.data() + u->second, end - u->second};
  }
  return m;
}

std::size_t MessageList::memoryBytes() const {
  return stored_.capacity() * sizeof(Stored) + receives_.capacity() * sizeof(MessageReceive) +
         (destinations_.capacity() + unreceived_.capacity()) * sizeof(Tid) +
         unreceivedAt_.capacity() * sizeof(unreceivedAt_[0]) + groups_.capacity() * sizeof(groups_[0]);
}

std::uint32_t MessageTable::atSerialPosition(TaskIndex sender, std::uint32_t position) const {
  return serialSorted_[sender] ? position : bySerial_[position];
}

std::pair<std::uint32_t, std::uint32_t> MessageTable::serialRange(TaskIndex sender, std::int32_t serial) const {
  if (serial <= 0 || sender + 1 >= sendBegin_.size()) return {0, 0};
  const std::uint32_t begin = sendBegin_[sender], end = sendBegin_[sender + 1];
  auto serialOf = [&](std::uint32_t i) { return messages.serial(atSerialPosition(sender, i)); };
  std::uint32_t lo = begin, hi = end;  // the first position whose serial is >= serial
  while (lo < hi) {
    std::uint32_t mid = lo + (hi - lo) / 2;
    if (serialOf(mid) < serial) lo = mid + 1;
    else hi = mid;
  }
  std::uint32_t last = lo;  // a repeated serial is rare: step over its repeats
  while (last < end && serialOf(last) == serial) ++last;
  return {lo, last};
}

std::int64_t MessageTable::find(TaskIndex sender, std::int32_t serial) const {
  auto [first, last] = serialRange(sender, serial);
  if (first == last) return -1;
  return atSerialPosition(sender, last - 1);
}

// Which send a receive got.  Receives are matched task by task, so "this
// task already received message m" is lastReceiver[m] == task + 1.
struct ReceiveMatcher {
  const Trace& trace;
  const MessageTable& table;
  std::vector<std::uint32_t> lastReceiver;

  static bool names(const Message& m, Tid tid) {
    return !m.destinationsKnown || std::find(m.destinations.begin(), m.destinations.end(), tid) != m.destinations.end();
  }

  // The message, or -1 (no such send), or -2 (its task already received
  // every send with that serial: a duplicate receive).  Of several sends
  // with the serial (a repeated serial), the first in record order that
  // this task has not received yet, best one that names it with the tag
  // it got, then one that names it, then any.
  std::int64_t match(TaskIndex receiver, TaskIndex sender, std::int32_t serial, std::int32_t tag) {
    auto [first, last] = table.serialRange(sender, serial);
    if (first == last) return -1;
    if (last - first == 1) {  // the usual case
      std::uint32_t m = table.atSerialPosition(sender, first);
      return lastReceiver[m] == receiver + 1 ? -2 : take(m, receiver);
    }
    const Tid me = trace.task(receiver).tid;
    std::int64_t best = -2;
    int bestScore = -1;
    for (std::uint32_t p = first; p < last; ++p) {  // in record order: the sort was stable
      std::uint32_t m = table.atSerialPosition(sender, p);
      if (lastReceiver[m] == receiver + 1) continue;
      const Message& msg = table.messages[m];
      int score = names(msg, me) ? (msg.tag == tag ? 2 : 1) : 0;
      if (score > bestScore) best = m, bestScore = score;
    }
    return best >= 0 ? take(static_cast<std::uint32_t>(best), receiver) : best;
  }

  std::int64_t take(std::uint32_t m, TaskIndex receiver) {
    lastReceiver[m] = receiver + 1;
    return m;
  }

  // A receive with no serial (its receiver or its sender was traced by
  // PVM, which numbers no messages: `match=order`, docs/trace-format.md):
  // the next send from that sender to this task with that tag, as PVM
  // delivers the messages of one pair in order.  -1: none left.
  std::int64_t matchByOrder(TaskIndex receiver, TaskIndex sender, std::int32_t tag) {
    if (!orderIndexed) indexUnnumbered();
    const Tid me = trace.task(receiver).tid;
    auto it = unnumbered.find({sender, me, tag});
    if (it == unnumbered.end()) return -1;
    auto& [cursor, sends] = it->second;
    if (cursor >= sends.size()) return -1;
    return take(sends[cursor++], receiver);
  }

  // Every send, per (sender, destination, tag), in send order: a libab
  // task's send (with a serial) received by a task PVM traces is paired
  // this way too.
  void indexUnnumbered() {
    orderIndexed = true;
    for (std::uint32_t m = 0; m < table.messages.size(); ++m) {
      const Message& msg = table.messages[m];
      for (Tid d : msg.destinations) unnumbered[{msg.sender, d, msg.tag}].second.push_back(m);
    }
  }
  bool orderIndexed = false;
  std::map<std::tuple<TaskIndex, Tid, std::int32_t>, std::pair<std::size_t, std::vector<std::uint32_t>>> unnumbered;
};

std::int64_t MessageTable::messageOf(EventRef r) const {
  if (r.task + 1 >= sendBegin_.size()) return -1;
  auto sends = messages.stored_.begin();
  auto s = std::lower_bound(sends + sendBegin_[r.task], sends + sendBegin_[r.task + 1], r.index,
                            [](const MessageList::Stored& m, std::uint32_t i) { return m.send.index < i; });
  if (s != sends + sendBegin_[r.task + 1] && s->send.index == r.index) return s - sends;
  auto recvs = recvIndex_.begin();
  auto v = std::lower_bound(recvs + recvBegin_[r.task], recvs + recvBegin_[r.task + 1], r.index,
                            [](const RecvIndex& x, std::uint32_t i) { return x.index < i; });
  if (v != recvs + recvBegin_[r.task + 1] && v->index == r.index) return v->message;
  return -1;
}

MessageLookup::MessageLookup(const MessageTable& table)
    : table_(table), send_(table.sendBegin_), recv_(table.recvBegin_) {}

std::int64_t MessageLookup::messageOf(EventRef r) {
  const MessageTable& t = table_;
  if (r.task + 1 >= t.sendBegin_.size()) return -1;
  std::uint32_t& s = send_[r.task];
  std::uint32_t& v = recv_[r.task];
  const bool sent = s > t.sendBegin_[r.task], got = v > t.recvBegin_[r.task];
  const auto& sends = t.messages.stored_;
  if (sent && sends[s - 1].send.index == r.index) return s - 1;  // asked again
  if (got && t.recvIndex_[v - 1].index == r.index) return t.recvIndex_[v - 1].message;
  if ((sent && sends[s - 1].send.index > r.index) || (got && t.recvIndex_[v - 1].index > r.index))
    return t.messageOf(r);  // out of order
  for (const std::uint32_t end = t.sendBegin_[r.task + 1]; s < end && sends[s].send.index <= r.index; ++s)
    if (sends[s].send.index == r.index) return s++;
  for (const std::uint32_t end = t.recvBegin_[r.task + 1]; v < end && t.recvIndex_[v].index <= r.index; ++v)
    if (t.recvIndex_[v].index == r.index) return t.recvIndex_[v++].message;
  return -1;
}

std::size_t MessageTable::memoryBytes() const {
  return messages.memoryBytes() + unmatched.capacity() * sizeof(UnmatchedReceive) +
         (sendBegin_.capacity() + recvBegin_.capacity() + bySerial_.capacity()) * sizeof(std::uint32_t) +
         recvIndex_.capacity() * sizeof(RecvIndex) + serialSorted_.capacity() / 8 +
         pairs.size() * (sizeof(PairStats) + 48);
}

// The four steps of matchMessages, each filling its part of the table.
struct MessageMatching {
  const Trace& trace;
  MessageTable& table;

  struct Counts {
    std::size_t sends = 0, destinations = 0, receives = 0;
  };

  // 1. Count, so that every array is allocated once, at its final size.
  Counts countRecords() const {
    Counts n;
    forEachRecord(trace, [&](TaskIndex, std::uint32_t, const Event& e) {
      if (isSend(e)) {
        ++n.sends;
        n.destinations += destinationsOf(trace, e).size();
      } else if (isReceive(e)) {
        ++n.receives;
      }
    });
    return n;
  }

  // 2. The messages, task by task; then each task's serial order and the
  // sends that repeat a serial.
  void makeMessages(const Counts& n) {
    const auto tasks = static_cast<TaskIndex>(trace.taskCount());
    table.messages.stored_.reserve(n.sends);
    table.messages.destinations_.reserve(n.destinations);
    table.sendBegin_.assign(tasks + 1, 0);
    table.serialSorted_.assign(tasks, true);
    forEachRecord(trace, [&](TaskIndex t, std::uint32_t i, const Event& e) {
      if (isSend(e)) addMessage(t, i, e);
    });
    for (TaskIndex t = 0; t < tasks; ++t) table.sendBegin_[t + 1] = std::max(table.sendBegin_[t + 1], table.sendBegin_[t]);
    table.sent = table.messages.size();
    sortBySerial();
    countDuplicateSerials();
  }

  void addMessage(TaskIndex t, std::uint32_t i, const Event& e) {
    MessageList& list = table.messages;
    MessageList::Stored m;
    m.send = {t, i};
    m.kind = e.kind;
    m.tag = e.get(Key::Tag);
    m.bytes = e.get(Key::Bytes);
    m.serial = e.get(Key::Serial);
    m.time = e.time;
    if (e.kind == Kind::BCAST) {
      if (const StrId g = e.get(Key::Group, -1); g != -1)
        list.groups_.emplace_back(static_cast<std::uint32_t>(list.stored_.size()), g);
    }
    auto known = sendDestinations(trace, e);
    m.flags = known.has_value() ? MessageList::kDestinationsKnown : 0;
    auto d = known.value_or(std::span<const Tid>{});
    m.destinations = static_cast<std::uint32_t>(list.destinations_.size());
    list.destinations_.insert(list.destinations_.end(), d.begin(), d.end());  // reserved: no reallocation
    if (!list.stored_.empty() && list.stored_.back().send.task == t && m.serial <= list.stored_.back().serial)
      table.serialSorted_[t] = false;
    table.messagesSent += d.size();
    list.stored_.push_back(m);
    table.sendBegin_[t + 1] = static_cast<std::uint32_t>(list.stored_.size());
  }

  // A task whose serials do not rise with its sends gets its messages
  // sorted by serial (stable: record order among repeats) in bySerial_.
  void sortBySerial() {
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      if (table.serialSorted_[t]) continue;
      if (table.bySerial_.empty()) table.bySerial_.resize(table.messages.size());
      auto b = table.bySerial_.begin() + table.sendBegin_[t], e = table.bySerial_.begin() + table.sendBegin_[t + 1];
      for (auto it = b; it != e; ++it) *it = static_cast<std::uint32_t>(it - table.bySerial_.begin());
      std::stable_sort(b, e, [&](std::uint32_t x, std::uint32_t y) { return table.messages.serial(x) < table.messages.serial(y); });
    }
  }

  // Sends that repeat a serial of their task (in its serial order they are neighbours).
  void countDuplicateSerials() {
    for (TaskIndex t = 0; t < trace.taskCount(); ++t)
      for (std::uint32_t p = table.sendBegin_[t] + 1; p < table.sendBegin_[t + 1]; ++p)
        if (const std::int32_t serial = table.messages.serial(table.atSerialPosition(t, p));
            serial > 0 && serial == table.messages.serial(table.atSerialPosition(t, p - 1)))  // 0: no serial (match=order)
          ++table.duplicateSerials;
  }

  // 3. Match the receives: first the index by record (in record order),
  // then each message's receives together, in the same order.
  void matchReceives(std::size_t receives) {
    const auto tasks = static_cast<TaskIndex>(trace.taskCount());
    std::vector<std::uint32_t> perMessage(table.messages.size() + 1, 0);
    table.recvIndex_.reserve(receives);
    table.recvBegin_.assign(tasks + 1, 0);
    ReceiveMatcher matcher{trace, table, std::vector<std::uint32_t>(table.messages.size(), 0), false, {}};
    forEachRecord(trace, [&](TaskIndex t, std::uint32_t i, const Event& e) {
      if (isReceive(e)) matchReceive(matcher, t, i, e, perMessage);
    });
    for (TaskIndex t = 0; t < tasks; ++t) table.recvBegin_[t + 1] = std::max(table.recvBegin_[t + 1], table.recvBegin_[t]);
    for (std::size_t m = 0; m < table.messages.size(); ++m) perMessage[m + 1] += perMessage[m];
    groupReceives(perMessage);
  }

  // One receive record: matched (indexed, counted in pairs and total), a
  // duplicate, or unmatched.  perMessage[m + 1] counts message m's receives.
  void matchReceive(ReceiveMatcher& matcher, TaskIndex t, std::uint32_t i, const Event& e,
                    std::vector<std::uint32_t>& perMessage) {
    Tid src = e.get(Key::Src);
    std::int32_t serial = e.get(Key::Serial);
    if (isPvmdTid(src)) {
      ++table.fromPvmd;
      return;
    }
    auto sender = trace.findTask(src);
    std::int64_t idx = !sender ? -1
                       : serial > 0 ? matcher.match(t, *sender, serial, e.get(Key::Tag))
                                    : matcher.matchByOrder(t, *sender, e.get(Key::Tag));
    if (idx == -2) {
      ++table.duplicateReceives;
      return;
    }
    if (idx < 0) {
      table.unmatched.push_back({{t, i}, src, serial});
      return;
    }
    auto m = static_cast<std::uint32_t>(idx);
    table.recvIndex_.push_back({i, m});
    table.recvBegin_[t + 1] = static_cast<std::uint32_t>(table.recvIndex_.size());
    ++perMessage[m + 1];
    const MessageList::Stored& msg = table.messages.stored_[m];
    std::int32_t bytes = e.get(Key::Bytes);
    if (bytes <= 0) bytes = msg.bytes;
    // Saturating: a corrupt trace's dates may lie 584 years apart.
    TimeNs transit;
    if (__builtin_sub_overflow(e.time, msg.time, &transit)) transit = e.time > msg.time ? INT64_MAX : INT64_MIN;
    table.pairs[{msg.send.task, t}].add(bytes, transit);
    table.total.add(bytes, transit);
  }

  // The matched receives stored grouped by message; perMessage[m] is where
  // message m's receives start (a running sum of the counts).
  void groupReceives(std::vector<std::uint32_t>& perMessage) {
    MessageList& list = table.messages;
    for (std::size_t m = 0; m < list.stored_.size(); ++m) list.stored_[m].receives = perMessage[m];
    list.receives_.resize(table.recvIndex_.size());
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      std::uint32_t k = table.recvBegin_[t];
      trace.events(t).forEach([&, i = std::uint32_t{0}](const Event& e) mutable {  // in order: no block decoded twice
        if (k < table.recvBegin_[t + 1] && table.recvIndex_[k].index == i)
          list.receives_[perMessage[table.recvIndex_[k++].message]++] = {{t, i}, e.time};
        ++i;
      });
    }
  }

  // 4. Named destinations that never received: counted, then stored.
  void listUnreceived() {
    auto missing = [&](const Message& m, Tid d) {
      return std::none_of(m.receives.begin(), m.receives.end(),
                          [&](const MessageReceive& r) { return trace.task(r.recv.task).tid == d; });
    };
    std::size_t unreceived = 0;
    MessageList& list = table.messages;
    for (const Message& m : list) unreceived += std::count_if(m.destinations.begin(), m.destinations.end(), [&](Tid d) { return missing(m, d); });
    list.unreceived_.reserve(unreceived);
    for (std::uint32_t i = 0; i < list.size(); ++i) {
      const Message m = list[i];
      auto at = static_cast<std::uint32_t>(list.unreceived_.size());
      for (Tid d : m.destinations)
        if (missing(m, d)) list.unreceived_.push_back(d);
      if (list.unreceived_.size() > at) {
        ++table.neverReceived;
        list.unreceivedAt_.emplace_back(i, at);
        list.stored_[i].flags |= MessageList::kUnreceived;
      }
      if (!m.destinationsKnown) table.messagesSent += m.receives.size();  // its receivers stand in
    }
    table.unreceivedMessages = list.unreceived_.size();
  }
};

MessageTable matchMessages(const Trace& trace) {
  MessageTable table;
  MessageMatching step{trace, table};
  const MessageMatching::Counts n = step.countRecords();
  step.makeMessages(n);
  step.matchReceives(n.receives);
  step.listUnreceived();
  return table;
}

}  // namespace xab
