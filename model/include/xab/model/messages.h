// xab/model/messages.h -- sends matched to receives.
//
// A receive names (source tid, serial) of the message it got; a send carries
// its own serial, counted per sending task.  An mcast or bcast is one send
// with one serial and several receives.
//
// The table is flat and compact: one 16-byte record per send (its record,
// serial and two positions; what else the send says is read from its
// record in the trace), and every receive (8 bytes: its record),
// destination and unreceived destination of all messages in shared arrays
// that each message's record points into by a 32-bit position (36 bytes
// per message with one receive, its index by record included).  A Message is
// handed out BY VALUE, made from those arrays and the send record; its
// spans point into the table.  The table reads the trace it was made of:
// keep that trace alive (and its records as they were matched) while the
// table is read.  The lookups by (sender, serial)
// and by record search those arrays (binary search), so there are no
// per-message heap nodes.  A MessageTable can be moved (the arrays keep
// their storage) but not copied: the spans would point into the original.
#pragma once

#include <xab/model/trace.h>

#include <cstddef>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace xab {

// A receive of a message: its record (recv.task is the receiver); its
// time and fields are the record's, trace.event(recv).
struct MessageReceive {
  EventRef recv;
};

struct Message {
  EventRef send;
  TaskIndex sender = 0;      // send.task
  Kind kind = Kind::SEND;    // SEND, MCAST, PSEND, BCAST
  bool destinationsKnown = true;  // false for a bcast without dst= (an older trace)
  std::int32_t tag = 0;
  std::int32_t bytes = 0;
  std::int32_t serial = 0;
  StrId group = -1;          // bcast
  TimeNs time = 0;           // sender's clock at the send
  // Destinations named by the send (send/psend: one; mcast and bcast: the
  // list).  Empty for a bcast of an older trace without dst=: its
  // destinations were the group's members at the time, not recorded.
  std::span<const Tid> destinations;
  // In the order of the receivers' task index, then of their records.
  std::span<const MessageReceive> receives;
  // Named destinations that never received it (unknown for a bcast without dst=).
  std::span<const Tid> unreceived;
};

// The messages of a MessageTable, in order of the senders' records (task,
// then record): a random-access range of Message values.  It owns the
// arrays the values' spans point into; the kind, tag, bytes, time and
// group of a Message are read from its send record in the trace.
class MessageList {
 public:
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Message;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Message;
    Iterator() = default;
    Iterator(const MessageList* list, std::uint32_t i) : list_(list), i_(i) {}
    Message operator*() const { return (*list_)[i_]; }
    Iterator& operator++() { ++i_; return *this; }
    Iterator operator++(int) { Iterator old = *this; ++i_; return old; }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.i_ == b.i_; }

   private:
    const MessageList* list_ = nullptr;
    std::uint32_t i_ = 0;
  };

  std::size_t size() const { return stored_.size(); }
  bool empty() const { return stored_.empty(); }
  Message operator[](std::size_t i) const;
  Message back() const { return (*this)[size() - 1]; }
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, static_cast<std::uint32_t>(stored_.size())}; }
  // Fields of message i without making the whole value (which reads the
  // send record in the trace).
  EventRef send(std::size_t i) const { return {senderOf(i), stored_[i].index}; }
  std::int32_t serial(std::size_t i) const { return stored_[i].serial; }
  std::span<const MessageReceive> receives(std::size_t i) const {
    return {receives_.data() + stored_[i].receives, endOf(i, &Stored::receives, receives_.size()) - stored_[i].receives};
  }
  std::span<const Tid> destinations(std::size_t i) const {
    return {destinations_.data() + stored_[i].destinations,
            endOf(i, &Stored::destinations, destinations_.size()) - stored_[i].destinations};
  }
  bool destinationsKnown(std::size_t i) const;
  std::span<const Tid> unreceived(std::size_t i) const;
  // Whether a report lists message i among those not received: some named
  // destination never received it, or its destinations are unknown and
  // nothing received it.
  bool listedUnreceived(std::size_t i) const {
    return !unreceived(i).empty() || (!destinationsKnown(i) && receives(i).empty());
  }
  // Where message i's destinations start among those of all messages, in
  // order (an analysis's array parallel to them needs no index of its own).
  std::uint32_t firstDestination(std::size_t i) const { return stored_[i].destinations; }
  std::size_t destinationCount() const { return destinations_.size(); }
  std::size_t memoryBytes() const;

 private:
  friend class MessageTable;
  friend struct MessageMatching;
  friend class MessageLookup;
  // The sender is the task whose range of taskBegin_ holds the message;
  // the rest of the send is its record in trace_.
  struct Stored {  // 16 bytes
    std::uint32_t index = 0;         // the send's record in its task
    std::int32_t serial = 0;         // read by every lookup: kept here
    std::uint32_t destinations = 0;  // its first in destinations_; the next message's first ends them
    std::uint32_t receives = 0;      // its first in receives_, likewise
  };
  static_assert(sizeof(Stored) == 16, "a message's record stays compact");
  std::uint32_t endOf(std::size_t i, std::uint32_t Stored::*first, std::size_t all) const {
    return i + 1 < stored_.size() ? stored_[i + 1].*first : static_cast<std::uint32_t>(all);
  }
  TaskIndex senderOf(std::size_t i) const;
  const Trace* trace_ = nullptr;          // the trace matched
  std::vector<Stored> stored_;
  std::vector<std::uint32_t> taskBegin_;  // per task + 1: its messages are [taskBegin_[t], taskBegin_[t+1])
  std::vector<MessageReceive> receives_;  // grouped by message
  std::vector<Tid> destinations_;
  std::vector<Tid> unreceived_;
  // (message, its first in unreceived_) of the messages with some, by message.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> unreceivedAt_;
  std::vector<std::uint32_t> unknownDestinations_;  // the bcasts without dst= (an older trace), by message
};

struct UnmatchedReceive {
  EventRef recv;
  Tid src = 0;             // the source the receive names
  std::int32_t serial = 0; // 0: the sender was not instrumented
};

struct PairStats {
  std::uint64_t count = 0;        // messages (an mcast counts once per receiver)
  std::uint64_t bytes = 0;
  TimeNs transit = 0;             // sum of (receive end - send), clamped at 0
  double bandwidth() const;       // bytes per second over transit; 0 if none
  void add(std::int32_t bytes, TimeNs transit);  // one more message
};

class MessageTable {
 public:
  MessageTable() = default;
  MessageTable(MessageTable&&) noexcept = default;
  MessageTable& operator=(MessageTable&&) noexcept = default;
  MessageTable(const MessageTable&) = delete;
  MessageTable& operator=(const MessageTable&) = delete;

  MessageList messages;                       // in order of the senders' records (task, then record)
  std::vector<UnmatchedReceive> unmatched;    // receives with no send in the trace
  // Receives of what a pvmd sent (PVM's notify messages: a task's exit, a
  // host added or deleted): no task sent them, so none is unmatched.
  std::uint64_t fromPvmd = 0;
  // A cut trace (Trace::cut()): receives whose send is before the cut (its
  // sender's serial is one it used before), and named destinations whose
  // receive may be before it (the destination's records before the cut
  // reach past the send): neither is unmatched nor unreceived.
  std::uint64_t beforeCut = 0;
  std::uint64_t receivedBeforeCut = 0;
  std::map<std::pair<TaskIndex, TaskIndex>, PairStats> pairs;  // (sender, receiver)
  PairStats total;
  std::uint64_t sent = 0;          // sends in the trace (an mcast or bcast is one)
  // Messages: one per destination of each send (a bcast of an older trace
  // without dst=: one per receive).  When the input is consistent,
  // messagesSent == total.count + unreceivedMessages.
  std::uint64_t messagesSent = 0;
  std::uint64_t unreceivedMessages = 0;  // named destinations that never received
  std::uint64_t neverReceived = 0; // sends with some named destination that never received
  // Inconsistent input (one run's trace read twice, two runs joined): sends
  // that repeat a serial an earlier send of their task used, and receives
  // that name a message their task already received.  Receives of a
  // repeated serial go to its sends in order (the first that names the
  // receiver and that it has not received yet); a receive of a message
  // already received is counted here, not a second time in pairs/total.
  std::uint64_t duplicateSerials = 0;
  std::uint64_t duplicateReceives = 0;
  bool consistent() const { return duplicateSerials == 0 && duplicateReceives == 0; }
  // Index into messages of the send with (sender, serial), or -1.  If a
  // sender repeated a serial, its last send with it.
  std::int64_t find(TaskIndex sender, std::int32_t serial) const;
  // Index of the message whose send or receive is this record, or -1.
  std::int64_t messageOf(EventRef r) const;
  // Bytes held by the table (for the memory figures).
  std::size_t memoryBytes() const;
  // The table made good for `trace`, a re-dating of the trace it matched
  // (the same records, other times: global time's), perhaps another
  // object: its records are read there from now on, and the pairs' and
  // total's transits are measured again.  The rest of the table reads no
  // times, except on a cut trace (whether a receive may be before the
  // cut): not for one.
  void retimed(const Trace& trace);

 private:
  friend struct MessageMatching;  // matchMessages' steps fill the arrays below
  friend struct ReceiveMatcher;
  friend class MessageLookup;
  // Positions [first, last) in the sender's serial order of its sends with
  // this serial (several only when it repeated the serial).
  std::pair<std::uint32_t, std::uint32_t> serialRange(TaskIndex sender, std::int32_t serial) const;
  std::uint32_t atSerialPosition(TaskIndex sender, std::uint32_t position) const;
  struct RecvIndex {
    std::uint32_t index;    // the receive's record in its task
    std::uint32_t message;
  };
  std::vector<std::uint32_t> recvBegin_;      // per task + 1: its matched receives in recvIndex_
  std::vector<RecvIndex> recvIndex_;          // by task, then record
  // Per task whose serials do not rise with its sends: its message indexes
  // sorted by serial (stable), at the task's messages.taskBegin_ range; else empty.
  std::vector<std::uint32_t> bySerial_;
  std::vector<bool> serialSorted_;            // per task
};

MessageTable matchMessages(const Trace& trace);

// MessageTable::messageOf for an analysis that asks about each task's
// records in rising order: each answer starts where the task's last one
// ended, without a search.  A record asked out of order is searched for.
class MessageLookup {
 public:
  explicit MessageLookup(const MessageTable& table);
  std::int64_t messageOf(EventRef r);

 private:
  const MessageTable& table_;
  std::vector<std::uint32_t> send_, recv_;  // per task: its next message, its next matched receive
};

// The one rule for "this record took a message", for every reader: the end
// record of a receive-like call (XAB_F_MSG_IN) that got one.  Each call
// says so in its own way (docs/trace-format.md):
//   recv, trecv, nrecv  rc > 0 (the buffer id); 0 nothing came (trecv timed
//                       out, nrecv found none); < 0 an error
//   precv               rc == 0 (PvmOk); < 0 an error
//   handler             always: PVM handed the message to a pvm_addmhf
//                       handler (its rc is not a status)
// probe is not a receive: the message stays queued.
bool gotMessage(const Event& e);

// The one rule for "this record sent a message": the end record of a
// send-like call (XAB_F_MSG_OUT) that did not fail (a failed send sent
// nothing).
bool sentMessage(const Event& e);

// The bytes a matched message counts, for every reader (MessageTable's
// pairs, the viewer's message lines): the receive's, else the send's.
std::int32_t messageBytes(const Event& send, const Event& recv);

// The destinations a send record names, for every reader: send/psend its
// dst=, mcast its dst= list, bcast its dst= list (the group's members the
// message went to, recorded at the call).  nullopt for a bcast of an older
// trace, which has no dst=: its destinations (the group's members at the
// time) must be inferred.  The span points into the event or the trace.
std::optional<std::span<const Tid>> sendDestinations(const Trace& trace, const Event& send);

}  // namespace xab
