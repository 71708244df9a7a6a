// xab/model/messages.h -- sends matched to receives.
//
// A receive names (source tid, serial) of the message it got; a send carries
// its own serial, counted per sending task.  An mcast or bcast is one send
// with one serial and several receives.
#pragma once

#include <xab/model/trace.h>

#include <map>
#include <unordered_map>
#include <vector>

namespace xab {

struct MessageReceive {
  EventRef recv;
  TaskIndex receiver = 0;
  TimeNs time = 0;  // receiver's clock at the end of the receive
};

struct Message {
  EventRef send;
  TaskIndex sender = 0;
  Kind kind = Kind::SEND;    // SEND, MCAST, PSEND, BCAST
  std::int32_t tag = 0;
  std::int32_t bytes = 0;
  std::int32_t serial = 0;
  TimeNs time = 0;           // sender's clock at the send
  StrId group = -1;          // bcast
  // Destinations named by the send (send/psend: one; mcast: the list).
  // Empty for bcast: its destinations are the group's members at the time,
  // which the trace does not record.
  std::vector<Tid> destinations;
  bool destinationsKnown = true;  // false for bcast
  std::vector<MessageReceive> receives;
  // Named destinations that never received it.  For bcast, unknown.
  std::vector<Tid> unreceived;
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
};

struct MessageTable {
  std::vector<Message> messages;              // in order of the senders' records
  std::vector<UnmatchedReceive> unmatched;    // receives with no send in the trace
  std::map<std::pair<TaskIndex, TaskIndex>, PairStats> pairs;  // (sender, receiver)
  PairStats total;
  std::uint64_t sent = 0;          // sends in the trace
  std::uint64_t neverReceived = 0; // sends with some named destination that never received
  // Index into messages of the send with (sender, serial), or -1.
  std::int64_t find(TaskIndex sender, std::int32_t serial) const;
  // Index of the message whose send or receive is this record, or -1.
  std::int64_t messageOf(EventRef r) const;
  std::unordered_map<std::uint64_t, std::uint32_t> bySerial;  // sender << 32 | serial
  std::unordered_map<std::uint64_t, std::uint32_t> byEvent;   // task << 32 | index
};

MessageTable matchMessages(const Trace& trace);

}  // namespace xab
