#include "message_lines.h"

#include "snapshot.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace xab::view {

namespace {

// The messages received, by send time, then index (the lines of an mcast
// stay together, in the order of its receives: a stable sort of the lines
// by send time).  A task's sends are in its records' order, their times
// rising: the order is a merge of the tasks' sends, read in the table's
// order, which needs no array of the messages' times; f(m, time) for each.
// False (nothing done) when some task's send times fall.
template <class F>
bool mergeBySendTime(const MessageList& list, const Trace& trace, F&& f) {
  struct Head {
    TimeNs time;
    std::uint32_t m;
    bool operator>(const Head& o) const { return time != o.time ? time > o.time : m > o.m; }
  };
  // Each task's messages: [first, end) in the table's order.
  std::vector<std::uint32_t> end(trace.taskCount(), 0);
  for (std::uint32_t m = 0; m < list.size(); ++m) end[list.send(m).task] = m + 1;
  auto nextFrom = [&](std::uint32_t m, std::uint32_t stop) {  // the first received in [m, stop)
    while (m < stop && list.receives(m).empty()) ++m;
    return m < stop ? m : UINT32_MAX;
  };
  std::vector<Head> heap;
  for (std::uint32_t m = 0; m < list.size(); m = end[list.send(m).task])
    if (const std::uint32_t n = nextFrom(m, end[list.send(m).task]); n != UINT32_MAX)
      heap.push_back({trace.event(list.send(n)).time, n});
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const Head h = heap.back();
    heap.pop_back();
    if (!f(h.m, h.time)) return false;
    if (const std::uint32_t n = nextFrom(h.m + 1, end[list.send(h.m).task]); n != UINT32_MAX) {
      heap.push_back({trace.event(list.send(n)).time, n});
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
  }
  return true;
}

}  // namespace

void MessageLines::build(const MessageTable& table, const Trace& trace) {
  const MessageList& list = table.messages;
  std::size_t n = 0;
  for (std::uint32_t m = 0; m < list.size(); ++m) n += list.receives(m).size();
  auto start = [&] {
    *this = MessageLines();
    table_ = &table;
    trace_ = &trace;
    // One allocation each: growth by doubling would raise the peak.
    message_.reserve(n);
    delta_.reserve(n);
    transit_.reserve(n);
    pair_.reserve(n);
    sizeOf_.reserve(n);
    base_.reserve((n + kRun - 1) / kRun);
  };
  start();
  PairIds pairIds;  // (sender, receiver) -> its index in pairs_
  SizeIds sizeIds;
  // Each task's sends in time order (as they are, nearly always): merged.
  std::vector<TimeNs> last(trace.taskCount(), INT64_MIN);
  if (mergeBySendTime(list, trace, [&](std::uint32_t m, TimeNs t) {
        TimeNs& previous = last[list.send(m).task];
        if (t < previous) return false;
        previous = t;
        add(m, t, pairIds, sizeIds);
        return true;
      }))
    return;
  // Else sorted, with the times of the messages at hand.
  start();
  std::vector<std::uint32_t> order;
  std::vector<TimeNs> sendTime(list.size());
  for (std::uint32_t m = 0; m < list.size(); ++m) {
    if (list.receives(m).empty()) continue;
    order.push_back(m);
    sendTime[m] = trace.event(list.send(m)).time;
  }
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return sendTime[a] != sendTime[b] ? sendTime[a] < sendTime[b] : a < b;
  });
  pairIds.clear();
  sizeIds.clear();
  for (std::uint32_t m : order) add(m, sendTime[m], pairIds, sizeIds);
}

// The lines of message m, sent at t: after those of every earlier message.
void MessageLines::add(std::uint32_t m, TimeNs t, PairIds& pairIds, SizeIds& sizeIds) {
  const EventRef send = table_->messages.send(m);
  for (const MessageReceive& r : table_->messages.receives(m)) {
    const auto line = static_cast<std::uint32_t>(message_.size());
    message_.push_back(m);
    const auto [id, added] =
        pairIds.try_emplace(std::uint64_t{send.task} << 32 | r.recv.task, static_cast<std::uint32_t>(pairs_.size()));
    if (added) pairs_.emplace_back(send.task, r.recv.task);
    pair_.push_back(id->second);
    // The send time: a difference from its run's first, unless the run
    // spans more than 32 bits of nanoseconds (then every time of the run).
    if (line % kRun == 0) base_.push_back(t);
    if (base_.back() != kWide &&
        static_cast<std::uint64_t>(t) - static_cast<std::uint64_t>(base_.back()) > std::numeric_limits<std::uint32_t>::max()) {
      const std::size_t first = line - line % kRun;
      wideRuns_.push_back(static_cast<std::uint32_t>(line / kRun));
      for (std::size_t j = first; j < line; ++j) wide_.push_back(base_.back() + delta_[j]);
      base_.back() = kWide;
    }
    if (base_.back() == kWide) {
      if (line % kRun == 0) wideRuns_.push_back(static_cast<std::uint32_t>(line / kRun));
      wide_.push_back(t);
      delta_.push_back(0);
    } else {
      delta_.push_back(static_cast<std::uint32_t>(t - base_.back()));
    }
    // The transit, saturating (a corrupt trace's dates may lie 584 years apart).
    const Event received = trace_->event(r.recv);
    const TimeNs recv = received.time;
    addSize(messageBytes(trace_->event(send), received), sizeIds);
    TimeNs transit;
    if (__builtin_sub_overflow(recv, t, &transit)) transit = recv > t ? INT64_MAX : INT64_MIN;
    maxTransit_ = std::max(maxTransit_, transit);
    if (transit > std::numeric_limits<std::int32_t>::min() && transit <= std::numeric_limits<std::int32_t>::max()) {
      transit_.push_back(static_cast<std::int32_t>(transit));
    } else {
      transit_.push_back(kLongTransit);
      long_.emplace_back(line, recv);
    }
  }
}

// Line i's bytes: its index among the sizes met while there are at most
// 256 of them, else the size itself.
void MessageLines::addSize(std::int32_t bytes, SizeIds& sizeIds) {
  if (!bigSize_.empty()) {
    bigSize_.push_back(bytes);
    return;
  }
  const auto [id, added] = sizeIds.try_emplace(bytes, static_cast<std::uint8_t>(sizes_.size()));
  if (!added || sizes_.size() < 256) {
    if (added) sizes_.push_back(bytes);
    sizeOf_.push_back(id->second);
    return;
  }
  // A 257th size: every line's size whole from here on.
  bigSize_.reserve(message_.capacity());
  for (std::uint8_t k : sizeOf_) bigSize_.push_back(sizes_[k]);
  bigSize_.push_back(bytes);
  sizeOf_ = {};
  sizes_ = {};
  sizeIds.clear();
}

TimeNs MessageLines::wideSend(std::size_t i) const {
  const auto run = static_cast<std::uint32_t>(i / kRun);
  const auto at = static_cast<std::size_t>(std::lower_bound(wideRuns_.begin(), wideRuns_.end(), run) - wideRuns_.begin());
  return wide_[at * kRun + i % kRun];
}

TimeNs MessageLines::longRecv(std::size_t i) const {
  auto it = std::lower_bound(long_.begin(), long_.end(), static_cast<std::uint32_t>(i),
                             [](const std::pair<std::uint32_t, TimeNs>& a, std::uint32_t line) { return a.first < line; });
  return it->second;
}

std::size_t MessageLines::lowerBound(TimeNs t, std::size_t from, std::size_t to) const {
  while (from < to) {
    const std::size_t mid = from + (to - from) / 2;
    if (send(mid) < t) from = mid + 1;
    else to = mid;
  }
  return from;
}

namespace {

MessageLine wholeLine(const Event& s, const Event& r, EventRef sendRef, EventRef recvRef, std::uint32_t m) {
  MessageLine l;
  l.send = s.time;
  l.recv = r.time;
  l.sendPos = s.seq;
  l.recvPos = r.seq;
  l.sender = sendRef.task;
  l.receiver = recvRef.task;
  l.message = m;
  l.bytes = messageBytes(s, r);
  return l;
}

}  // namespace

MessageLine MessageLines::lineOf(std::uint32_t m, std::uint32_t k) const {
  const EventRef s = table_->messages.send(m), r = table_->messages.receives(m)[k].recv;
  return wholeLine(trace_->event(s), trace_->event(r), s, r, m);
}

MessageLine MessageLines::operator[](std::size_t i) const { return lineOf(message_[i], rankOf(i)); }

std::size_t MessageLines::memoryBytes() const {
  return message_.capacity() * 4 + delta_.capacity() * 4 + transit_.capacity() * 4 + pair_.capacity() * 4 +
         pairs_.capacity() * sizeof(pairs_[0]) + base_.capacity() * 8 +
         wideRuns_.capacity() * 4 + wide_.capacity() * 8 + long_.capacity() * sizeof(long_[0]) +
         sizeOf_.capacity() + sizes_.capacity() * 4 + bigSize_.capacity() * 4;
}

ShownRecords::ShownRecords(const ViewSnapshot& s, std::size_t position)
    : s_(&s), position_(position), all_(position >= s.size()) {
  if (!all_ && s.trace) counts_.assign(s.trace->taskCount(), kUnknown);
}

std::uint32_t ShownRecords::count(TaskIndex t) const { return s_->prefixAt(t, position_); }

}  // namespace xab::view
