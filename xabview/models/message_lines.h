// message_lines.h -- the diagram's message lines: one per receive of a
// matched message, in order of send time.
//
// A line is read from the analysis's message table and its trace; what the
// painter reads for every line in view is kept here, 16 bytes a line: the
// message (4), the send time (4: its difference from the first send of its
// run of 64 lines, a full time where a run spans more than 4.29 s), the
// time from send to receive (4; the receive's time itself where that is
// over 2.1 s) and the pair of tasks (4: an index into the pairs met).  So
// the visible-range search, the painter and its hit test read no record.
// Its bytes, which the Messages panel sums for every line shown short of
// the end, are kept too: 1 byte a line, an index into the sizes met, while
// a trace has at most 256 sizes (4 bytes a line, the size, beyond).
// Whether a line is shown at a replay position short of the end is its
// records' indexes (from the table) against their tasks' shown records; a
// whole MessageLine (the records' arrival positions) reads its records.
//
// An mcast's lines are adjacent (the same send time, ordered by message):
// a line's receive is the k-th of its message's receives, k its distance
// from the first line of that message.
#pragma once

#include <xab/model/model.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <unordered_map>
#include <utility>
#include <vector>

namespace xab::view {

struct ViewSnapshot;

// One send-to-receive line of the diagram, whole: the positions are the
// arrival positions of both records (a replay hides what is not shown).
struct MessageLine {
  TimeNs send = 0, recv = 0;
  std::uint32_t sendPos = 0, recvPos = 0;
  TaskIndex sender = 0, receiver = 0;
  std::uint32_t message = 0;  // index into MessageTable::messages
  std::int32_t bytes = 0;     // as the receive says (the send's size if it does not)
};

class MessageLines {
 public:
  // The lines of `table`'s messages, whose records are in `trace`: both
  // must outlive this (the Analysis holding them all does).
  void build(const MessageTable& table, const Trace& trace);

  std::size_t size() const { return message_.size(); }
  bool empty() const { return message_.empty(); }
  // Parts of line i, read from this index and the table (no record).
  std::uint32_t message(std::size_t i) const { return message_[i]; }
  TimeNs send(std::size_t i) const {
    const TimeNs base = base_[i / kRun];
    return base != kWide ? base + delta_[i] : wideSend(i);
  }
  TimeNs recv(std::size_t i) const { return transit_[i] != kLongTransit ? send(i) + transit_[i] : longRecv(i); }
  TaskIndex sender(std::size_t i) const { return pairs_[pair_[i]].first; }
  TaskIndex receiver(std::size_t i) const { return pairs_[pair_[i]].second; }
  // The bytes line i counts (its receive's, or its send's if that says
  // none, as MessageTable::pairs counts): no record read.
  std::int32_t bytes(std::size_t i) const { return bigSize_.empty() ? sizes_[sizeOf_[i]] : bigSize_[i]; }
  EventRef sendRef(std::size_t i) const { return table_->messages.send(message_[i]); }
  EventRef recvRef(std::size_t i) const { return recvRef(i, rankOf(i)); }
  // Line i is the rank-th receive of its message (rankOf(i)).
  EventRef recvRef(std::size_t i, std::uint32_t rank) const {
    return table_->messages.receives(message_[i])[rank].recv;
  }
  // recvRef(i) along a walk: `known` and `rank` are the last line asked
  // for (SIZE_MAX at first) and its rank, and become line i and its own.
  EventRef recvRef(std::size_t i, std::size_t& known, std::uint32_t& rank) const {
    rank = rankOf(i, known, rank);
    known = i;
    return recvRef(i, rank);
  }
  std::uint32_t rankOf(std::size_t i) const {
    std::size_t j = i;
    while (j > 0 && message_[j - 1] == message_[i]) --j;
    return static_cast<std::uint32_t>(i - j);
  }
  // The same knowing that line `known` (at or before i, or SIZE_MAX) has
  // rank `rank`: a walk along an mcast's lines does not search back each time.
  std::uint32_t rankOf(std::size_t i, std::size_t known, std::uint32_t rank) const {
    return known <= i && message_[known] == message_[i] ? rank + static_cast<std::uint32_t>(i - known) : rankOf(i);
  }
  // The first line in [from, to) whose send is at or after t.
  std::size_t lowerBound(TimeNs t, std::size_t from, std::size_t to) const;
  // The longest time from send to receive (the visible-range search).
  TimeNs maxTransit() const { return maxTransit_; }

  // Line i whole: its two records read.
  MessageLine operator[](std::size_t i) const;
  // Receive k of message m whole, without the index (a message's lines).
  MessageLine lineOf(std::uint32_t m, std::uint32_t k) const;

  const MessageTable* table() const { return table_; }
  const Trace* trace() const { return trace_; }
  std::size_t memoryBytes() const;

  // Whole lines in order (a test's walk; the views read the parts).
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = MessageLine;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = MessageLine;
    iterator() = default;
    iterator(const MessageLines* l, std::size_t i) : l_(l), i_(i) {}
    MessageLine operator*() const { return (*l_)[i_]; }
    iterator& operator++() { ++i_; return *this; }
    iterator operator++(int) { iterator old = *this; ++i_; return old; }
    friend bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }

   private:
    const MessageLines* l_ = nullptr;
    std::size_t i_ = 0;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size()}; }

 private:
  static constexpr std::size_t kRun = 64;               // lines a base time serves
  static constexpr TimeNs kWide = INT64_MIN;            // a run whose times are in wide_
  static constexpr std::int32_t kLongTransit = INT32_MIN;  // the receive's time is in long_
  using PairIds = std::unordered_map<std::uint64_t, std::uint32_t>;
  using SizeIds = std::unordered_map<std::int32_t, std::uint8_t>;  // a size -> its index in sizes_
  void add(std::uint32_t m, TimeNs t, PairIds& pairIds, SizeIds& sizeIds);
  void addSize(std::int32_t bytes, SizeIds& sizeIds);
  TimeNs wideSend(std::size_t i) const;
  TimeNs longRecv(std::size_t i) const;
  const MessageTable* table_ = nullptr;
  const Trace* trace_ = nullptr;
  std::vector<std::uint32_t> message_;  // per line, by send time (then message, then its receives' order)
  std::vector<std::uint32_t> delta_;    // send time - base_ of its run
  std::vector<std::int32_t> transit_;   // receive time - send time, or kLongTransit
  std::vector<std::uint32_t> pair_;     // (sender, receiver) of each line: its index in pairs_
  std::vector<std::pair<TaskIndex, TaskIndex>> pairs_;  // in the order first met
  std::vector<TimeNs> base_;            // per run of kRun lines: its first send time, or kWide
  std::vector<std::uint32_t> wideRuns_; // the kWide runs, in order
  std::vector<TimeNs> wide_;            // their lines' send times, kRun a run
  std::vector<std::pair<std::uint32_t, TimeNs>> long_;  // (line, receive time) of the kLongTransit lines
  std::vector<std::uint8_t> sizeOf_;    // per line: its bytes' index in sizes_ (while bigSize_ is empty)
  std::vector<std::int32_t> sizes_;     // the sizes met, at most 256, in the order first met
  std::vector<std::int32_t> bigSize_;   // per line, its bytes, once a 257th size is met
  TimeNs maxTransit_ = 0;
};

// Which records of a snapshot's first `position` records: those of a
// task's first prefixAt(task, position).  The counts are found as tasks
// are asked about (a view of 100,000 tasks asks about a few).
class ShownRecords {
 public:
  ShownRecords(const ViewSnapshot& s, std::size_t position);
  bool all() const { return all_; }  // the position is at the end: every record
  bool shown(EventRef r) {
    if (all_) return true;
    if (r.task >= counts_.size()) return false;
    std::uint32_t& n = counts_[r.task];
    if (n == kUnknown) n = count(r.task);
    return r.index < n;
  }

 private:
  static constexpr std::uint32_t kUnknown = UINT32_MAX;
  std::uint32_t count(TaskIndex t) const;
  const ViewSnapshot* s_;
  std::size_t position_;
  bool all_;
  std::vector<std::uint32_t> counts_;
};

}  // namespace xab::view
