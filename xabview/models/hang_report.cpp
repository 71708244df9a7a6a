// The hang panel's text: the diagnosis (hang_text.h's words) and the
// pack/unpack mismatches (mismatch_text.h's), with links.
#include "panel_models.h"
#include "panel_words.h"

#include "activity.h"

#include <xab/model/mismatch_text.h>

#include <algorithm>

namespace xab::view {

// ---- hang and mismatch text ----

QStringList hangReportLines(const ViewSnapshot& s) {
  QStringList out;
  for (const auto& line : s.hangText().summary) out << QString::fromStdString(line);
  for (const auto& e : s.hangText().explanations)
    if (!out.contains(QString::fromStdString(e))) out << QString::fromStdString(e);
  for (const auto& m : s.mismatches().mismatches)
    out << QStringLiteral("%1 -> %2: %3").arg(label(s, m.sender), label(s, m.receiver),
                                              QString::fromStdString(mismatchText(m)));
  return out;
}

QString hangReportHtml(const ViewState& state) {
  const ViewSnapshot* s = state.snapshot();
  if (!s) return QStringLiteral("<p>No trace yet.</p>");
  auto link = [&](EventRef r, const QString& text) {
    return QStringLiteral("<a href=\"event:%1\">%2</a>").arg(s->positionOf(r)).arg(text.toHtmlEscaped());
  };
  QString html;
  if (!state.atEnd()) {
    html += QStringLiteral("<p><i>Replaying: record %1 of %2. Tasks waiting at this moment:</i></p><ul>")
                .arg(state.position()).arg(s->size());
    int n = 0;
    for (TaskIndex t = 0; t < s->trace->taskCount(); ++t) {
      auto a = describeTask(state, t);
      if (a.kind != Activity::Blocked && a.kind != Activity::Barrier) continue;
      ++n;
      EventRef r{t, state.shownOf(t) - 1};
      html += "<li>" + label(*s, t).toHtmlEscaped() + ": " + link(r, a.text) + "</li>";
    }
    html += n ? "</ul>" : "<li>none</li></ul>";
    html += QStringLiteral("<p><i>The full diagnosis appears at the end of the trace.</i></p>");
    return html;
  }
  if (!s->hang().hung && s->mismatches().mismatches.empty())
    html += s->mismatches().records == 0
                ? QStringLiteral("<p>No task is blocked; pack/unpack not checked: %1.</p>")
                      .arg(s->mismatches().packFiltered ? QStringLiteral("pack records filtered at the source")
                                                        : QStringLiteral("no pack records"))
                : QStringLiteral("<p>No task is blocked; no pack/unpack mismatch (%1 receives checked%2).</p>")
                      .arg(s->mismatches().checked)
                      .arg(s->mismatches().filteredReceives
                               ? QStringLiteral("; %1 not checked: pack records filtered at the source")
                                     .arg(s->mismatches().filteredReceives)
                               : QString());
  if (s->hang().hung) {
    qint64 idle = state.msSinceProgress();
    if (!s->inputEnded)  // at the newest record of an input that goes on, live or paused
      html += QStringLiteral("<p><b>No new records for %1 s.</b></p>").arg(idle / 1000.0, 0, 'f', 1);
    const HangText& words = s->hangText();
    html += "<h3>Blocked tasks: " + QString::fromStdString(words.headline).toHtmlEscaped() + "</h3><ul>";
    for (const auto& line : words.summary) {
      bool perTask = std::find(words.explanations.begin(), words.explanations.end(), line) != words.explanations.end();
      if (!perTask) html += "<li><b>" + QString::fromStdString(line).toHtmlEscaped() + "</b></li>";
    }
    html += "</ul><ul>";
    for (std::size_t i = 0; i < s->hang().blocked.size(); ++i) {
      const BlockedTask& b = s->hang().blocked[i];
      EventRef r{b.task, b.state.first};
      html += "<li>" + link(r, label(*s, b.task)) + ": " + QString::fromStdString(words.explanations[i]).toHtmlEscaped();
      for (const auto& p : b.pending) {
        const Message& m = s->messages().messages[p.message];
        html += "<br>&nbsp;&nbsp;queued: " +
                link(m.send, QStringLiteral("tag %1, %2 bytes from %3").arg(QString::fromStdString(formatTag(p.tag))).arg(p.bytes).arg(label(*s, p.sender)));
      }
      html += "</li>";
    }
    html += "</ul>";
    for (const auto& c : s->hang().cycles) {
      QStringList names;
      for (TaskIndex t : c) names << label(*s, t);
      html += "<p>Deadlock: " + names.join(" waits for ").toHtmlEscaped() + " waits for " + names.first().toHtmlEscaped() + "</p>";
    }
  }
  if (!s->mismatches().mismatches.empty()) {
    html += "<h3>Pack/unpack mismatches</h3><ul>";
    for (const auto& m : s->mismatches().mismatches)
      html += "<li>" + link(m.recv, label(*s, m.sender) + " -> " + label(*s, m.receiver)) + ": " +
              QString::fromStdString(mismatchText(m)).toHtmlEscaped() + "</li>";
    html += "</ul>";
  }
  const FailureReport& f = s->failures();
  if (!f.calls.empty()) {  // each links to the first record of its kind
    const Trace& analysed = *s->analysis->model.trace;
    html += QStringLiteral("<h3>Failed calls (%1)</h3><ul>").arg(f.failed);
    for (const auto& t : f.timeouts)
      html += "<li><b>" + link(t.receive, QString::fromStdString(describe(analysed, t))) + "</b></li>";
    for (const auto& c : f.calls) html += "<li>" + link(c.first, QString::fromStdString(describe(analysed, c))) + "</li>";
    html += "</ul>";
  }
  if (!f.timedOut.empty()) {  // each links to the task's first timeout
    const Trace& analysed = *s->analysis->model.trace;
    html += QStringLiteral("<h3>Receives that timed out (%1)</h3><ul>").arg(f.timedOutCount);
    for (const auto& t : f.timedOut) html += "<li>" + link(t.first, QString::fromStdString(describe(analysed, t))) + "</li>";
    html += "</ul>";
  }
  return html;
}

}  // namespace xab::view
