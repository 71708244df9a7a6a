#include "export.h"

#include <QDir>
#include <QFileInfo>

#include <xab/translators/audio.h>
#include <xab/translators/io.h>
#include <xab/translators/json.h>
#include <xab/translators/picl.h>
#ifdef XAB_HAVE_OTF2
#include <xab/translators/otf2.h>
#endif

namespace xab::view {

QStringList exportFilters() {
  QStringList f{"PICL for ParaGraph (*.trf *.picl)", "Chrome trace JSON for Perfetto (*.json)"};
#ifdef XAB_HAVE_OTF2
  f << "OTF2 archive for Vampir, a directory (*.otf2)";
#endif
  f << "Sound, Sun audio (*.au)" << "Sound, WAV (*.wav)";
  return f;
}

ExportFormat exportFormatOf(const QString& name) {
  // A filter "... (*.trf *.picl)" names its extensions as a file does.
  QString n = name.trimmed();
  if (n.endsWith(')')) n = n.left(n.size() - 1).section(' ', -1);
  auto is = [&](const char* ext) { return n.endsWith(ext, Qt::CaseInsensitive); };
  if (is(".trf") || is(".picl")) return ExportFormat::Picl;
  if (is(".json")) return ExportFormat::Json;
  if (is(".otf2")) return ExportFormat::Otf2;
  if (is(".au")) return ExportFormat::Au;
  if (is(".wav")) return ExportFormat::Wav;
  if (!n.isEmpty() && QFileInfo(n).isDir()) return ExportFormat::Otf2;
  return ExportFormat::Unknown;
}

QString exportTrace(const ViewSnapshot& s, const QString& file, const SoundOptions& sound) {
  const ExportFormat f = exportFormatOf(file);
  const std::string path = file.toStdString();
  if (f == ExportFormat::Unknown)
    return "unknown export format (use .trf, .picl, .json, .otf2, .au or .wav): " + file;
  if (f == ExportFormat::Otf2) {
#ifdef XAB_HAVE_OTF2
    tr::Otf2WriteStats st = tr::writeOtf2(*s.trace, path);
    return QString::fromStdString(st.error);
#else
    return "this xabview was built without OTF2 (libotf2-trace-dev): cannot write " + file;
#endif
  }
  tr::Sink out;
  if (std::string why = out.open(path); !why.empty()) return QString::fromStdString(why);
  if (f == ExportFormat::Picl) {
    tr::writePicl(*s.trace, out);
  } else if (f == ExportFormat::Json) {
    tr::writeJson(*s.trace, out);
  } else {
    tr::AudioOptions o;
    if (!tr::parseAudioMode(sound.mode.toStdString(), o.mode))
      return "sound mode must be send, sendmix or sendnum, not " + sound.mode;
    o.nb = sound.nb;
    o.length = sound.length;
    o.scaleUs = sound.scaleUs;
    o.format = f == ExportFormat::Wav ? tr::AudioFormat::Wav : tr::AudioFormat::Au;
    tr::AudioStats st = tr::writeAudio(*s.trace, o, out);
    if (!st.error.empty()) return QString::fromStdString(st.error);
  }
  if (std::string why = out.finish(); !why.empty()) return QString::fromStdString(why);
  return {};
}

QString suggestedName(const std::string& source, const QString& extension) {
  if (source.empty() || source == "stdin") return "trace" + extension;
  QFileInfo input(QString::fromStdString(source));
  QString base = input.completeBaseName().isEmpty() ? input.fileName() : input.completeBaseName();
  QString name = input.dir().filePath(base + extension);
  if (QFileInfo(name).absoluteFilePath() == input.absoluteFilePath())  // never the input itself
    name = input.dir().filePath(base + "-xabview" + extension);
  return name;
}

}  // namespace xab::view
