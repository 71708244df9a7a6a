// Reading abstat's input: all at once, or following a live trace, through
// the model's TraceSource.
#pragma once

#include "options.h"

#include <xab/model/source.h>

#include <functional>

namespace xab::abstat {

// Called in --follow mode when no record arrived for --stall seconds;
// `stalled` is how long.  Called again only after progress resumes.
using StallHandler = std::function<void(const TraceReader&, double stalled)>;

// Opens the input (check error()): --strict stops at the first malformed
// line, --follow follows a growing file, a progress line unless
// --no-progress or --follow.
TraceSource openInput(const Options& o);

// Reads the input to its end: a pipe until it closes, a file once, or,
// with --follow, by the model's following rule (until abmon's stop
// record), or until SIGINT/SIGTERM.
void readInput(const Options& o, TraceSource& source, const StallHandler& onStall);

// After readInput: says on stderr why the input gives no trace (it could
// not be opened or read, --strict stopped at a malformed line, or it is no
// trace: empty, or every line malformed) and returns false; otherwise
// lists its malformed lines (at most --errors of them) and returns true.
bool inputUsable(const Options& o, const TraceSource& source);

}  // namespace xab::abstat
