// export.h -- the loaded trace in other formats, through the translators
// (docs/translators.md): PICL 2.0 (ParaGraph), Chrome trace-event JSON
// (Perfetto), an OTF2 archive (Vampir; a directory), and sound after
// PIMSY's tools (Sun .au or .wav).  Each goes through the translators'
// streaming writers, as the commands do.
#pragma once

#include "snapshot.h"

#include <QString>
#include <QStringList>

namespace xab::view {

enum class ExportFormat { Unknown, Picl, Json, Otf2, Au, Wav };

// The sound's settings (ab2au MODE nb length scale); the defaults are the
// paper's usage: send, 8 pitches, 400 samples (50 ms), 10 ms per step.
struct SoundOptions {
  QString mode = "send";   // send, sendmix or sendnum
  int nb = 8;
  int length = 400;
  int scaleUs = 10000;
};

// Formats this build can write, for a file dialog ("PICL for ParaGraph
// (*.trf *.picl)" ...).  OTF2's is there only when the translators were
// built with OTF2.
QStringList exportFilters();
// The format a file name (or a dialog filter) stands for: .trf/.picl, .json,
// .otf2 (or an existing directory: an OTF2 archive goes into it), .au, .wav.
ExportFormat exportFormatOf(const QString& fileOrFilter);
// Writes `s` to `file` in the format its name says (an OTF2 archive: into
// the directory `file`, created if missing).  Returns "" or why it failed.
QString exportTrace(const ViewSnapshot& s, const QString& file, const SoundOptions& sound = {});
// The name a save dialog offers for the input `source` (a file name or
// "stdin"): the input's path with `extension` (".trf", ".png") for its own,
// "evfile" -> "evfile.trf", "/tmp/run.trace" -> "/tmp/run.trf"; standard
// input: "trace" and the extension.
QString suggestedName(const std::string& source, const QString& extension);

}  // namespace xab::view
