// One line of the trace text into the builder.  The library's LineReader
// tokenizes it (allocation-free on the usual path: views into the line);
// the builder copies only new strings, once, when interned.
#include "builder.h"

namespace xab {

std::string LineParser::parse(std::string_view line, bool& fatal) {
  using Line = text::LineReader::Line;
  Line kind = reader_.read(line, !b_.header().present, error_, fatal);
  if (!error_.empty() || kind == Line::Skip) return error_;
  if (kind == Line::Header)
    b_.header(reader_.header());
  else
    b_.record(reader_.record());
  return {};
}

}  // namespace xab
