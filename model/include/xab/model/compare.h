// xab/model/compare.h -- two or more runs of one program compared: what
// got slower or faster, the cause before the waits it explains, and the
// spread over several runs (docs/why-slow.md, "Comparing runs").
//
// Tasks are matched by name and instance (their label, "(worker, 2)"),
// barrier uses by group, count and use, messages by sender, receiver and
// tag.  Runs whose tasks, barrier groups or message pairs differ are of a
// different program shape: the comparison says what differs instead of
// ranking differences that would mean nothing.
#pragma once

#include <xab/model/analysis.h>

#include <string>
#include <vector>

namespace xab {

struct RunDifference {
  std::string what;        // "compute", "run time", "wait: barrier", "barrier 'w' count 3 use 2", "tag 7 count" ...
  std::string task;        // the task's label ("" for a barrier use)
  std::int32_t tidA = 0, tidB = 0;  // its tid in each run (0: not a task's figure)
  std::string unit;        // "s", "messages", "bytes", "B/s"
  double a = 0, b = 0;     // the figure in the first run and in the second
  double delta = 0;        // b - a
  // A cause's difference: the indexes (into differences) of the waits it
  // explains, listed right after it.  A wait's: the index of its cause (-1 none).
  std::vector<std::size_t> explains;
  long explainedBy = -1;
  std::string words;       // the difference in a sentence
};

struct TaskSpread {
  std::string task;                // label
  double minRun = 0, maxRun = 0, meanRun = 0;  // its run time over the runs, seconds
  double minCompute = 0, maxCompute = 0, meanCompute = 0;
  std::vector<std::string> hosts;  // its host in each run, in run order
};

struct HostSpread {
  std::string host;
  std::size_t placements = 0;      // tasks placed there over all runs
  double meanCompute = 0;          // their mean compute, seconds
  double meanRun = 0;
};

struct RunComparison {
  bool sameShape = true;
  std::vector<std::string> shape;  // what differs, when the shape does
  // The first run against the second: time figures by |delta|, largest
  // first, each cause followed by the waits it explains; then message
  // counts, bytes and bandwidth.
  std::vector<RunDifference> differences;
  std::vector<TaskSpread> spread;  // every task over all runs (two or more)
  std::vector<HostSpread> hosts;   // per host, when the runs placed tasks differently
  bool placementDiffers = false;
};

// `runs` (two or more) analysed with AnalyseOptions::why and the breakdown.
RunComparison compareRuns(const std::vector<const Analysis*>& runs);

}  // namespace xab
