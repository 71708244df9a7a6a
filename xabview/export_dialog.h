// export_dialog.h -- File > Export: a file dialog with a filter per format
// (export.h); an OTF2 archive is the directory named there (created if
// missing), and sound asks for its mode, nb, length and scale first.
#pragma once

#include "snapshot.h"

class QWidget;

namespace xab::view {

void runExportDialog(QWidget* parent, const ViewSnapshot& s);

}  // namespace xab::view
