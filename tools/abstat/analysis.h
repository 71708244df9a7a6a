// What abstat reports: the model's analyses of a trace snapshot
// (xab::analyse) and where the trace came from.
#pragma once

#include <xab/model/model.h>
#include <xab/replay/correct.h>

#include <memory>
#include <string>
#include <vector>

namespace xab::abstat {

struct Report : xab::Analysis {
  std::string source;  // file name, or "-" for standard input
  std::vector<ReadError> errors;
  std::uint64_t errorCount = 0;
  std::uint64_t bytes = 0;
  double stalledFor = 0;  // --follow: seconds without progress (0: final report)
  bool globalTime = false;  // false: --raw-time
  ClockReport clock;        // what toGlobalTime did (globalTime only)
  ClockQuality clockQuality;  // whether that fit is poor
  bool compensated = false; // --compensate
  CompensationReport compensation;  // what compensate did (compensated only)
  std::string replayOf;             // --replay-of: the record directory ("" none)
  ReplayCorrectionReport replay;    // what correctReplay did (replayOf only)
  // The window (--budget): the report covers the records the trace holds
  // (trace->cut() says where they start in the run).
  struct Window {
    bool on = false;               // a budget was kept (--follow, or --budget given)
    std::uint64_t budget = 0;      // bytes
    std::uint64_t cuts = 0;        // times the oldest records were dropped
    std::uint64_t runRecords = 0;  // records of the whole run read
  } window;
};

int exitStatus(const Report& a);

struct Options;
// The trace on the time base the options ask for, analysed (main.cpp).
Report analyseReader(const Options& o, const TraceReader& r, std::shared_ptr<const Trace> trace);

// Seconds from the trace's first event (what both reports print).
double seconds(const Trace& t, TimeNs time);
double durationSeconds(TimeNs d);

}  // namespace xab::abstat
