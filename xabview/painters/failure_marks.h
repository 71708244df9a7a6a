// failure_marks.h -- calls that failed (rc < 0) and pvm_trecv calls that
// timed out, marked on their task's row at the time the call returned, up
// to the replay position (model/failures.h says which records are which):
// a red cross for a failure, an orange triangle for a timeout.  Marks of
// one row closer than kFoldPixels fold into one.  Part of the diagram
// (paintDiagram calls it); the legend draws the same glyphs.
#pragma once

#include "activity.h"  // kFailedCall, kTimedOutCall
#include "diagram_painter.h"

#include <xab/model/failures.h>

namespace xab::view {

// The glyph of an outcome, centred on `c`, `r` pixels from centre to edge.
void drawOutcomeGlyph(QPainter& p, QPointF c, double r, CallOutcome outcome);

// Draws the marks of the visible rows; returns how many it drew.
std::size_t paintOutcomeMarks(QPainter& p, const DiagramLayout& layout, const ViewState& state);

}  // namespace xab::view
