// The reader's line parser: one line of trace text, read by the
// trace-format library's LineReader, into a TraceBuilder.
#pragma once

#include <xab/model/builder.h>
#include <xab/traceformat/record.h>

#include <string>
#include <string_view>

namespace xab {

// Parses one line (without its '\n') into the builder.  Returns "" or the
// reason the line was refused; sets `fatal` for a newer format version.
class LineParser {
 public:
  explicit LineParser(TraceBuilder& b) : b_(b) {}
  std::string parse(std::string_view line, bool& fatal);

 private:
  TraceBuilder& b_;
  text::LineReader reader_;
  std::string error_;
};

}  // namespace xab
