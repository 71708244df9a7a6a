// xab/translators/timeline.h -- receives moved so that no message arrives
// before it was sent (PICL forbids "tachyons"; task clocks disagree).
#pragma once

#include <xab/model/messages.h>
#include <xab/model/trace.h>

#include <cstdint>
#include <vector>

namespace xab::tr {

// Per-task times after clock correction: times[task][index].
struct AdjustedTimes {
  std::vector<std::vector<TimeNs>> times;
  std::uint64_t moved = 0;    // receives moved after their send ("tachyons")
  std::uint64_t shifted = 0;  // later events of those tasks moved with them
};

// Each task's own order is kept; a receive that ends before its message's
// send (+ gap) is moved to send + gap, and events of the receiver that
// would then come before it move to its time.  Times only move later.
AdjustedTimes fixTachyons(const Trace& trace, const MessageTable& messages, TimeNs gap = 1000);

// True for the record that completes a receive (it names a message got).
inline bool isReceiveEnd(const Event& e) { return isMsgIn(e.kind) && !e.isBegin(); }

// Index into messages.messages of the message this receive got, or -1.
std::int64_t receivedMessage(const MessageTable& messages, EventRef r);

}  // namespace xab::tr
