// The two renderings of a Report.
#pragma once

#include "analysis.h"
#include "options.h"

#include <string>
#include <string_view>

namespace xab::abstat {

std::string textReport(const Report& a, const Sections& s);
// The sentence for repeated serials / receives (MessageTable::consistent()).
std::string inconsistencyWarning(const MessageTable& m);
// pretty: indented (a file); compact: one line (JSON Lines with --follow).
std::string jsonReport(const Report& a, const Sections& s, bool pretty);
// --compare A B [C ...]: reads, analyses and compares the runs; prints the
// comparison; returns the exit status.
int compareMain(const Options& o);

// printf's format f of one number, as a string (the text reports' figures).
std::string fmt(const char* f, double v);

// --output: the output lines of every task, or of the task `task` names
// (found: false when no task has that tid, name or label).
std::string outputReport(const Trace& t, std::string_view task, bool& found);

}  // namespace xab::abstat
