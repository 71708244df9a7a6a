// foreign_import.cpp -- a finished file in another format opened through
// the translators' importers (trace_loader.h).
#include "trace_loader.h"

#include <xab/translators/picl.h>

namespace xab::view {

// A finished file in a format the translators read (PICL): converted in
// one go on this thread.  False when the file is xab's own format.
bool TraceLoader::readForeign() {
  std::string path = options_.path.toStdString();
  std::string head;
  SourceOptions sniff;
  sniff.pieceBytes = 4096;
  readPieces(path, sniff, [&head](std::string_view piece) {
    head = piece;
    return false;  // the first piece is enough
  });
  if (head.empty() || !tr::looksLikePicl(head)) return false;
  LoadResult r = tr::loadPiclFile(path);
  if (!r.trace) {
    QString msg = QString::fromStdString(r.fatal);
    fail(msg);
    return true;
  }
  auto s = buildSnapshot(r.trace);
  s->errors = r.errors;
  s->errorCount = r.errorCount;
  s->fatal = r.fatal;
  s->source = path + " (PICL)";
  s->inputEnded = true;
  s->caughtUp = true;
  publish(std::move(s));
  return true;
}

}  // namespace xab::view
