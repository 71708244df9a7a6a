// The input panel's text: what was read, malformed lines, and per-host
// collection.
#include "panel_models.h"

#include <xab/model/hosts.h>

#include <algorithm>

namespace xab::view {

namespace {

// The per-host collection figures (the model's hostFigures, as abstat's
// Hosts table): only when the trace has several hosts or a relay.
QStringList hostLines(const Trace& trace) {
  auto hosts = hostFigures(trace);
  bool relays = std::any_of(hosts.begin(), hosts.end(), [](const HostFigures& h) { return h.relay; });
  if (hosts.size() < 2 && !relays) return {};
  QStringList lines{"", "Hosts (how the records were collected):"};
  for (const HostFigures& h : hosts) {
    QString line = QStringLiteral("%1: %2 tasks, %3 records, %4 lost; ")
                       .arg(h.host.empty() ? QStringLiteral("?") : QString::fromStdString(h.host))
                       .arg(h.tasks).arg(h.events).arg(h.lost);
    line += h.relay ? QStringLiteral("by its relay, %1 batches of %2 records").arg(h.batches).arg(h.relayed)
                    : QStringLiteral("by abmon");
    if (h.deleted) line += h.how == "lost" ? "; its pvmd died (lost)" : "; it left the virtual machine";
    lines << line;
  }
  return lines;
}

}  // namespace

QStringList inputReportLines(const ViewSnapshot* s, const QString& failure) {
  QStringList lines;
  if (!failure.isEmpty()) lines << "Cannot read the input: " + failure;
  if (!s) return lines;
  lines << QStringLiteral("Source: %1, %2 bytes, %3 records%4")
               .arg(QString::fromStdString(s->source)).arg(s->bytes).arg(s->size())
               .arg(s->inputEnded ? ", input ended" : ", still reading");
  if (!s->fatal.empty()) lines << "Stopped reading: " + QString::fromStdString(s->fatal);
  if (s->errorCount == 0) lines << "No malformed lines.";
  for (const auto& e : s->errors) lines << QStringLiteral("line %1: %2").arg(e.line).arg(QString::fromStdString(e.reason));
  if (s->errorCount > s->errors.size())
    lines << QStringLiteral("... and %1 more").arg(s->errorCount - s->errors.size());
  lines << hostLines(*s->trace);
  return lines;
}

}  // namespace xab::view
