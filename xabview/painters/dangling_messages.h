// dangling_messages.h -- messages sent and not received at the replay
// position, drawn as arrows that leave the sender and stop, unreceived, at
// the receiver's row at "now" (the replay position's time; at the end of a
// hung trace, when abmon stopped): the picture of a hang.  Part of the
// diagram's message layer.
#pragma once

#include "diagram_painter.h"

namespace xab::view {

inline const QColor kDanglingMessage{0xc6, 0x28, 0x28};

struct DanglingMessage {
  TimeNs send = 0;
  TaskIndex sender = 0, receiver = 0;
  std::uint32_t message = 0;  // index into MessageTable::messages
  bool never = false;         // never received in the whole trace (else: later)
};

// The messages sent by `position` and not received by then: every one
// never received, and those received later (in flight).  In flight ones are
// looked for from the longest transit before the earliest receive that may
// be missing (the oldest last-shown record of a task with records to come),
// not among every message.
std::vector<DanglingMessage> danglingAt(const ViewSnapshot& s, std::size_t position, TimeNs now);

// Arrows drawn at most: the oldest first, one per pair of rows and send
// column of kFoldPixels.
inline constexpr std::size_t kMaxDanglingArrows = 256;

// Draws them; returns how many were drawn.
std::size_t paintDangling(QPainter& p, const DiagramLayout& layout, const ViewState& st);

}  // namespace xab::view
