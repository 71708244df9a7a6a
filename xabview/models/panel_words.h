// panel_words.h -- how the panels' models name a task and a time.
#pragma once

#include "snapshot.h"

#include <QString>

namespace xab::view {

inline QString label(const ViewSnapshot& s, TaskIndex t) { return QString::fromStdString(s.trace->label(t)); }

// Seconds after the trace's first record.
inline QString seconds(const ViewSnapshot& s, TimeNs t) {
  return QString::fromStdString(formatSeconds(t, s.firstTime()));
}

}  // namespace xab::view
