// export_dialog.h -- File > Export: a file dialog with a filter per format
// (export.h); an OTF2 archive is the directory named there (created if
// missing), and sound asks for its mode, nb, length and scale first.
#pragma once

#include "export.h"
#include "snapshot.h"

class QWidget;

namespace xab::view {

// Asks for the file (offering the input's name with ".trf") and, for
// sound, its settings.  False when the user cancelled.
bool askExport(QWidget* parent, const ViewSnapshot& s, QString* file, SoundOptions* sound);

}  // namespace xab::view
