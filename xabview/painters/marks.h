// marks.h -- user marks (xab_mark: `mark` records) on the diagram: a tick
// across the task's row at the mark's time under a small flag at the row's
// top, up to the replay position.  Marks closer than kMarkGap pixels on a
// row fold to a thin strip along its top (ticks that close would hide the
// states).  Marks of a row landing on the same pixel column are drawn once,
// and a column looks at no more than kMaxMarksPerColumn marks (the rest is
// skipped by binary search): a trace with millions of marks paints in
// bounded time.
#pragma once

#include "diagram_painter.h"

namespace xab::view {

inline const QColor kMarkColor{0x00, 0x83, 0x8f};
inline constexpr int kMaxMarksPerColumn = 64;
inline constexpr int kMarkGap = 4;  // pixels

// Draws the marks in view; returns how many were drawn.
std::size_t paintMarks(QPainter& p, const DiagramLayout& layout, const ViewState& st);
// The mark (an index into ViewSnapshot::marks) on the row under `at`
// within a few pixels of it, shown at the replay position.
std::optional<std::size_t> markAt(const DiagramLayout& layout, const ViewState& st, QPointF at);

}  // namespace xab::view
