// xab/translators/timeline.h -- all tasks' events as one stream in time
// order, and receives moved so no message arrives before it was sent.
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

// A k-way merge of the tasks' events by time (adjusted when given), each
// task's order kept; ties go to the lower task index.
class Timeline {
 public:
  explicit Timeline(const Trace& trace, const AdjustedTimes* adjusted = nullptr);
  bool next(EventRef& out);
  TimeNs timeOf(EventRef r) const;

 private:
  struct Head {
    TimeNs time;
    TaskIndex task;
    bool operator>(const Head& o) const { return time != o.time ? time > o.time : task > o.task; }
  };
  const Trace& trace_;
  const AdjustedTimes* adjusted_;
  std::vector<std::uint32_t> pos_;
  std::vector<Head> heap_;
};

}  // namespace xab::tr
