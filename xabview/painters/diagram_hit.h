// diagram_hit.h -- what is under a point of the space-time diagram: the
// task, the time, the state span and the record that opened it, a message
// line within a few pixels.  The diagram's geometry is the painter's
// (DiagramLayout); nothing here paints.
#pragma once

#include "diagram_painter.h"

namespace xab::view {

// What is under a point of the diagram.
struct DiagramHit {
  std::optional<TaskIndex> task;
  TimeNs time = 0;
  std::optional<Span> span;
  TimeNs spanEnd = 0;                    // where the span ends as drawn (the present if open)
  std::optional<std::size_t> position;   // the record that opened the span
  std::optional<std::uint32_t> message;  // a message line within a few pixels
  std::optional<std::size_t> mark;       // a user mark within a few pixels on the row (ViewSnapshot::marks)
};
DiagramHit hitTest(const DiagramLayout& layout, const ViewState& state, QPointF at);

}  // namespace xab::view
