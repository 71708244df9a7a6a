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
#include <utility>
#include <vector>

namespace xab {
namespace {

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

bool sentMessage(const Event& e) { return e.phase == Phase::End && isMsgOut(e.kind) && !(e.hasRc() && e.rc < 0); }

std::int32_t messageBytes(const Event& send, const Event& recv) {
  const std::int32_t bytes = recv.get(Key::Bytes);
  return bytes > 0 ? bytes : send.get(Key::Bytes);
}

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

TaskIndex MessageList::senderOf(std::size_t i) const {
  // The last task whose range starts at or before i (tasks without
  // messages have empty ranges that start where the next one does).
  const auto it = std::upper_bound(taskBegin_.begin(), taskBegin_.end(), static_cast<std::uint32_t>(i));
  return static_cast<TaskIndex>(it - taskBegin_.begin() - 1);
}

bool MessageList::destinationsKnown(std::size_t i) const {
  return !std::binary_search(unknownDestinations_.begin(), unknownDestinations_.end(), static_cast<std::uint32_t>(i));
}

Message MessageList::operator[](std::size_t i) const {
  const Stored& s = stored_[i];
  Message m;
  m.send = {senderOf(i), s.index};
  m.sender = m.send.task;
  const Event e = trace_->event(m.send);
  m.kind = e.kind;
  m.destinationsKnown = destinationsKnown(i);
  m.tag = e.get(Key::Tag);
  m.bytes = e.get(Key::Bytes);
  m.serial = s.serial;
  m.time = e.time;
  if (e.kind == Kind::BCAST) m.group = e.get(Key::Group, -1);
  m.destinations = destinations(i);
  m.receives = receives(i);
  m.unreceived = unreceived(i);
  return m;
}

std::span<const Tid> MessageList::unreceived(std::size_t i) const {
  const auto at = static_cast<std::uint32_t>(i);
  auto u = std::lower_bound(unreceivedAt_.begin(), unreceivedAt_.end(), std::pair<std::uint32_t, std::uint32_t>{at, 0});
  if (u == unreceivedAt_.end() || u->first != at) return {};
  const std::uint32_t end = u + 1 != unreceivedAt_.end() ? (u + 1)->second : static_cast<std::uint32_t>(unreceived_.size());
  return {unreceived_.data() + u->second, end - u->second};
}

std::size_t MessageList::memoryBytes() const {
  return stored_.capacity() * sizeof(Stored) + receives_.capacity() * sizeof(MessageReceive) +
         (destinations_.capacity() + unreceived_.capacity() + taskBegin_.capacity()) * sizeof(std::uint32_t) +
         unreceivedAt_.capacity() * sizeof(unreceivedAt_[0]) + unknownDestinations_.capacity() * sizeof(std::uint32_t);
}

std::uint32_t MessageTable::atSerialPosition(TaskIndex sender, std::uint32_t position) const {
  return serialSorted_[sender] ? position : bySerial_[position];
}

std::pair<std::uint32_t, std::uint32_t> MessageTable::serialRange(TaskIndex sender, std::int32_t serial) const {
  const auto& taskBegin = messages.taskBegin_;
  if (serial <= 0 || sender + 1 >= taskBegin.size()) return {0, 0};
  const std::uint32_t begin = taskBegin[sender], end = taskBegin[sender + 1];
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

  // While receives are matched, messages are read field by field: their
  // `receives` count, they do not point into receives_ yet.
  bool names(std::uint32_t m, Tid tid) const {
    const auto d = table.messages.destinations(m);
    return !table.messages.destinationsKnown(m) || std::find(d.begin(), d.end(), tid) != d.end();
  }
  std::int32_t tagOf(std::uint32_t m) const { return trace.event(table.messages.send(m)).get(Key::Tag); }

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
      int score = names(m, me) ? (tagOf(m) == tag ? 2 : 1) : 0;
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
  // delivers the messages of one pair in order.  -1: none left; kSentBeforeCut:
  // one of the messages in flight at the cut (Trace::inFlightAtCut).
  static constexpr std::int64_t kSentBeforeCut = -3;
  std::int64_t matchByOrder(TaskIndex receiver, TaskIndex sender, std::int32_t tag) {
    if (!orderIndexed) indexUnnumbered();
    const Tid me = trace.task(receiver).tid;
    auto it = unnumbered.find({sender, me, tag});
    if (it == unnumbered.end()) return -1;
    OrderQueue& q = it->second;
    if (q.owed > 0) return --q.owed, kSentBeforeCut;
    if (q.cursor >= q.sends.size()) return -1;
    return take(q.sends[q.cursor++], receiver);
  }

  // Every send, per (sender, destination, tag), in send order: a libab
  // task's send (with a serial) received by a task PVM traces is paired
  // this way too.  On a window, the messages in flight at the cut come
  // first (owed: received before any send of the window), and as many of
  // the window's sends as the records before the cut received ahead of
  // their sends' records were received there (skipped).
  void indexUnnumbered() {
    orderIndexed = true;
    for (std::uint32_t m = 0; m < table.messages.size(); ++m) {
      const TaskIndex sender = table.messages.send(m).task;
      for (Tid d : table.messages.destinations(m)) unnumbered[{sender, d, tagOf(m)}].sends.push_back(m);
    }
    if (!trace.cut().cut) return;
    for (TaskIndex r = 0; r < trace.taskCount(); ++r)
      for (const InFlightAtCut& f : trace.inFlightAtCut(trace.task(r).tid)) {
        OrderQueue& q = unnumbered[{f.from, f.to, f.tag}];
        if (f.count > 0) q.owed = f.count;
        else q.cursor = static_cast<std::size_t>(-f.count);
      }
  }
  struct OrderQueue {
    std::size_t cursor = 0;
    std::int64_t owed = 0;
    std::vector<std::uint32_t> sends;
  };
  bool orderIndexed = false;
  std::map<std::tuple<TaskIndex, Tid, std::int32_t>, OrderQueue> unnumbered;
};

std::int64_t MessageTable::messageOf(EventRef r) const {
  const auto& sendBegin = messages.taskBegin_;
  if (r.task + 1 >= sendBegin.size()) return -1;
  auto sends = messages.stored_.begin();
  auto s = std::lower_bound(sends + sendBegin[r.task], sends + sendBegin[r.task + 1], r.index,
                            [](const MessageList::Stored& m, std::uint32_t i) { return m.index < i; });
  if (s != sends + sendBegin[r.task + 1] && s->index == r.index) return s - sends;
  auto recvs = recvIndex_.begin();
  auto v = std::lower_bound(recvs + recvBegin_[r.task], recvs + recvBegin_[r.task + 1], r.index,
                            [](const RecvIndex& x, std::uint32_t i) { return x.index < i; });
  if (v != recvs + recvBegin_[r.task + 1] && v->index == r.index) return v->message;
  return -1;
}

MessageLookup::MessageLookup(const MessageTable& table)
    : table_(table), send_(table.messages.taskBegin_), recv_(table.recvBegin_) {}

std::int64_t MessageLookup::messageOf(EventRef r) {
  const MessageTable& t = table_;
  const auto& sendBegin = t.messages.taskBegin_;
  if (r.task + 1 >= sendBegin.size()) return -1;
  std::uint32_t& s = send_[r.task];
  std::uint32_t& v = recv_[r.task];
  const bool sent = s > sendBegin[r.task], got = v > t.recvBegin_[r.task];
  const auto& sends = t.messages.stored_;
  if (sent && sends[s - 1].index == r.index) return s - 1;  // asked again
  if (got && t.recvIndex_[v - 1].index == r.index) return t.recvIndex_[v - 1].message;
  if ((sent && sends[s - 1].index > r.index) || (got && t.recvIndex_[v - 1].index > r.index))
    return t.messageOf(r);  // out of order
  for (const std::uint32_t end = sendBegin[r.task + 1]; s < end && sends[s].index <= r.index; ++s)
    if (sends[s].index == r.index) return s++;
  for (const std::uint32_t end = t.recvBegin_[r.task + 1]; v < end && t.recvIndex_[v].index <= r.index; ++v)
    if (t.recvIndex_[v].index == r.index) return t.recvIndex_[v++].message;
  return -1;
}

std::size_t MessageTable::memoryBytes() const {
  return messages.memoryBytes() + unmatched.capacity() * sizeof(UnmatchedReceive) +
         (recvBegin_.capacity() + bySerial_.capacity()) * sizeof(std::uint32_t) +
         recvIndex_.capacity() * sizeof(RecvIndex) + serialSorted_.capacity() / 8 +
         pairs.size() * (sizeof(PairStats) + 48);
}

namespace {

// A matched receive in the pairs' and total's figures.
void addTransit(MessageTable& table, TaskIndex sender, const Event& send, TaskIndex receiver, const Event& recv) {
  const std::int32_t bytes = messageBytes(send, recv);
  // Saturating: a corrupt trace's dates may lie 584 years apart.
  TimeNs transit;
  if (__builtin_sub_overflow(recv.time, send.time, &transit)) transit = recv.time > send.time ? INT64_MAX : INT64_MIN;
  table.pairs[{sender, receiver}].add(bytes, transit);
  table.total.add(bytes, transit);
}

}  // namespace

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
      if (sentMessage(e)) {
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
    table.messages.trace_ = &trace;
    table.messages.stored_.reserve(n.sends);
    table.messages.destinations_.reserve(n.destinations);
    auto& sendBegin = table.messages.taskBegin_;
    sendBegin.assign(tasks + 1, 0);
    table.serialSorted_.assign(tasks, true);
    forEachRecord(trace, [&](TaskIndex t, std::uint32_t i, const Event& e) {
      if (sentMessage(e)) addMessage(t, i, e);
    });
    for (TaskIndex t = 0; t < tasks; ++t) sendBegin[t + 1] = std::max(sendBegin[t + 1], sendBegin[t]);
    table.sent = table.messages.size();
    sortBySerial();
    countDuplicateSerials();
  }

  void addMessage(TaskIndex t, std::uint32_t i, const Event& e) {
    MessageList& list = table.messages;
    MessageList::Stored m;
    m.index = i;
    m.serial = e.get(Key::Serial);
    const auto known = sendDestinations(trace, e);
    if (!known) list.unknownDestinations_.push_back(static_cast<std::uint32_t>(list.stored_.size()));
    const auto d = known.value_or(std::span<const Tid>{});
    m.destinations = static_cast<std::uint32_t>(list.destinations_.size());
    list.destinations_.insert(list.destinations_.end(), d.begin(), d.end());  // reserved: no reallocation
    if (list.taskBegin_[t + 1] != 0 && m.serial <= list.stored_.back().serial)  // the task's last message was the one before
      table.serialSorted_[t] = false;
    table.messagesSent += d.size();
    list.stored_.push_back(m);
    list.taskBegin_[t + 1] = static_cast<std::uint32_t>(list.stored_.size());
  }

  // A task whose serials do not rise with its sends gets its messages
  // sorted by serial (stable: record order among repeats) in bySerial_.
  void sortBySerial() {
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      if (table.serialSorted_[t]) continue;
      if (table.bySerial_.empty()) table.bySerial_.resize(table.messages.size());
      const auto& sendBegin = table.messages.taskBegin_;
      auto b = table.bySerial_.begin() + sendBegin[t], e = table.bySerial_.begin() + sendBegin[t + 1];
      for (auto it = b; it != e; ++it) *it = static_cast<std::uint32_t>(it - table.bySerial_.begin());
      std::stable_sort(b, e, [&](std::uint32_t x, std::uint32_t y) { return table.messages.serial(x) < table.messages.serial(y); });
    }
  }

  // Sends that repeat a serial of their task (in its serial order they are neighbours).
  void countDuplicateSerials() {
    for (TaskIndex t = 0; t < trace.taskCount(); ++t)
      for (std::uint32_t p = table.messages.taskBegin_[t] + 1; p < table.messages.taskBegin_[t + 1]; ++p)
        if (const std::int32_t serial = table.messages.serial(table.atSerialPosition(t, p));
            serial > 0 && serial == table.messages.serial(table.atSerialPosition(t, p - 1)))  // 0: no serial (match=order)
          ++table.duplicateSerials;
  }

  // 3. Match the receives: first the index by record (in record order),
  // then each message's receives together, in the same order.
  // Each message's `receives` counts its receives while they are matched
  // (no array of counts beside the table).
  void matchReceives(std::size_t receives) {
    const auto tasks = static_cast<TaskIndex>(trace.taskCount());
    table.recvIndex_.reserve(receives);
    table.recvBegin_.assign(tasks + 1, 0);
    {
      ReceiveMatcher matcher{trace, table, std::vector<std::uint32_t>(table.messages.size(), 0), false, {}};
      forEachRecord(trace, [&](TaskIndex t, std::uint32_t i, const Event& e) {
        if (isReceive(e)) matchReceive(matcher, t, i, e);
      });
    }  // its array per message is freed before the receives are stored
    for (TaskIndex t = 0; t < tasks; ++t) table.recvBegin_[t + 1] = std::max(table.recvBegin_[t + 1], table.recvBegin_[t]);
    groupReceives();
  }

  // One receive record: matched (indexed, counted in pairs and total, and
  // in its message's `receives`), a duplicate, or unmatched.
  void matchReceive(ReceiveMatcher& matcher, TaskIndex t, std::uint32_t i, const Event& e) {
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
    if (idx == ReceiveMatcher::kSentBeforeCut || (idx < 0 && sender && sentBeforeCut(*sender, serial))) {
      ++table.beforeCut;
      return;
    }
    if (idx < 0) {
      table.unmatched.push_back({{t, i}, src, serial});
      return;
    }
    auto m = static_cast<std::uint32_t>(idx);
    table.recvIndex_.push_back({i, m});
    table.recvBegin_[t + 1] = static_cast<std::uint32_t>(table.recvIndex_.size());
    ++table.messages.stored_[m].receives;
    const EventRef sendRef = table.messages.send(m);
    addTransit(table, sendRef.task, trace.event(sendRef), t, e);
  }

  // A receive without its send in a cut trace: was the send before the cut?
  bool sentBeforeCut(TaskIndex sender, std::int32_t serial) const {
    if (!trace.cut().cut) return false;
    const CutTask& c = trace.cutTask(sender);
    return serial > 0 ? serial <= c.lastSerial : c.sentUnnumbered;
  }

  // The matched receives stored grouped by message.  Each message's
  // `receives` turns from its count into where its receives start (a
  // running sum), serves as the cursor that stores them (ending where the
  // next message's start), and is moved back by one message.
  void groupReceives() {
    MessageList& list = table.messages;
    auto& stored = list.stored_;
    std::uint32_t sum = 0;
    for (auto& s : stored) sum += std::exchange(s.receives, sum);
    list.receives_.resize(table.recvIndex_.size());
    for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
      std::uint32_t k = table.recvBegin_[t];
      for (; k < table.recvBegin_[t + 1]; ++k)
        list.receives_[stored[table.recvIndex_[k].message].receives++] = {{t, table.recvIndex_[k].index}};
    }
    for (std::size_t m = stored.size(); m-- > 1;) stored[m].receives = stored[m - 1].receives;
    if (!stored.empty()) stored[0].receives = 0;
  }

  // 4. Named destinations that never received: counted, then stored.
  void listUnreceived() {
    MessageList& list = table.messages;
    // A cut trace: a destination whose records before the cut reach past
    // the send may have received it there.
    std::vector<std::uint8_t> beforeCut(trace.cut().cut ? list.size() : 0);
    auto missing = [&](std::size_t m, Tid d) {
      const auto receives = list.receives(m);
      if (std::any_of(receives.begin(), receives.end(),
                      [&](const MessageReceive& r) { return trace.task(r.recv.task).tid == d; }))
        return false;
      if (beforeCut.empty()) return true;
      const auto dt = trace.findTask(d);
      if (!dt || trace.cutTask(*dt).dropped == 0 || trace.cutTask(*dt).until < trace.event(list.send(m)).time)
        return true;
      beforeCut[m] = 1;
      return false;
    };
    std::size_t unreceived = 0;
    for (std::size_t m = 0; m < list.size(); ++m)
      for (Tid d : list.destinations(m)) unreceived += missing(m, d);
    list.unreceived_.reserve(unreceived);
    for (std::uint32_t i = 0; i < list.size(); ++i) {
      auto at = static_cast<std::uint32_t>(list.unreceived_.size());
      for (Tid d : list.destinations(i))
        if (missing(i, d)) list.unreceived_.push_back(d);
      if (list.unreceived_.size() > at) {
        ++table.neverReceived;
        list.unreceivedAt_.emplace_back(i, at);
      }
      if (!list.destinationsKnown(i)) table.messagesSent += list.receives(i).size();  // its receivers stand in
    }
    table.unreceivedMessages = list.unreceived_.size();
    for (std::uint8_t b : beforeCut) table.receivedBeforeCut += b;
  }
};

void MessageTable::retimed(const Trace& trace) {
  messages.trace_ = &trace;
  pairs.clear();
  total = {};
  for (std::size_t k = 0; k < messages.size(); ++k) {
    const EventRef sendRef = messages.send(k);
    const Event send = trace.event(sendRef);
    for (const MessageReceive& r : messages.receives(k))
      addTransit(*this, sendRef.task, send, r.recv.task, trace.event(r.recv));
  }
}

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
