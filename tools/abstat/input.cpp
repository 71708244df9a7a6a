#include "input.h"

#include <algorithm>
#include <csignal>
#include <cstdio>

namespace xab::abstat {
namespace {

volatile std::sig_atomic_t gStop = 0;
void onSignal(int) { gStop = 1; }

// abstat's memory per record held: the records themselves (s bytes, about
// 12), a second copy of them while a stall report puts a snapshot on
// global time (the snapshot shares them with the reader, so global time
// copies), and the analyses' tables (about 12: docs/model-memory.md).
// The fixed part (the program, its buffers, the spill file's compressor)
// comes off the budget first.
constexpr std::uint64_t kFixedBytes = std::uint64_t{24} << 20;
constexpr double kAnalysisBytes = 12;

std::uint64_t windowRecords(std::uint64_t budget, double storeBytesPerRecord) {
  const double perRecord = 2 * storeBytesPerRecord + kAnalysisBytes;
  const std::uint64_t room = budget > 2 * kFixedBytes ? budget - kFixedBytes : budget / 2;
  return std::max<std::uint64_t>(static_cast<std::uint64_t>(static_cast<double>(room) / perRecord), 10000);
}

}  // namespace

TraceSource openInput(const Options& o) {
  SourceOptions so;
  so.maxRecords = o.windowed() ? windowRecords(o.budget, 14) : 0;  // until the trace's own cost is measured
  so.spill = SourceOptions::Spill::Never;  // abstat reads no history back: what the window drops is gone
  so.read.stopOnError = o.strict;
  so.follow = o.follow;
  if (o.progress && !o.follow) {
    so.progress.emplace();
    so.progress->label = "abstat";
  }
  return TraceSource(o.input, so);
}

void readInput(const Options& o, TraceSource& source, const StallHandler& onStall) {
  if (o.follow) {
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
  }
  bool stallReported = false;
  double quiet = 0;
  std::uint64_t measureAt = 1 << 20;  // records read when the cost per record is measured next
  for (SourceStep step; (step = source.next()) != SourceStep::Ended;) {
    if (gStop) source.stop();
    if (o.windowed() && step == SourceStep::Read && source.reader().runRecords() >= measureAt) {
      // This trace's own bytes per record, measured on what is held.
      measureAt = source.reader().runRecords() + (std::uint64_t{1} << 22);
      auto held = source.reader().snapshot();
      if (held->eventCount() > 0)
        source.setMaxRecords(windowRecords(
            o.budget, static_cast<double>(held->memoryBytes()) / static_cast<double>(held->eventCount())));
    }
    double now = source.quietSeconds();
    if (now < quiet) stallReported = false;  // records came since the last report
    quiet = now;
    // Quiet: no task record for that long (abmon's own records, such as
    // its samples, are no progress of the program).
    if (o.follow && source.caughtUp() && !stallReported && quiet >= o.stallSeconds) {
      stallReported = true;
      onStall(source.reader(), quiet);
    }
  }
}

bool inputUsable(const Options& o, const TraceSource& source) {
  if (!source.error().empty()) {
    std::fprintf(stderr, "abstat: %s\n", source.error().c_str());
    return false;
  }
  const TraceReader& r = source.reader();
  if (r.stoppedReading()) {
    std::fprintf(stderr, "abstat: %s: %s\n", source.name().c_str(), r.fatal().c_str());
    return false;
  }
  std::size_t shown = 0;
  for (const ReadError& e : r.errors()) {
    if (shown++ == o.showErrors) break;
    std::fprintf(stderr, "abstat: %s\n", source.describe(e).c_str());
  }
  if (r.errorCount() > shown)
    std::fprintf(stderr, "abstat: %llu malformed lines in all\n", static_cast<unsigned long long>(r.errorCount()));
  if (std::string why = source.notATrace(); !why.empty()) {
    // A report of "0 events" would pass for a quiet program.  A header
    // alone is a trace of nothing.
    std::fprintf(stderr, "abstat: %s\n", why.c_str());
    return false;
  }
  return true;
}

}  // namespace xab::abstat
