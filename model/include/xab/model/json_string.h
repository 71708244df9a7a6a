// xab/model/json_string.h -- a string as a JSON string literal, for every
// JSON xab writes (abstat's report, ab2json).
//
// RFC 8259, section 7: '"' and '\\' are escaped, and the control characters
// U+0000..U+001F, with the two-character forms for tab, line feed and
// carriage return and \u00XX for the others.  DEL (0x7f) is not a control
// character to JSON and goes out as it is.  A trace's strings are bytes of
// no declared encoding: each byte from 0x80 up goes out as \u00XX (its
// Latin-1 reading), so the output is ASCII and valid JSON whatever the
// bytes were.
#pragma once

#include <string_view>

namespace xab {

// Writes s, quoted and escaped, through out.put(std::string_view) and
// out.put(char).  Runs of bytes that need no escape go out in one piece.
template <class Out>
void writeJsonString(Out& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.put('"');
  std::size_t from = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') continue;
    out.put(s.substr(from, i - from));
    from = i + 1;
    out.put('\\');
    switch (c) {
      case '"': out.put('"'); break;
      case '\\': out.put('\\'); break;
      case '\n': out.put('n'); break;
      case '\t': out.put('t'); break;
      case '\r': out.put('r'); break;
      default:
        out.put("u00");
        out.put(kHex[c >> 4]);
        out.put(kHex[c & 15]);
    }
  }
  out.put(s.substr(from));
  out.put('"');
}

}  // namespace xab
