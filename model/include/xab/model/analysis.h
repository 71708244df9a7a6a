// xab/model/analysis.h -- every analysis of a trace, in one call.
//
// analyse() runs the chain every front end needs: messages -> barriers ->
// hang (which needs both) -> pack mismatches and message races (which need
// the messages),
// the failed calls, and the time breakdown.  abstat, the fuzz target and the viewer's
// snapshots call it instead of wiring the chain by hand.
//
// Live use: call it on a TraceReader snapshot (a shared_ptr<const Trace>)
// on any thread, as often as the caller can afford.  It recomputes from
// scratch: O(events) per call (a sort of the sends of a task whose serials
// do not rise adds O(m log m)); see docs/model.md, "Analyses".
#pragma once

#include <xab/model/barriers.h>
#include <xab/model/breakdown.h>
#include <xab/model/failures.h>
#include <xab/model/hang.h>
#include <xab/model/messages.h>
#include <xab/model/mismatch.h>
#include <xab/model/races.h>
#include <xab/model/wait_states.h>
#include <xab/model/samples.h>

#include <functional>
#include <memory>

namespace xab {

struct AnalyseOptions {
  bool breakdown = true;  // also timeBreakdown (abstat reports it; the viewer does not)
  bool why = false;       // also analyseWaits: wait states, their root causes, the critical path
  bool races = true;      // also findMessageRaces (the viewer, which shows none, skips them)
  // Match messages and find mismatches on a second thread while barriers,
  // breakdown and `alongside` run on the calling thread (two cores).
  bool parallel = false;
  // The caller's own work on the same snapshot (the viewer's per-task
  // arrays), run on the calling thread while the second thread works.
  std::function<void()> alongside;
  // The message table of `trace`, when the caller has one (prepare()'s,
  // TimeBaseReport::messages): taken instead of matching again.
  std::shared_ptr<MessageTable> messages;
};

// Milliseconds each step took (wall clock; the status bar, benchmarks).
struct AnalysisTiming {
  double messages = 0, barriers = 0, hang = 0, mismatch = 0, races = 0, failures = 0, breakdown = 0, alongside = 0,
         why = 0;
  double total = 0;
};

// Plain values; move-only (a MessageTable cannot be copied).  `trace` keeps
// the analysed snapshot alive: the results refer to its records.
struct Analysis {
  std::shared_ptr<const Trace> trace;
  MessageTable messages;
  BarrierAnalysis barriers;
  HangReport hang;
  MismatchReport mismatch;
  FailureReport failures;     // calls that returned an error
  RaceReport races;           // receives from any task whose message depends on timing
  BreakdownReport breakdown;  // empty unless AnalyseOptions::breakdown
  WhyReport why;              // empty unless AnalyseOptions::why
  SampleReport samples;       // the clock-driven samples (samples.h)
  AnalysisTiming ms;
};

// Runs every analysis on `trace` (not null).
Analysis analyse(std::shared_ptr<const Trace> trace, const AnalyseOptions& options = {});

}  // namespace xab
