// xab/traceformat/read.h -- the one reader of the trace text: the
// tokenizer of a line and the parsers of its values.  Each returns false on
// malformed input and never reads past the view it is given.
#pragma once

#include <xab/traceformat/schema.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xab::text {

// The next field of a line: fields are separated by single spaces.
// Returns false when nothing is left.
inline bool nextField(std::string_view& rest, std::string_view& field) {
  if (rest.empty()) return false;
  // Fields are short: a plain loop beats a memchr call here.
  std::size_t i = 0, n = rest.size();
  const char* p = rest.data();
  while (i < n && p[i] != ' ') ++i;
  field = std::string_view(p, i);
  rest = i < n ? std::string_view(p + i + 1, n - i - 1) : std::string_view{};
  return true;
}

// "recv.begin" -> RECV, Begin.  An unknown name is Kind::OTHER, End.
void splitEventName(std::string_view name, Kind& kind, Phase& phase);

// Seconds with up to 9 decimals, optionally negative ("-0.500000000"), in
// the range of int64 nanoseconds.
bool parseTime(std::string_view s, std::int64_t& out);
bool parseTid(std::string_view s, std::int32_t& out);   // t40002, any, none, -31
bool parseInt(std::string_view s, std::int32_t& out);   // decimal, any = -1
bool parseDataType(std::string_view s, std::int32_t& out);
bool parseTidList(std::string_view s, std::vector<std::int32_t>& out);  // "t1,t2" or "-"
bool parseLang(std::string_view s, std::int32_t& out);  // c, fortran, or a number
// An int-valued slot as its spelling says (not String or List).
bool parseValue(Spelling spelling, std::string_view s, std::int32_t& out);
// Undo the %XX escapes; false on a bad escape.
bool unescape(std::string_view s, std::string& out);
bool needsUnescape(std::string_view s);

}  // namespace xab::text
