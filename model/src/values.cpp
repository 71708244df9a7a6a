#include "values.h"

#include <charconv>
#include <limits>

namespace xab::text {
namespace {

// Plain decimal digits, at most 18 (no overflow): the common case, faster
// than from_chars' general path.
bool digits(std::string_view s, std::int64_t& v) {
  if (s.empty() || s.size() > 18) return false;
  std::int64_t x = 0;
  for (char c : s) {
    unsigned d = static_cast<unsigned>(c - '0');
    if (d > 9) return false;
    x = x * 10 + d;
  }
  v = x;
  return true;
}

bool wholeInt64(std::string_view s, std::int64_t& v, int base = 10) {
  if (s.empty()) return false;
  if (base == 10 && digits(s, v)) return true;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc{} && p == s.data() + s.size();
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool parseTime(std::string_view s, TimeNs& out) {
  auto dot = s.find('.');
  std::string_view secs = s.substr(0, dot);
  if (secs.empty() || secs[0] == '-' || secs[0] == '+') return false;
  std::int64_t sec = 0;
  if (!digits(secs, sec)) return false;
  // int64 ns holds up to year 2262; refuse what would overflow.
  if (sec > std::numeric_limits<TimeNs>::max() / 1'000'000'000 - 1) return false;
  std::int64_t frac = 0;
  if (dot != std::string_view::npos) {
    std::string_view f = s.substr(dot + 1);
    if (f.empty() || f.size() > 9) return false;
    for (char c : f) {
      if (c < '0' || c > '9') return false;
      frac = frac * 10 + (c - '0');
    }
    for (std::size_t i = f.size(); i < 9; ++i) frac *= 10;
  }
  out = sec * 1'000'000'000 + frac;
  return true;
}

bool parseTid(std::string_view s, Tid& out) {
  if (s.size() > 1 && s[0] == 't') {
    std::int64_t v = 0;
    if (s[1] == '-' || s[1] == '+' || !wholeInt64(s.substr(1), v, 16)) return false;
    if (v < 0 || v > 0x7fffffff) return false;
    out = static_cast<Tid>(v);
    return true;
  }
  if (s == "any") { out = kAnyTid; return true; }
  if (s == "none") { out = kNoTid; return true; }
  std::int64_t v = 0;
  if (!wholeInt64(s, v) || v < INT32_MIN || v > INT32_MAX) return false;
  out = static_cast<Tid>(v);
  return true;
}

bool parseInt(std::string_view s, std::int32_t& out) {
  if (s == "any") { out = -1; return true; }
  std::int64_t v = 0;
  if (!wholeInt64(s, v) || v < INT32_MIN || v > INT32_MAX) return false;
  out = static_cast<std::int32_t>(v);
  return true;
}

bool parseDataType(std::string_view s, std::int32_t& out) {
  static constexpr std::string_view names[] = {"str",    "byte",  "short", "int",
                                               "float",  "cplx",  "double", "dcplx",
                                               "long",   "ushort", "uint", "ulong"};
  for (std::size_t i = 0; i < std::size(names); ++i)
    if (s == names[i]) { out = static_cast<std::int32_t>(i); return true; }
  return parseInt(s, out);
}

bool parseTidList(std::string_view s, std::vector<Tid>& out) {
  out.clear();
  if (s == "-") return true;
  while (true) {
    auto comma = s.find(',');
    Tid t = 0;
    if (!parseTid(s.substr(0, comma), t)) return false;
    out.push_back(t);
    if (comma == std::string_view::npos) return true;
    s.remove_prefix(comma + 1);
  }
}

bool parseLang(std::string_view s, std::int32_t& out) {
  if (s == "c") { out = 0; return true; }
  if (s == "fortran") { out = 1; return true; }
  return parseInt(s, out);
}

bool needsUnescape(std::string_view s) { return s.find('%') != std::string_view::npos; }

bool unescape(std::string_view s, std::string& out) {
  out.clear();
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') { out.push_back(s[i]); continue; }
    if (i + 2 >= s.size()) return false;  // "%4" at the end
    int hi = hexDigit(s[i + 1]), lo = hexDigit(s[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

}  // namespace xab::text
