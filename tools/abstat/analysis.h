// Every analysis abstat reports, run once on a trace snapshot.
#pragma once

#include <xab/model/model.h>

#include <memory>
#include <string>
#include <vector>

namespace xab::abstat {

struct Analysis {
  std::string source;  // file name, or "-" for standard input
  std::shared_ptr<const Trace> trace;
  std::vector<ReadError> errors;
  std::uint64_t errorCount = 0;
  std::uint64_t bytes = 0;
  MessageTable messages;
  BarrierAnalysis barriers;
  HangReport hang;
  MismatchReport mismatch;
  BreakdownReport breakdown;
  double stalledFor = 0;  // --follow: seconds without progress (0: final report)
};

Analysis analyse(std::shared_ptr<const Trace> trace);
int exitStatus(const Analysis& a);

// Seconds from the trace's first event (what both reports print).
double seconds(const Trace& t, TimeNs time);
double durationSeconds(TimeNs d);

}  // namespace xab::abstat
