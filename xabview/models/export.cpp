#include "export.h"

#ifdef XAB_HAVE_TRANSLATORS
#include <xab/translators/io.h>
#include <xab/translators/json.h>
#include <xab/translators/picl.h>
#endif

namespace xab::view {

QStringList exportFilters() {
#ifdef XAB_HAVE_TRANSLATORS
  return {"PICL for ParaGraph (*.trf *.picl)", "Chrome trace JSON for Perfetto (*.json)"};
#else
  return {};
#endif
}

QString exportTrace(const ViewSnapshot& s, const QString& file) {
#ifdef XAB_HAVE_TRANSLATORS
  bool picl = file.endsWith(".trf", Qt::CaseInsensitive) || file.endsWith(".picl", Qt::CaseInsensitive);
  bool json = file.endsWith(".json", Qt::CaseInsensitive);
  if (!picl && !json) return "unknown export format (use .trf, .picl or .json): " + file;
  tr::Sink out;
  if (std::string why = out.open(file.toStdString()); !why.empty()) return QString::fromStdString(why);
  if (picl) tr::writePicl(*s.trace, out);
  else tr::writeJson(*s.trace, out);
  if (std::string why = out.finish(); !why.empty()) return QString::fromStdString(why);
  return {};
#else
  (void)s;
  return "this xabview was built without the translators: cannot write " + file;
#endif
}

}  // namespace xab::view
