// details_text.h -- the details pane's words: the selected record (its
// task, event, time and fields; the state it opened with start, end and
// duration; the message it sent or received, linked to the other end) and
// a measured time range (range_stats.h).  HTML; links "event:<position>"
// name records.
#pragma once

#include "range_stats.h"

#include <QString>

namespace xab::view {

QString selectionHtml(const ViewState& state);
QString rangeHtml(const ViewState& state, const RangeStats& range);

}  // namespace xab::view
