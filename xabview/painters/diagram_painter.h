// diagram_painter.h -- the space-time diagram and the utilization strip.
//
// Tasks are rows, time runs left to right.  Each task's states are bars
// (the snapshot's per-task span arrays, found by binary search for the
// visible range); bars narrower than kFoldPixels are folded: per pixel
// column only the state that covers most of it is drawn, and runs of equal
// columns become one rectangle.  A pixel column never costs more than
// kMaxSpansPerColumn span visits (the rest is skipped by binary search),
// so a million-event trace paints in bounded time at any zoom.  When a
// pixel column is wider than a bin of the task's state mipmap, the columns
// up to the last shown span read one bin each instead: O(pixels).  Message
// lines and barrier spans landing on the same pixels are drawn once.
//
// Nothing here knows widgets: the viewer, the SVG/PNG export and the
// benchmark all paint through it.
#pragma once

#include "activity.h"
#include "load_strips.h"
#include "view_state.h"

#include <QPainter>
#include <QRect>

#include <array>
#include <optional>
#include <utility>
#include <vector>

namespace xab::view {

inline constexpr double kFoldPixels = 3.0;
inline constexpr int kMaxSpansPerColumn = 8;
inline constexpr int kMaxMessageLines = 20000;
// Messages looked at per pixel column before the rest of that column is
// skipped: a long live trace at full zoom-out has millions in view, and a
// column shows a line per pair at most (lines of a pair closer than
// kFoldPixels fold).  Bounds the work of a repaint by the width.
inline constexpr int kMaxMessagesPerColumn = 64;
// The height of a host's load strip, under its rows (load_strips.h).
inline constexpr double kLoadStripHeight = 6;

struct DiagramLayout {
  QRect area;             // the whole widget
  int labelWidth = 150;   // task names on the left
  int axisHeight = 22;    // time axis on top
  double rowHeight = 20;
  TimeNs begin = 0, end = 1;
  std::size_t tasks = 0;  // in the trace
  std::size_t rows = 0;   // drawn: the state's row plan (row_plan.h)
  // The rows (ViewState::rowPlan): grouped by host, hosts in the order
  // their first task came, tasks of a host in trace order; tasks hidden or
  // filtered out have no row, folded ones share their group's.
  std::vector<TaskIndex> rowTask;          // row -> task (a folded row: its first member)
  std::vector<TaskIndex> taskRow;          // task -> row, kNoRow when not drawn
  std::vector<TaskIndex> hostFirstRows;    // the first row of each host's group
  std::vector<std::uint32_t> rowGroup;     // row -> group in `groups`; empty: nothing folded
  std::vector<RowGroup> groups;
  // The load strips (load_strips.h), each stripHeight pixels high under its
  // host's last row: none without samples or with the layer off
  // (DiagramOptions::loadStrips, the `withLoadStrips` of make()).
  std::vector<LoadStrip> strips;
  double stripHeight = 0;

  static DiagramLayout make(const QRect& area, const ViewState& state, bool withLoadStrips = true);
  QRectF plot() const;                     // where the bars go
  double xOf(TimeNs t) const;
  TimeNs timeAt(double x) const;
  double rowTop(std::size_t task) const;  // the row of a task
  double rowTopOfRow(TaskIndex row) const;
  TaskIndex rowOf(TaskIndex task) const { return task < taskRow.size() ? taskRow[task] : kNoRow; }
  bool drawn(TaskIndex task) const { return rowOf(task) != kNoRow; }
  // The folded group a row stands for, or nullptr (a task's own row).
  const RowGroup* groupOfRow(TaskIndex row) const {
    return row < rowGroup.size() && rowGroup[row] != kNoGroup ? &groups[rowGroup[row]] : nullptr;
  }
  TaskIndex taskOfRow(TaskIndex row) const { return row < rowTask.size() ? rowTask[row] : kNoRow; }
  std::optional<TaskIndex> taskAt(double y) const;
  // The row at y: kNoRow above the rows, below them and on a strip.
  TaskIndex rowAt(double y) const;
  // The strip at y (an index into `strips`), and where one starts
  // (load_strip_painter.cpp).
  std::optional<std::size_t> stripAt(double y) const;
  double stripTop(std::size_t strip) const;
  std::size_t stripsAbove(TaskIndex row) const;  // the strips over a row
  // The rows (not tasks: taskOfRow) [first, last) that fall in the area: rows are at least 2 px,
  // so 100,000 tasks reach far below it, and painting them all (clipped)
  // would cost per task, not per pixel.
  std::pair<TaskIndex, TaskIndex> visibleRows() const;
  double nsPerPixel() const;
};

struct DiagramStats {
  std::size_t spansVisited = 0;
  std::size_t rects = 0;
  std::size_t messageLines = 0;
  std::size_t messagesSkipped = 0;  // over kMaxMessageLines (zoom in to see them)
  std::size_t outcomeMarks = 0;     // failed and timed-out calls marked (failure_marks.h)
};

struct DiagramOptions {
  bool messages = true;
  bool barriers = true;
  bool labels = true;
  bool mipmaps = true;  // false: always fold from the spans (tests, the bench's comparison)
  bool marks = true;    // user marks (marks.h)
  bool loadStrips = true;  // a host's load under its rows (load_strip_painter.cpp)
};

// A tick's label on the time axis: `rel` ns after the trace's first record,
// ticks `step` apart; the unit (s, ms, µs, ns) follows the step, and the
// first record's tick is "0".
QString axisLabel(TimeNs rel, TimeNs step);

DiagramStats paintDiagram(QPainter& p, const DiagramLayout& layout, const ViewState& state,
                          const DiagramOptions& options = {});

// Where a task's samples show it waiting for a CPU, hatched over its row
// (cpu_wait_painter.cpp; paintDiagram calls it).
inline const QColor kCpuWaitHatch{0x21, 0x21, 0x21};
void paintCpuWaits(QPainter& p, const DiagramLayout& layout, const ViewState& state);

// Each host's load strip (layout.strips), per pixel column the colour of
// its load per CPU (loadColor) at that time, up to the replay position
// (load_strip_painter.cpp; paintDiagram calls it).  Returns the rectangles drawn.
std::size_t paintLoadStrips(QPainter& p, const DiagramLayout& layout, const ViewState& state);

// The selected record's dot (where it was clicked, ViewState::selectedTime)
// and a clicked message: its lines to each receive shown, highlighted in
// kSelectedMessage, a dot at each receive (selection_painter.cpp;
// paintDiagram calls it).
inline const QColor kSelectedMessage{0xff, 0xab, 0x00};
void paintSelection(QPainter& p, const DiagramLayout& layout, const ViewState& state);

// Tasks computing / communicating / blocked / in a barrier per pixel column
// (utilization.h counts them).
void paintUtilization(QPainter& p, const QRect& area, int labelWidth, const ViewState& state);
// The counts of each column of `box` as shares of `total`, stacked from the
// bottom (computing, communicating, blocked, barrier); runs of equal columns
// are one rectangle.  Returns the rectangles drawn (stacked_columns.cpp).
std::size_t paintStackedColumns(QPainter& p, const QRectF& box, const std::vector<std::array<int, kActivityCount>>& counts,
                                double total);
// A folded row (row_plan.h): its members' activities per column, stacked.
std::size_t paintGroupRow(QPainter& p, const DiagramLayout& layout, const ViewState& state, TaskIndex row,
                          const RowGroup& group);
// Task names on a colour: what the task does at the replay position.
inline const QColor kNameBlocked{0xff, 0xcd, 0xd2};  // blocked (receiving or another blocking call)
inline const QColor kNameBarrier{0xff, 0xe0, 0xb2};  // waiting in a barrier
inline const QColor kReplayLine{0xd5, 0x00, 0x00};
// Below this row height the names are not drawn on every row.
inline constexpr double kMinLabelRow = 8.0;
// The tallest row: a trace of few tasks fills the diagram up to this
// (taller bars would say nothing more).
inline constexpr double kMaxRowHeight = 80.0;

// The key to every colour and mark the diagram draws (the on-screen legend
// and the documentation read it; the painter draws with the same colours).
struct LegendEntry {
  enum Shape { Bar, Name, Band, Line, Cursor, Dot, Failed, TimedOut, Mark, Strip, Hatch } shape;
  QColor color;
  QString name;     // "receiving"
  QString meaning;  // one sentence, for the tool tip
};
std::vector<LegendEntry> diagramLegend();

}  // namespace xab::view
