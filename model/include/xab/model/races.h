// xab/model/races.h -- message races: receives from any task whose message
// depends on timing.
//
// A receive that names no source (pvm_recv(-1, tag), trecv, precv) takes
// whichever matching message is there first.  It is a message race (Netzer
// and Miller, "Optimal tracing and replay for debugging message-passing
// programs") when another message it could have taken was sent by another
// task, was not yet received by the time of the receive, and was not sent
// because of anything the receiver did from that receive on: its send does
// not happen after the receive (Lamport's order, from the trace's messages
// and spawns).  In another run that message may come first.  Harmless when
// the program treats every order alike (a master collecting results); a
// bug when it assumes one (a parent that takes its first answer for its
// left child's) -- and the trace shows the race even in the runs where the
// order happened to be the expected one.
//
// Cost: O(events x tasks) time for the order and O(tasks^2) memory; traces
// of more than kRaceTaskLimit tasks are not checked (RaceReport::checked
// stays false).
#pragma once

#include <xab/model/messages.h>
#include <xab/model/trace.h>

#include <string>
#include <vector>

namespace xab {

inline constexpr std::size_t kRaceTaskLimit = 2048;

struct MessageRace {
  EventRef receive;          // the receive's end record
  std::int64_t took = -1;    // index into MessageTable::messages of the message it took
  std::int64_t other = -1;   // a message it could have taken instead (the first by receive order)
};

// Receives of one task with one tag filter, from any task.
struct RaceGroup {
  TaskIndex task = 0;
  std::int32_t tag = kAnyTag;      // the receives' tag (kAnyTag: any)
  std::uint64_t receives = 0;      // such receives that took a message
  std::uint64_t racy = 0;          // of which message races
  MessageRace first;               // the first race
};

struct RaceReport {
  bool checked = false;            // false: too many tasks (kRaceTaskLimit)
  std::uint64_t anySource = 0;     // receives from any task that took a message
  std::uint64_t racy = 0;          // of which message races
  std::vector<RaceGroup> groups;   // groups with a race, by task then tag
};

RaceReport findMessageRaces(const Trace& trace, const MessageTable& messages);

// The sentence front ends show for a group:
// "(upper_par, 2) receives tag 1 from any task: 1 of 2 receives are message
//  races; at 0.812000 s it took (upper_par, 8)'s message while (upper_par,
//  7)'s, sent independently of that receive, could have come first"
std::string describe(const Trace& trace, const MessageTable& messages, const RaceGroup& g);

}  // namespace xab
