// highlights.h -- the Why-slow panel's highlights (ViewState::highlights)
// over the diagram's states: a chosen cause's waits on the waiters' rows
// (red), its task's work during them on its own row (blue), and the
// critical path as a line through its steps, joined from task to task.
#pragma once

#include "diagram_painter.h"

namespace xab::view {

inline const QColor kHighlightWait{0xd5, 0x00, 0x00};
inline const QColor kHighlightCause{0x15, 0x65, 0xc0};
inline const QColor kHighlightCritical{0x4a, 0x14, 0x8c};

// Draws the highlights in view.  Outlines and lines only, over translucent
// fills: the states under them stay visible.  Highlights falling on pixels
// of its row already drawn are skipped, so a repaint costs at most a
// rectangle per pixel column per row whatever their number; returns how
// many were drawn.
std::size_t paintHighlights(QPainter& p, const DiagramLayout& layout, const ViewState& st);

}  // namespace xab::view
