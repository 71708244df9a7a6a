// The two renderings of a Report.
#pragma once

#include "analysis.h"
#include "options.h"

#include <string>

namespace xab::abstat {

std::string textReport(const Report& a, const Sections& s);
// The sentence for repeated serials / receives (MessageTable::consistent()).
std::string inconsistencyWarning(const MessageTable& m);
// pretty: indented (a file); compact: one line (JSON Lines with --follow).
std::string jsonReport(const Report& a, const Sections& s, bool pretty);

}  // namespace xab::abstat
