#include "diagram_painter.h"

#include "dangling_messages.h"
#include "failure_marks.h"
#include "highlights.h"
#include "marks.h"
#include "span_search.h"
#include "utilization.h"

#include <QFontMetrics>
#include <QPaintEngine>
#include <QImage>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace xab::view {

QString axisLabel(TimeNs rel, TimeNs step) {
  if (rel == 0) return QStringLiteral("0");
  // The largest unit at most ten steps long: labels of a few digits.
  struct Unit { TimeNs ns; const char* name; };
  static constexpr Unit units[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "\u00b5s"}, {1, "ns"}};
  Unit u = units[3];
  for (const Unit& c : units)
    if (c.ns <= std::max<TimeNs>(step, 1) * 10) {
      u = c;
      break;
    }
  const double inUnit = static_cast<double>(step) / static_cast<double>(u.ns);
  const int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(inUnit) - 1e-9)), 0, 9);
  return QString::number(static_cast<double>(rel) / static_cast<double>(u.ns), 'f', decimals) + " " +
         QString::fromUtf8(u.name);
}

namespace {

constexpr int kStates = 11;

// Folds one row of spans into rectangles, one bucket per state.
struct RowFolder {
  const DiagramLayout& layout;
  std::array<std::vector<QRect>, kStates>& buckets;
  double top, height;
  double ns;  // per pixel
  double left = layout.plot().left();

  // Whole pixels: QPainter fills integer rectangles on its fast path.
  QRect pixelRect(double x0, double x1) const {
    int a = static_cast<int>(std::lround(x0)), b = std::max(a + 1, static_cast<int>(std::lround(x1)));
    return QRect(a, static_cast<int>(std::lround(top)), b - a, std::max(1, static_cast<int>(std::lround(height))));
  }
  int col = INT32_MIN;
  std::array<TimeNs, kStates> acc{};
  int runState = -1, runStart = 0, runEnd = 0;
  std::size_t rects = 0;

  void emitRun() {
    if (runState < 0) return;
    buckets[static_cast<std::size_t>(runState)].push_back(pixelRect(left + runStart, left + runEnd));
    ++rects;
    runState = -1;
  }
  void addColumn(int c, int state) {
    if (state == runState && c == runEnd) {
      ++runEnd;
      return;
    }
    emitRun();
    runState = state;
    runStart = c;
    runEnd = c + 1;
  }
  void flushColumn() {
    if (col == INT32_MIN) return;
    auto best = std::max_element(acc.begin(), acc.end());
    if (*best > 0) addColumn(col, static_cast<int>(best - acc.begin()));
    acc.fill(0);
    col = INT32_MIN;
  }
  void wide(double x0, double x1, TaskState s) {
    flushColumn();
    emitRun();
    buckets[static_cast<std::size_t>(s)].push_back(pixelRect(left + x0, left + x1));
    ++rects;
  }
};

// Pixel columns read from the task's mipmap: from the first whose bin it
// shows (StateMipmap::from; the columns from `firstColumn` to there are
// the spans', painted by `spansUntil`) to the last that ends, bin
// included, before the last shown span begins (that span's end moves with
// the replay position; later spans are not shown).  Returns the first
// column left to the spans.
template <class SpansUntil>
int paintRowFromMipmap(const DiagramLayout& layout, const StateMipmap& mip, const SpanList& spans,
                       std::uint32_t shown, RowFolder& f, std::size_t& visited, int firstColumn, SpansUntil&& spansUntil) {
  const double ns = layout.nsPerPixel();
  const int columns = static_cast<int>(layout.plot().width());
  const MipmapReach reach = mipmapReach(mip, spans, shown, ns);
  const int lead = mipmapLead(mip, reach, layout.begin, ns, firstColumn, columns);
  if (lead > firstColumn) spansUntil(firstColumn, lead);
  return forMipmapColumns(mip, reach, layout.begin, ns, lead, columns, [&](int c, std::uint8_t state) {
    ++visited;
    f.addColumn(c, state);
  });
}

// Pixel columns before the task's first record in the window (a memory
// budget's cut) read from the run's history.  Returns the first column
// left to the window.
int paintRowFromHistory(const DiagramLayout& layout, const RunHistory& history, TaskIndex t, TimeNs windowBegin,
                        RowFolder& f) {
  const double ns = layout.nsPerPixel();
  const int columns = static_cast<int>(layout.plot().width());
  int c = 0;
  for (; c < columns; ++c) {
    const TimeNs colBegin = layout.begin + static_cast<TimeNs>(c * ns);
    if (colBegin >= windowBegin) break;
    const TimeNs colEnd = std::min(windowBegin, layout.begin + static_cast<TimeNs>((c + 1) * ns));
    const std::uint8_t state = history.stateIn(t, colBegin, colEnd);
    if (state != RunHistory::kNone) f.addColumn(c, state);
  }
  return c;
}

std::size_t paintRowSpans(const DiagramLayout& layout, const ViewState& st, TaskIndex t,
                          std::array<std::vector<QRect>, kStates>& buckets, std::size_t& rects, bool mipmaps) {
  const ViewSnapshot& s = *st.snapshot();
  const auto& spans = s.spans[t];
  const double ns = layout.nsPerPixel();
  RowFolder f{layout, buckets, layout.rowTop(t) + 2, std::max(1.0, layout.rowHeight - 4), ns};
  int historyColumns = 0;
  if (s.history && layout.begin < s.history->end())
    historyColumns = paintRowFromHistory(layout, *s.history, t, spans.empty() ? s.history->end() : spans.front().begin, f);
  if (spans.empty()) {
    f.flushColumn();
    f.emitRun();
    rects += f.rects;
    return 0;
  }
  const std::uint32_t shown = st.shownOf(t);
  const TimeNs limit = shownLimit(st, t);
  const double width = layout.plot().width();
  std::size_t visited = 0;
  SpanList::Reader read(spans);
  // Columns [fromColumn, toColumn) from the spans (toColumn < 0: to the end).
  auto paintSpans = [&](int fromColumn, int toColumn) {
    const TimeNs from = layout.begin + static_cast<TimeNs>(fromColumn * ns);
    const double xEnd = toColumn < 0 ? width : std::min(width, static_cast<double>(toColumn));
    const TimeNs to = toColumn < 0 ? layout.end : layout.begin + static_cast<TimeNs>(toColumn * ns);
    int visitsInColumn = 0;
    for (std::size_t i = spanAtOrBefore(spans, from); i < spans.size(); ++i) {
      const Span sp = read[i];
      if (sp.first >= shown || sp.begin >= to) break;
      ++visited;
      if (sp.state == TaskState::Exited) break;
      TimeNs se = shownEnd(read, i, shown, limit);
      if (se <= from) continue;
      double x0 = std::max(static_cast<double>(fromColumn), static_cast<double>(sp.begin - layout.begin) / ns);
      double x1 = std::min(xEnd, static_cast<double>(se - layout.begin) / ns);
      if (x1 - x0 >= kFoldPixels) {
        f.wide(x0, x1, sp.state);
        continue;
      }
      int c = static_cast<int>(x0);
      if (c != f.col) {
        f.flushColumn();
        f.col = c;
        visitsInColumn = 0;
      }
      f.acc[static_cast<std::size_t>(sp.state)] += std::max<TimeNs>(1, (toColumn < 0 ? se : std::min(se, to)) - std::max(sp.begin, from));
      if (++visitsInColumn > kMaxSpansPerColumn) {
        // Enough of this column seen: jump to the span that reaches the next one.
        TimeNs next = layout.begin + static_cast<TimeNs>((c + 1) * ns);
        std::size_t j = spanAtOrBeforeFrom(spans, i, next);
        if (j > i + 1) i = j - 1;
      }
    }
    f.flushColumn();
  };
  const int fromColumn = mipmaps && t < s.mipmaps.size()
                             ? paintRowFromMipmap(layout, s.mipmaps[t], spans, shown, f, visited, historyColumns, paintSpans)
                             : historyColumns;
  paintSpans(fromColumn, -1);
  f.flushColumn();
  f.emitRun();
  rects += f.rects;
  return visited;
}

TimeNs niceStep(double nsPerPixel) {
  double want = nsPerPixel * 110;
  double p = std::pow(10.0, std::floor(std::log10(std::max(want, 1.0))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (p * m >= want) return static_cast<TimeNs>(p * m);
  return static_cast<TimeNs>(p * 10);
}

void paintAxis(QPainter& p, const DiagramLayout& layout, TimeNs origin) {
  QRectF plot = layout.plot();
  p.setPen(QColor(0x60, 0x60, 0x60));
  TimeNs step = std::max<TimeNs>(1, niceStep(layout.nsPerPixel()));
  TimeNs rel0 = layout.begin - origin;
  TimeNs first = (rel0 >= 0 ? (rel0 + step - 1) / step : rel0 / step) * step;
  const QFontMetricsF metrics(p.font());
  for (TimeNs rel = first; origin + rel < layout.end; rel += step) {
    double x = layout.xOf(origin + rel);
    p.drawLine(QPointF(x, plot.top() - 5), QPointF(x, plot.top()));
    // A label right of its tick, or left of it where it would pass the
    // area's right edge (ticks are 110 px or more apart: no overlap).
    const QString label = axisLabel(rel, step);
    const double w = metrics.horizontalAdvance(label);
    const double left = x + 2 + w <= layout.area.right() ? x + 2 : x - 2 - w;
    p.drawText(QPointF(left, layout.area.top() + 13), label);
  }
  p.drawLine(plot.topLeft(), plot.topRight());
}

// The names, on the colour of what the task does now (kNameBlocked,
// kNameBarrier).  Rows lower than the font get a smaller font, down to 7
// pixels; rows lower than kMinLabelRow get a name every few rows, counted
// from the first row of each host's group.  A name hangs from the top of
// its row and is clipped to the rows it labels, inside its group: nothing
// crosses a host's line.
void paintLabels(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot& s = *st.snapshot();
  p.save();
  QFont font = p.font();
  const int every = layout.rowHeight >= kMinLabelRow ? 1 : static_cast<int>(std::ceil(kMinLabelRow / layout.rowHeight));
  const double room = layout.rowHeight * every;
  int pixels = std::clamp(static_cast<int>(room) - 2, 7, std::max(7, QFontMetrics(font).height() - 3));
  font.setPixelSize(pixels);
  while (pixels > 6 && QFontMetrics(font).height() > room) font.setPixelSize(--pixels);
  p.setFont(font);
  QFontMetrics fm(font);
  const auto [first, last] = layout.visibleRows();
  // The group of a row: [groupFirst, groupEnd).
  auto group = [&](TaskIndex row) {
    auto it = std::upper_bound(layout.hostFirstRows.begin(), layout.hostFirstRows.end(), row);
    TaskIndex from = it == layout.hostFirstRows.begin() ? 0 : *std::prev(it);
    TaskIndex to = it == layout.hostFirstRows.end() ? static_cast<TaskIndex>(layout.rows) : *it;
    return std::pair{from, to};
  };
  for (TaskIndex row = first; row < last; ++row) {
    const TaskIndex t = layout.taskOfRow(row);
    const RowGroup* folded = layout.groupOfRow(row);
    QRectF r(layout.area.left(), layout.rowTopOfRow(row), layout.labelWidth - 4, layout.rowHeight);
    auto a = folded ? Activity::Computing : describeTask(st, t).kind;  // a folded row's tasks differ: no colour
    if (a == Activity::Blocked) p.fillRect(r, kNameBlocked);
    if (a == Activity::Barrier) p.fillRect(r, kNameBarrier);
    const auto [groupFirst, groupEnd] = group(row);
    if ((row - groupFirst) % static_cast<TaskIndex>(every) != 0) continue;
    // The rows this name labels, within its group; the line above a group
    // is on the first row's top pixel, the names start below it.
    const TaskIndex rows = std::min<TaskIndex>(static_cast<TaskIndex>(every), groupEnd - row);
    const double top = std::floor(r.top()) + 1;
    const QRectF box(r.left(), top, r.width(), layout.rowTopOfRow(row + rows - 1) + layout.rowHeight - top);
    if (box.height() < fm.ascent()) continue;  // no room for a name above the group's end
    const Qt::Alignment valign = box.height() >= fm.height() ? Qt::AlignVCenter : Qt::AlignTop;
    p.save();
    p.setClipRect(box);
    // A host's group: a line above it and the host's name on its first row.
    const bool hostFirst = row == groupFirst && !layout.hostFirstRows.empty();
    double hostWidth = 0;
    if (hostFirst) {
      p.setPen(Qt::darkGray);
      QString host = QString::fromUtf8(s.trace->str(s.trace->task(t).host)) + QStringLiteral(" ");
      hostWidth = fm.horizontalAdvance(host);
      p.drawText(box, valign | Qt::AlignRight, host);
    }
    p.setPen(Qt::black);
    // A folded row: its members' name and count, a sign that it opens (double-click).
    QString text = fm.elidedText(folded ? QStringLiteral("\u25b8 ") + QString::fromStdString(folded->label)
                                       : QString::fromStdString(s.trace->label(t)), Qt::ElideRight,
                                 static_cast<int>(layout.labelWidth - 8 - hostWidth));
    p.drawText(box.adjusted(4, 0, 0, 0), valign | Qt::AlignLeft, text);
    p.restore();
  }
  // The hosts' lines last: over the names' backgrounds, under nothing.
  p.setPen(Qt::darkGray);
  for (TaskIndex row : layout.hostFirstRows)
    if (row >= first && row < last) {
      const double y = std::floor(layout.rowTopOfRow(row));
      p.drawLine(QPointF(layout.area.left(), y), QPointF(layout.area.right(), y));
    }
  p.restore();
}

// Lines between the same two tasks whose sends fall within kFoldPixels of
// the last one drawn are folded into it: at most one line per few pixels
// per pair, however many messages there are.
void paintMessages(QPainter& p, const DiagramLayout& layout, const ViewState& st, DiagramStats& stats) {
  const ViewSnapshot& s = *st.snapshot();
  // The last x drawn per (sender, receiver) pair that has a line in view:
  // keyed by the pairs met, never a tasks x tasks table (100,000 tasks would
  // ask for 80 GB).
  std::unordered_map<std::uint64_t, double> lastX;
  std::vector<QLine> lines;
  auto [lo, hi] = visibleLines(s, layout.begin, layout.end);
  auto px = [](double v) { return static_cast<int>(std::lround(std::clamp(v, -1e6, 1e6))); };
  // layout.xOf, with the layout's arithmetic done once: this loop sees every
  // message in view (all of them at full zoom-out).
  const double left = layout.plot().left(), perNs = 1.0 / layout.nsPerPixel();
  auto xOf = [&](TimeNs t) { return left + static_cast<double>(t - layout.begin) * perNs; };
  const MessageLines& all = s.lines();
  const bool allShown = st.position() >= s.size();  // else a line's records are checked against the tasks' shown
  long column = LONG_MIN;
  int inColumn = 0;
  std::size_t rankLine = SIZE_MAX;  // rank: line rankLine's among its message's receives (an mcast's are adjacent)
  std::uint32_t rank = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    const TimeNs send = all.send(i);
    const auto c = static_cast<long>(std::floor(static_cast<double>(send - layout.begin) * perNs));
    if (c != column) {
      column = c;
      inColumn = 0;
    } else if (++inColumn >= kMaxMessagesPerColumn) {  // enough of this column: on to the next
      const TimeNs next = layout.begin + static_cast<TimeNs>(std::ceil(static_cast<double>(c + 1) / perNs));
      const std::size_t j = all.lowerBound(next, i, hi);
      stats.messagesSkipped += j - i;
      if (j > i) i = j - 1;
      continue;
    }
    // To or from a task not drawn; or within one folded row: no line.
    const TaskIndex from = all.sender(i), to = all.receiver(i), rs = layout.rowOf(from), rr = layout.rowOf(to);
    const TimeNs recv = all.recv(i);
    if (rs == kNoRow || rr == kNoRow || (rs == rr && from != to) || recv < layout.begin) continue;
    const double xs = xOf(send);
    auto it = lastX.find(std::uint64_t{from} << 32 | to);
    if (it != lastX.end() && xs - it->second < kFoldPixels) continue;
    if (!allShown) {  // the records of a line about to be drawn (the table's reads cost, the index's do not)
      const EventRef sr = all.sendRef(i), rcv = all.recvRef(i, rankLine, rank);
      if (sr.index >= st.shownOf(from) || rcv.index >= st.shownOf(to)) continue;
    }
    (it == lastX.end() ? lastX.emplace(std::uint64_t{from} << 32 | to, xs).first : it)->second = xs;
    if (lines.size() < static_cast<std::size_t>(kMaxMessageLines))
      lines.emplace_back(px(xs), px(layout.rowTop(from) + layout.rowHeight / 2), px(xOf(recv)),
                         px(layout.rowTop(to) + layout.rowHeight / 2));
    else
      ++stats.messagesSkipped;
  }
  p.setPen(QPen(QColor(0x50, 0x50, 0x50), 0));  // opaque cosmetic: the raster engine's fast path
  p.drawLines(lines.data(), static_cast<int>(lines.size()));
  stats.messageLines = lines.size();
}

// Barrier bands are tall and, zoomed out, a pixel or two wide: the raster
// engine blends a translucent rectangle span by span (one span per pixel
// row), 20 times the cost of an opaque one.  So the bands over the same
// rows become one strip a pixel high -- per column the band's colour, its
// edges opaque -- drawn stretched over those rows: one blit per row range.
void paintBandStrips(QPainter& p, const DiagramLayout& layout, const std::vector<QRect>& bands, const QColor& fill,
                     const QColor& edge) {
  const int left = static_cast<int>(layout.plot().left()), width = static_cast<int>(layout.plot().width());
  std::map<std::pair<int, int>, std::vector<QRgb>> strips;  // (top, bottom) -> premultiplied colour per column
  const QRgb band = qPremultiply(fill.rgba()), line = edge.rgba();
  for (const QRect& r : bands) {
    auto& strip = strips[{r.top(), r.bottom()}];
    if (strip.empty()) strip.assign(static_cast<std::size_t>(width), 0);
    int a = std::max(0, r.left() - left), b = std::min(width - 1, r.right() - left);
    for (int x = a; x <= b; ++x)
      if (strip[static_cast<std::size_t>(x)] == 0) strip[static_cast<std::size_t>(x)] = band;
    for (int x : {r.left() - left, r.right() - left})
      if (x >= 0 && x < width) strip[static_cast<std::size_t>(x)] = line;
  }
  for (const auto& [rows, strip] : strips) {
    QImage img(reinterpret_cast<const uchar*>(strip.data()), width, 1, QImage::Format_ARGB32_Premultiplied);
    p.drawImage(QRect(left, rows.first, width, rows.second - rows.first + 1), img);
  }
}

// One translucent band per barrier instance over the rows of the tasks that
// took part, from the first arrival to the last departure; instances that
// land on the same pixels are drawn once, and those narrower than
// kFoldPixels not at all.
void paintBarriers(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  const ViewSnapshot& s = *st.snapshot();
  const TimeNs now = st.cursorTime();
  const TimeNs limit = st.nowTime();
  std::set<std::array<int, 4>> seen;  // a band drawn once: its pixels and rows
  std::vector<QRect> bands;
  std::vector<QLine> edges;  // whole pixels: QPainter's fast path
  for (const auto& b : s.barriers().instances) {
    TimeNs a0 = INT64_MAX, d1 = INT64_MIN;
    TaskIndex r0 = UINT32_MAX, r1 = 0;
    for (const auto& v : b.visits) {
      if (v.arrive > now) continue;
      a0 = std::min(a0, v.arrive);
      d1 = std::max(d1, v.depart == kOpenEnd || v.depart > now ? limit : v.depart);
      r0 = std::min(r0, layout.rowOf(v.task));  // rows: a band spans its members' rows
      r1 = std::max(r1, layout.rowOf(v.task));
    }
    if (a0 == INT64_MAX || d1 < layout.begin || a0 > layout.end) continue;
    // Narrower than kFoldPixels: folded away, as the states are (the
    // tasks' barrier bars show it); a band never hides the states.
    if (layout.xOf(d1) - layout.xOf(a0) < kFoldPixels) continue;
    // Clipped to the plot (a pixel beyond each side): a band reaching
    // outside it has pixels an int holds.
    const double left0 = layout.xOf(layout.begin) - 1, right1 = layout.xOf(layout.end) + 1;
    double x0 = std::max(layout.xOf(a0), left0), x1 = std::clamp(layout.xOf(d1), x0 + 1, std::max(right1, x0 + 1));
    int top = static_cast<int>(layout.rowTopOfRow(r0) + 1), bottom = static_cast<int>(layout.rowTopOfRow(r1) + layout.rowHeight - 1);
    int left = static_cast<int>(x0), right = std::max(left, static_cast<int>(std::ceil(x1)) - 1);
    if (!seen.insert({left, right, top, bottom}).second) continue;
    bands.emplace_back(QPoint(left, top), QPoint(right, bottom));
    edges.emplace_back(left, top, left, bottom);
    edges.emplace_back(right, top, right, bottom);
  }
  const QColor fill(0xff, 0xa0, 0x00, 50), edge(0xe6, 0x51, 0x00);
  if (p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster) {
    paintBandStrips(p, layout, bands, fill, edge);
    return;
  }
  p.setPen(Qt::NoPen);  // vector output (SVG): rectangles and lines
  p.setBrush(fill);
  p.drawRects(bands.data(), static_cast<int>(bands.size()));
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(edge, 0));
  p.drawLines(edges.data(), static_cast<int>(edges.size()));
}

void paintCursor(QPainter& p, const DiagramLayout& layout, const ViewState& st) {
  QRectF plot = layout.plot();
  if (!st.atEnd()) {
    double x = layout.xOf(st.cursorTime());
    p.setPen(QPen(kReplayLine, 2));
    if (x >= plot.left() && x <= plot.right()) p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  }
  paintSelection(p, layout, st);  // selection_painter.cpp
}

}  // namespace

std::vector<LegendEntry> diagramLegend() {
  auto bar = [](TaskState s, const char* meaning) {
    return LegendEntry{LegendEntry::Bar, stateColor(s), QString::fromUtf8(stateName(s).data(), static_cast<qsizetype>(stateName(s).size())), meaning};
  };
  return {
      bar(TaskState::Computing, "between PVM calls: the task's own work"),
      bar(TaskState::Packing, "packing a message (initsend/pk* until the next pack)"),
      bar(TaskState::Sending, "packed and about to send (until send, mcast or bcast)"),
      bar(TaskState::Unpacking, "unpacking a message received"),
      bar(TaskState::Receiving, "waiting in recv/trecv/precv for a message"),
      bar(TaskState::Blocked, "waiting in another blocking call (pvm_addhosts, pvm_delhosts ...)"),
      bar(TaskState::Barrier, "waiting in pvm_barrier for the group"),
      bar(TaskState::Collective, "in a collective call (reduce, gather, scatter)"),
      bar(TaskState::Spawning, "in pvm_spawn"),
      {LegendEntry::Name, kNameBlocked, "name on pink", "the task is blocked now, at the replay position"},
      {LegendEntry::Name, kNameBarrier, "name on orange", "the task waits in a barrier now"},
      {LegendEntry::Band, QColor(0xe6, 0x51, 0x00), "barrier band", "one barrier, first arrival to last departure"},
      {LegendEntry::Line, QColor(0x50, 0x50, 0x50), "message", "a line from the send to the receive"},
      {LegendEntry::Band, kHighlightWait, "wait of a cause", "a wait of the cause chosen in the Why slow tab"},
      {LegendEntry::Band, kHighlightCause, "its cause's work", "the chosen cause's work while the others waited for it"},
      {LegendEntry::Line, kHighlightCritical, "critical path", "the chain of work and messages that decides the run's end (Why slow tab)"},
      {LegendEntry::Failed, kFailedCall, "failed call", "a PVM call that returned an error (rc < 0), where it returned; the log lists it in red"},
      {LegendEntry::TimedOut, kTimedOutCall, "timed out", "a pvm_trecv that waited its whole timeout and got no message"},
      {LegendEntry::Mark, kMarkColor, "mark", "a user mark (xab_mark): a flag and a tick on the task's row at its time; hover it for its text"},
      {LegendEntry::Line, kDanglingMessage, "not received", "a message sent and not received at the replay position: a dashed arrow to the receiver at the position's time"},
      {LegendEntry::Hatch, kCpuWaitHatch, "waiting for a CPU",
       "hatched over a task's row: ready to run but without a CPU (clock-driven samples)"},
      {LegendEntry::Strip, loadColor(2), "host load",
       "a strip under each host's rows: its load per CPU (host.load samples), pale green idle, amber one runnable "
       "task per CPU, red two or more"},
      {LegendEntry::Cursor, kReplayLine, "replay position", "the time of the record the replay shows last"},
      {LegendEntry::Dot, Qt::yellow, "selected record", "the record selected in the log, or where a click on the diagram selected it"},
      {LegendEntry::Line, kSelectedMessage, "selected message", "a message whose line was clicked: its line from the send to each receive, each receive with a dot"},
  };
}

DiagramLayout DiagramLayout::make(const QRect& area, const ViewState& st, bool withLoadStrips) {
  DiagramLayout layout;
  layout.area = area;
  layout.begin = st.viewBegin();
  layout.end = std::max(st.viewEnd(), layout.begin + 1);
  layout.tasks = st.snapshot() ? st.snapshot()->trace->taskCount() : 0;
  if (st.snapshot()) {
    const RowPlan& plan = st.rowPlan();
    layout.rows = plan.rows();
    layout.rowTask = plan.rowTask;
    layout.taskRow = plan.taskRow;
    layout.hostFirstRows = plan.hostFirstRows;
    layout.rowGroup = plan.rowGroup;
    layout.groups = plan.groups;
    if (withLoadStrips && st.snapshot()->analysis)
      layout.strips = loadStrips(plan, *st.snapshot()->trace, st.snapshot()->analysis->model.samples);
    if (!layout.strips.empty()) layout.stripHeight = kLoadStripHeight;
  }
  double h = area.height() - layout.axisHeight - 2 - layout.stripHeight * static_cast<double>(layout.strips.size());
  layout.rowHeight = layout.rows ? std::clamp(h / static_cast<double>(layout.rows), 2.0, kMaxRowHeight) : 20.0;
  return layout;
}

QRectF DiagramLayout::plot() const {
  return QRectF(area.left() + labelWidth, area.top() + axisHeight, std::max(1, area.width() - labelWidth),
                std::max(1, area.height() - axisHeight));
}
double DiagramLayout::nsPerPixel() const { return static_cast<double>(end - begin) / plot().width(); }
double DiagramLayout::xOf(TimeNs t) const { return plot().left() + static_cast<double>(t - begin) / nsPerPixel(); }
TimeNs DiagramLayout::timeAt(double x) const {
  return begin + static_cast<TimeNs>((x - plot().left()) * nsPerPixel());
}
double DiagramLayout::rowTop(std::size_t task) const {
  const TaskIndex row = rowOf(static_cast<TaskIndex>(task));
  return row == kNoRow ? -1e7 : rowTopOfRow(row);  // not drawn: far above (callers check drawn())
}
double DiagramLayout::rowTopOfRow(TaskIndex row) const {
  return plot().top() + 2 + static_cast<double>(row) * rowHeight + stripHeight * static_cast<double>(stripsAbove(row));
}
std::pair<TaskIndex, TaskIndex> DiagramLayout::visibleRows() const {
  // The strips above a point take no row: at most stripsAbove more rows fit.
  const double top = plot().top() + 2;
  double first = std::floor((area.top() - top) / rowHeight) - static_cast<double>(strips.size()),
         last = std::ceil((area.bottom() + 1 - top) / rowHeight);
  auto clampRow = [&](double r) { return static_cast<TaskIndex>(std::clamp(r, 0.0, static_cast<double>(rows))); };
  return {clampRow(first), clampRow(last)};
}

std::optional<TaskIndex> DiagramLayout::taskAt(double y) const {
  const TaskIndex row = rowAt(y);
  if (row == kNoRow) return std::nullopt;
  return taskOfRow(row);
}

DiagramStats paintDiagram(QPainter& p, const DiagramLayout& layout, const ViewState& st, const DiagramOptions& o) {
  DiagramStats stats;
  p.fillRect(layout.area, Qt::white);
  const ViewSnapshot* s = st.snapshot();
  if (!s || layout.rows == 0) {
    p.setPen(Qt::gray);
    // At the end of the input nothing more will come: not "waiting".
    p.drawText(layout.area, Qt::AlignCenter,
               layout.tasks > 0 ? QStringLiteral("Every task is hidden or filtered out (View > Rows > Show every task)")
               : s && s->inputEnded ? QStringLiteral("No task records in the input") : QStringLiteral("Waiting for records..."));
    return stats;
  }
  QRectF plot = layout.plot();
  const auto [firstRow, lastRow] = layout.visibleRows();
  for (TaskIndex row = firstRow + (firstRow & 1); row < lastRow; row += 2)
    p.fillRect(QRectF(layout.area.left(), layout.rowTopOfRow(row), layout.area.width(), layout.rowHeight), QColor(0xf7, 0xf7, 0xf7));
  if (o.labels) paintLabels(p, layout, st);
  paintAxis(p, layout, s->firstTime());
  p.save();
  p.setClipRect(plot);
  std::array<std::vector<QRect>, kStates> buckets;
  for (TaskIndex row = firstRow; row < lastRow; ++row)
    if (const RowGroup* g = layout.groupOfRow(row)) stats.rects += paintGroupRow(p, layout, st, row, *g);
    else stats.spansVisited += paintRowSpans(layout, st, layout.taskOfRow(row), buckets, stats.rects, o.mipmaps);
  p.setPen(Qt::NoPen);
  for (int i = 0; i < kStates; ++i) {
    auto& rs = buckets[static_cast<std::size_t>(i)];
    if (rs.empty()) continue;
    p.setBrush(stateColor(static_cast<TaskState>(i)));
    p.drawRects(rs.data(), static_cast<int>(rs.size()));
  }
  p.setBrush(Qt::NoBrush);
  if (o.loadStrips) stats.rects += paintLoadStrips(p, layout, st);  // load_strip_painter.cpp
  paintCpuWaits(p, layout, st);
  if (o.barriers) paintBarriers(p, layout, st);
  if (o.messages) paintMessages(p, layout, st, stats);
  if (o.messages) paintDangling(p, layout, st);  // dangling_messages.h
  stats.outcomeMarks = paintOutcomeMarks(p, layout, st);  // failure_marks.h
  if (o.marks) paintMarks(p, layout, st);          // marks.h
  paintHighlights(p, layout, st);                  // highlights.h: the Why-slow panel's
  paintCursor(p, layout, st);
  p.restore();
  return stats;
}

void paintUtilization(QPainter& p, const QRect& area, int labelWidth, const ViewState& st) {
  p.fillRect(area, Qt::white);
  const ViewSnapshot* s = st.snapshot();
  if (!s || s->trace->taskCount() == 0) return;
  QRectF plot(area.left() + labelWidth, area.top() + 2, area.width() - labelWidth, area.height() - 4);
  const double tasks = static_cast<double>(s->trace->taskCount());
  const double ns = static_cast<double>(st.viewEnd() - st.viewBegin()) / plot.width();
  const auto counts = utilizationColumns(st, st.viewBegin(), ns, static_cast<int>(plot.width()));
  paintStackedColumns(p, plot, counts, tasks);
  p.setBrush(Qt::NoBrush);
  p.setPen(Qt::black);
  p.drawText(QRectF(area.left() + 4, area.top(), labelWidth - 8, area.height()), Qt::AlignVCenter | Qt::AlignLeft,
             QStringLiteral("Utilization\n(%1 tasks)").arg(s->trace->taskCount()));
  if (!st.atEnd()) {  // only over the bars: left of them are the words
    double x = plot.left() + static_cast<double>(st.cursorTime() - st.viewBegin()) / ns;
    p.setPen(QPen(kReplayLine, 2));
    if (x >= plot.left() && x <= plot.right()) p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  }
}

}  // namespace xab::view
