#include "input.h"

#include <csignal>

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
  for (SourceStep step; (step = source.next()) != SourceStep::Ended;) {
    if (gStop) source.stop();
    double now = source.quietSeconds();
    if (now < quiet) stallReported = false;  // records came since the last report
    quiet = now;
    if (o.follow && step == SourceStep::Waiting && !stallReported && quiet >= o.stallSeconds) {
      stallReported = true;
      onStall(source.reader(), quiet);
    }
  }
}

}  // namespace xab::abstat
