// load_strips.h -- the diagram's load strips: a thin strip under each host's
// rows, coloured by the host's load per CPU over time, from the trace's
// host.load samples (xab/model/samples.h, HostLoad).
//
// A host has a strip when the row plan (row_plan.h) draws at least one of
// its tasks and its samples have a host.load point; hidden, folded and
// filtered rows count as the plan says.  A trace without samples has none.
#pragma once

#include "row_plan.h"

#include <xab/model/samples.h>

#include <QColor>
#include <QString>

#include <string>
#include <vector>

namespace xab::view {

struct LoadStrip {
  std::string host;
  TaskIndex firstRow = 0, lastRow = 0;  // the host's rows, [firstRow, lastRow]; the strip is under lastRow
  const HostLoad* load = nullptr;       // the samples' (the snapshot's analysis holds them)
};

// In row order.  O(rows + hosts).
std::vector<LoadStrip> loadStrips(const RowPlan& plan, const Trace& trace, const SampleReport& samples);

// The colour of a load per CPU: pale green when idle, amber at one runnable
// task per CPU, red from two (the host's tasks wait for a CPU).
QColor loadColor(double perCpu);
// The load per CPU of a point (a point without its CPUs counts one).
double loadPerCpu(const LoadPoint& p);

// The strip's tool tip at time t: "node1: load 3.10 on 1 CPU (3.10 per CPU)"
// and the time, seconds from `origin`; before the first sample, says so.
QString loadStripText(const LoadStrip& strip, TimeNs t, TimeNs origin);

}  // namespace xab::view
