// export.h -- the loaded trace in other formats, through the translators:
// PICL 2.0 (ParaGraph) and Chrome trace-event JSON (Perfetto).
#pragma once

#include "snapshot.h"

#include <QString>
#include <QStringList>

namespace xab::view {

// Formats this build can write, for a file dialog ("PICL (*.trf)" ...).
QStringList exportFilters();
// Writes `s` to `file`; the format follows the extension (.trf/.picl: PICL,
// .json: Chrome JSON).  Returns "" or why it failed.
QString exportTrace(const ViewSnapshot& s, const QString& file);

}  // namespace xab::view
