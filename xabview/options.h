// options.h -- xabview's command line.
#pragma once

#include "row_plan.h"

#include <QSize>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>

namespace xab::view {

// The memory a trace may take before the oldest records give way to a
// summary (docs/xabview.md, "Long runs").
inline constexpr std::uint64_t kDefaultBudget = std::uint64_t{1} << 30;

struct ViewerOptions {
  QString input;                    // "" or "-": standard input
  bool follow = true;               // keep reading a file that grows
  bool rawTime = false;             // --raw-time: task clocks as recorded (docs/global-time.md)
  bool compensate = false;          // --compensate: xab's measured cost taken out (docs/compensation.md)
  QString replayOf;                 // --replay-of DIR: a replay's trace on the record's dates (docs/replay.md)
  std::optional<qint64> step;       // scripted: open, step N records, ...
  bool playToEnd = false;           // ... or play to the end of the input
  QString screenshot;               // ... save the window as PNG
  QString dumpState;                // ... write the models' state as JSON
  QString dumpOnHang;               // ... and each time the hang panel reports a stop
  QString saveDiagram;              // ... save the diagram (.png or .svg)
  QString exportFile;               // ... export through the translators (.trf, .json)
  QString frameLog;                 // one line per diagram repaint (bench/xabview_live.sh)
  QString control;                  // --control PATH: abmon's control socket (control_panel.h)
  std::optional<int> controlSteps;   // scripted: press Step all N times, outputs at the next hold
  std::optional<double> goTo;       // --goto SECONDS: the replay at that trace time (after --step/--play-to-end)
  QString find;                     // --find TEXT: then at the first record matching TEXT from there
  QString tab;                      // panel to show (panelNames())
  std::optional<int> whyCause;      // --why-cause N: the Why slow tab's N-th cause chosen (1: the costliest)
  bool criticalPath = false;        // --critical-path: drawn on the diagram
  bool speedInTraceTime = false;    // --speed-in-trace-time: the replay speed as x1 (the run's own pace)
  std::optional<RowFold> fold;      // --fold name|host|none: the diagram's rows (row_plan.h)
  QString compare;                  // --compare FILE: a second run beside the first
  std::uint64_t budget = kDefaultBudget;  // --budget SIZE: memory for the trace's window (0: none)
  QSize size{1280, 800};
  bool sizeGiven = false;            // --size on the command line: exactly that size, never maximized
  double hangAfter = 2.0;           // seconds without records before the hang panel speaks up
  double timeout = 60.0;            // scripted mode gives up after this long
  bool timeoutGiven = false;        // --timeout on the command line (--dump-on-hang has none otherwise)
  bool scripted() const { return step || playToEnd || controlSteps || !screenshot.isEmpty() || !dumpState.isEmpty() || !saveDiagram.isEmpty() ||
                                  !exportFile.isEmpty() || !dumpOnHang.isEmpty(); }
};

// Parses argv; on --help/--version prints and sets `exitCode` >= 0; on a
// bad option prints the reason and sets exitCode = 2.
ViewerOptions parseOptions(const QStringList& args, int& exitCode);

// Whether the window opens maximized: when the default size with a window
// manager's frame would not fit the screen's available area (a 1280x800
// laptop), so that no part of the window (the status bar) is off-screen.
// Never for scripted runs or an explicit --size.
bool startMaximized(const ViewerOptions& o, QSize available);

// The panels under the diagram, in their tab order: the names --tab and
// MainWindow::showTab take.
const QStringList& panelNames();

}  // namespace xab::view
