#include "input.h"

#include <csignal>
#include <cstdio>

namespace xab::abstat {
namespace {

volatile std::sig_atomic_t gStop = 0;
void onSignal(int) { gStop = 1; }

}  // namespace

TraceSource openInput(const Options& o) {
  SourceOptions so;
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
  while (source.next() != SourceStep::Ended) {
    if (gStop) source.stop();
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
