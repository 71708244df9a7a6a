#include <xab/traceformat/read.h>

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

constexpr std::string_view kBegin = ".begin";

}  // namespace

void splitEventName(std::string_view name, Kind& kind, Phase& phase) {
  phase = Phase::End;
  if (name.ends_with(kBegin)) {
    name.remove_suffix(kBegin.size());
    phase = Phase::Begin;
  }
  kind = kindFromName(name);
  if (kind == Kind::OTHER) phase = Phase::End;
}

bool parseTime(std::string_view s, std::int64_t& out) {
  bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  auto dot = s.find('.');
  std::string_view secs = s.substr(0, dot);
  std::int64_t sec = 0;
  if (!digits(secs, sec)) return false;  // no sign left, no "+", no "--"
  // int64 ns holds up to year 2262 either side of 1970; refuse what would
  // overflow (the same bound both ways, so every written time reads back).
  if (sec > std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1) return false;
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
  std::int64_t mag = sec * 1'000'000'000 + frac;
  out = negative ? -mag : mag;
  return true;
}

bool parseTid(std::string_view s, std::int32_t& out) {
  if (s.size() > 1 && s[0] == 't') {
    std::int64_t v = 0;
    if (s[1] == '-' || s[1] == '+' || !wholeInt64(s.substr(1), v, 16)) return false;
    if (v < 0 || v > 0xffffffff) return false;
    out = static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
    return out >= 0 || isPvmdTid(out);
  }
  if (s == "any") { out = -1; return true; }
  if (s == "none") { out = 0; return true; }
  std::int64_t v = 0;
  if (!wholeInt64(s, v) || v < INT32_MIN || v > INT32_MAX) return false;
  out = static_cast<std::int32_t>(v);
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
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(std::size(kDataTypeNames)); ++i)
    if (s == kDataTypeNames[i]) { out = i; return true; }
  return parseInt(s, out);
}

bool parseTidList(std::string_view s, std::vector<std::int32_t>& out) {
  out.clear();
  if (s == "-") return true;
  while (true) {
    auto comma = s.find(',');
    std::int32_t t = 0;
    if (!parseTid(s.substr(0, comma), t)) return false;
    out.push_back(t);
    if (comma == std::string_view::npos) return true;
    s.remove_prefix(comma + 1);
  }
}

bool parseLang(std::string_view s, std::int32_t& out) {
  if (s == "c") { out = XAB_LANG_C; return true; }
  if (s == "fortran") { out = XAB_LANG_FORTRAN; return true; }
  return parseInt(s, out);
}

bool parseValue(Spelling spelling, std::string_view s, std::int32_t& out) {
  switch (spelling) {
    case Spelling::Tid:
    case Spelling::Parent: return parseTid(s, out);
    case Spelling::DataType: return parseDataType(s, out);
    case Spelling::Lang: return parseLang(s, out);
    case Spelling::Int:
    case Spelling::Tag:
    case Spelling::String:
    case Spelling::List: break;
  }
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
