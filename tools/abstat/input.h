// Reading abstat's input: all at once, or following a live trace.
#pragma once

#include "options.h"

#include <xab/model/reader.h>

#include <functional>
#include <string>

namespace xab::abstat {

// Called in --follow mode when no record arrived for --stall seconds;
// `stalled` is how long.  Called again only after progress resumes.
using StallHandler = std::function<void(const TraceReader&, double stalled)>;

// Reads the input into the reader until its end (or, with --follow, until
// abmon's stop record, the end of a pipe, or SIGINT/SIGTERM).  Returns ""
// or an I/O error.
std::string readInput(const Options& o, TraceReader& reader, const StallHandler& onStall);

}  // namespace xab::abstat
