#include "details_text.h"

#include "activity.h"
#include "event_log_model.h"
#include "panel_words.h"
#include "span_search.h"

#include <algorithm>

namespace xab::view {
namespace {

QString link(const ViewSnapshot& s, std::size_t position) {
  const OrderEntry oe = s.order[position];
  return QStringLiteral("<a href=\"event:%1\">record %2</a> (%3, %4 s)")
      .arg(position).arg(position + 1)
      .arg((oe.task == kMonitorTask ? QString("abmon") : label(s, oe.task)).toHtmlEscaped(), seconds(s, s.event(oe).time));
}

QString sname(TaskState st) { return QString::fromUtf8(stateName(st).data(), static_cast<qsizetype>(stateName(st).size())); }

}  // namespace

QString selectionHtml(const ViewState& st) {
  const ViewSnapshot* s = st.snapshot();
  if (!s || !st.selected()) return "<p>Click a bar, a message or a row of the event log to see it here.</p>";
  const std::size_t pos = *st.selected();
  const OrderEntry oe = s->order[pos];
  const Event& e = s->event(oe);
  QString html = QStringLiteral("<p><b>%1</b> %2: <b>%3</b> at %4 s<br>%5</p>")
                     .arg(link(*s, pos), (oe.task == kMonitorTask ? QString("abmon") : label(*s, oe.task)).toHtmlEscaped(),
                          eventName(*s->trace, e).toHtmlEscaped(), seconds(*s, e.time),
                          eventArgs(*s->trace, e).toHtmlEscaped());
  if (oe.task != kMonitorTask) {  // the state this record opened, as the diagram draws it
    const SpanList& spans = s->spans[oe.task];
    auto it = std::lower_bound(spans.begin(), spans.end(), oe.index, [](const Span& sp, std::uint32_t i) { return sp.first < i; });
    if (it != spans.end() && it->first == oe.index) {
      const auto i = static_cast<std::size_t>(it - spans.begin());
      const TimeNs end = shownEnd(spans, i, st.shownOf(oe.task), st.nowTime());
      const bool open = !(i + 1 < spans.size() && spans[i + 1].first < st.shownOf(oe.task));
      html += QStringLiteral("<p>Then <b>%1</b>: start %2 s, end %3 s%4, duration %5</p>")
                  .arg(sname(it->state), seconds(*s, it->begin), seconds(*s, end), open ? " (still, at the replay position)" : "",
                       formatDuration(end - it->begin));
    }
  }
  // The message it sent or received, and the other end.
  QStringList ends;
  const MessageLines& lines = s->lines();
  const Trace* analysed = lines.trace();
  if (analysed && oe.task != kMonitorTask && oe.task < analysed->taskCount() && oe.index < analysed->events(oe.task).size()) {
    const EventRef ref{oe.task, oe.index};
    const MessageList& messages = lines.table()->messages;
    const std::int64_t m = lines.table()->messageOf(ref);
    const auto receives = m < 0 ? std::span<const MessageReceive>() : messages.receives(static_cast<std::size_t>(m));
    for (std::uint32_t k = 0; k < receives.size(); ++k) {
      const bool sent = messages.send(static_cast<std::size_t>(m)) == ref;
      if (!sent && !(receives[k].recv == ref)) continue;
      const MessageLine l = lines.lineOf(static_cast<std::uint32_t>(m), k);
      if (sent)
        ends << QStringLiteral("Received by %1 at %2 s, %3 later, %4 bytes: %5")
                    .arg(label(*s, l.receiver).toHtmlEscaped(), seconds(*s, l.recv), formatDuration(l.recv - l.send))
                    .arg(l.bytes).arg(link(*s, l.recvPos));
      else
        ends << QStringLiteral("Sent by %1 at %2 s, %3 before, %4 bytes: %5")
                    .arg(label(*s, l.sender).toHtmlEscaped(), seconds(*s, l.send), formatDuration(l.recv - l.send))
                    .arg(l.bytes).arg(link(*s, l.sendPos));
    }
  }
  for (const Undelivered& u : s->undelivered())
    if (u.sendPos == pos) ends << QStringLiteral("Never received by %1").arg(label(*s, u.receiver).toHtmlEscaped());
  if (!ends.isEmpty()) html += "<p>" + ends.join("<br>") + "</p>";
  return html;
}

QString rangeHtml(const ViewState& st, const RangeStats& r) {
  const ViewSnapshot* s = st.snapshot();
  if (!s || r.to <= r.from) return "<p>Shift+drag across the diagram to measure a time range.</p>";
  QString html = QStringLiteral("<p><b>Range</b> %1 s to %2 s: %3. Messages sent %4 (%5 bytes), received %6 (%7 bytes).</p>")
                     .arg(seconds(*s, r.from), seconds(*s, r.to), formatDuration(r.to - r.from))
                     .arg(r.sent).arg(r.sentBytes).arg(r.received).arg(r.receivedBytes);
  // A column per state some task spent time in.
  std::vector<int> states;
  for (int k = 0; k < kStateCount; ++k)
    if (r.total[static_cast<std::size_t>(k)] > 0) states.push_back(k);
  // Cells never wrap: a narrow panel scrolls the table sideways rather than
  // break "4981632" or "receiving" over two lines.
  const QString th = QStringLiteral("<th style=\"white-space:nowrap\">"), td = QStringLiteral("<td style=\"white-space:nowrap\">"),
                number = QStringLiteral("<td align=right style=\"white-space:nowrap\">");
  html += "<table border=1 cellspacing=0 cellpadding=2><tr>" + th + "task</th>";
  for (int k : states) html += th + sname(static_cast<TaskState>(k)) + "</th>";
  for (const char* h : {"sent", "bytes", "received", "bytes"}) html += th + h + "</th>";
  html += "</tr>";
  auto row = [&](const QString& name, const std::array<TimeNs, kStateCount>& time, std::uint64_t sent, std::uint64_t sb,
                 std::uint64_t rec, std::uint64_t rb) {
    html += "<tr>" + td + name.toHtmlEscaped() + "</td>";
    for (int k : states) html += number + formatDuration(time[static_cast<std::size_t>(k)]) + "</td>";
    for (std::uint64_t n : {sent, sb, rec, rb}) html += number + QString::number(n) + "</td>";
    html += "</tr>";
  };
  for (TaskIndex t = 0; t < r.tasks.size(); ++t) {
    const TaskRangeStats& ts = r.tasks[t];
    if (std::all_of(ts.time.begin(), ts.time.end(), [](TimeNs d) { return d == 0; }) && !ts.sent && !ts.received) continue;
    row(label(*s, t), ts.time, ts.sent, ts.sentBytes, ts.received, ts.receivedBytes);
  }
  row("all tasks", r.total, r.sent, r.sentBytes, r.received, r.receivedBytes);
  return html + "</table>";
}

}  // namespace xab::view
