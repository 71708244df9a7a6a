// picl2ab's tokenizer: PICL 2.0 record lines into records
// (docs/picl-mapping.md, "Reading PICL").
#include "picl_records.h"

#include <charconv>
#include <cmath>

namespace xab::tr::piclrec {
namespace {

// Seconds ("12.345678", "1.2e-3") to nanoseconds.  The usual fixed-point
// form is read exactly and fast; anything else goes through a double.
// MPICL writes times such as -0.000001 (clocks adjusted after the start).
// |time| is at most 999999999 s (31 years): with the shift of negative
// times (shiftTimes) every time stays far inside TimeNs.
bool parseSeconds(std::string_view s, TimeNs& ns) {
  const std::size_t sign = !s.empty() && s[0] == '-';
  std::size_t i = sign;
  TimeNs whole = 0, frac = 0;
  int digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 9 + sign) whole = whole * 10 + (s[i++] - '0');
  if (i > sign && i < s.size() && s[i] == '.') {
    std::size_t j = i + 1;
    for (; j < s.size() && s[j] >= '0' && s[j] <= '9'; ++j)
      if (digits < 9) frac = frac * 10 + (s[j] - '0'), ++digits;
    if (j == s.size() && j > i + 1) {
      for (; digits < 9; ++digits) frac *= 10;
      ns = whole * 1000000000 + frac;
      if (sign) ns = -ns;
      return true;
    }
  }
  double d = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(d) || std::fabs(d) >= 1e9)
    return false;
  ns = static_cast<TimeNs>(std::llround(d * 1e9));
  return true;
}

std::string quoted(std::string_view s) { return "'" + std::string(s.substr(0, 40)) + "'"; }

// Reads a line's fields in one pass (picl2ab spends most of its time here).
struct Cursor {
  const char* p;
  const char* end;
  static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
  bool token(std::string_view& tok) {
    while (p < end && blank(*p)) ++p;
    if (p == end) return false;
    const char* b = p;
    while (p < end && !blank(*p)) ++p;
    tok = std::string_view(b, static_cast<std::size_t>(p - b));
    return true;
  }
  // A decimal int32 field; on failure `tok` is the field (empty when
  // the line has no more fields), for the message.
  bool integer(std::int32_t& v, std::string_view& tok) { return token(tok) && decimal(tok, v); }

  static bool decimal(std::string_view tok, std::int32_t& v) {
    std::size_t i = tok[0] == '-' || tok[0] == '+';
    if (i == tok.size() || tok.size() > 11) return false;
    std::int64_t x = 0;
    for (; i < tok.size(); ++i) {
      if (tok[i] < '0' || tok[i] > '9') return false;
      x = x * 10 + (tok[i] - '0');
    }
    if (tok[0] == '-') x = -x;
    if (x < INT32_MIN || x > INT32_MAX) return false;
    v = static_cast<std::int32_t>(x);
    return true;
  }
};


}  // namespace

// Plain loops: string_view::find_first_of calls memchr per character,
// which was a fifth of picl2ab's time.
bool nextToken(std::string_view& rest, std::string_view& tok) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  const char* p = rest.data();
  const char* end = p + rest.size();
  while (p < end && blank(*p)) ++p;
  if (p == end) return false;
  const char* b = p;
  while (p < end && !blank(*p)) ++p;
  tok = std::string_view(b, static_cast<std::size_t>(p - b));
  rest = std::string_view(p, static_cast<std::size_t>(end - p));
  return true;
}
// One line into rec; "" or why it is malformed.
std::string parseLine(std::string_view line, Rec& rec) {
  static constexpr const char* kNames[] = {"record type", "event type", "time", "node", "process", "data count"};
  Cursor c{line.data(), line.data() + line.size()};
  std::string_view tok;
  std::int32_t process = 0, ndata = 0;
  auto bad = [&](int k) {
    if (tok.empty())
      return "expected 6 fields (rectype evtype time node process ndata), got " + std::to_string(k);
    return std::string("bad ") + kNames[k] + " " + quoted(tok);
  };
  tok = {};
  if (!c.integer(rec.rectype, tok)) return bad(0);
  tok = {};
  if (!c.integer(rec.evtype, tok)) return bad(1);
  tok = {};
  if (!c.token(tok) || !parseSeconds(tok, rec.time)) return bad(2);
  tok = {};
  if (!c.integer(rec.node, tok) || rec.node < 0 || rec.node >= kMaxNodes) return bad(3);
  tok = {};
  if (!c.integer(process, tok)) return bad(4);
  tok = {};
  if (!c.integer(ndata, tok) || ndata < 0) return bad(5);
  if (ndata > 0 && !c.token(tok)) return "data count " + std::to_string(ndata) + " but no data type";
  rec.nd = 0;
  for (std::int32_t k = 0; k < ndata; ++k) {
    if (!c.token(tok))
      return "data count " + std::to_string(ndata) + " but " + std::to_string(k) + " data values";
    std::int32_t v = 0;
    if (!Cursor::decimal(tok, v)) v = 0;  // non-integer data: read as 0
    if (k < 3) rec.d[rec.nd++] = v;
  }
  return {};
}
// Reads every line into recs; false (res.error set) at a malformed line
// unless lenient.
bool readRecords(std::string_view text, const PiclReadOptions& o, std::vector<Rec>& recs, PiclReadResult& res) {
  recs.reserve(text.size() / 24);  // a record line is 24 bytes or more
  std::uint64_t lineNo = 0;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++lineNo;
    std::string_view probe = line;
    std::string_view first;
    if (!nextToken(probe, first) || first[0] == '#') continue;
    Rec r;
    std::string why = parseLine(line, r);
    if (!why.empty()) {
      std::string msg = o.name + ":" + std::to_string(lineNo) + ": " + why;
      if (!o.lenient) {
        res.error = msg;
        return false;
      }
      ++res.malformed;
      if (res.warnings.size() < 10) res.warnings.push_back(msg);
      continue;
    }
    recs.push_back(r);
  }
  return true;
}

// xab times cannot be negative: with negative PICL times, every time moves
// later by the same amount, so the earliest becomes 0 (the viewer and
// abstat show times from the trace's first record, so nothing shows it).
TimeNs shiftTimes(std::vector<Rec>& recs) {
  TimeNs earliest = 0;
  for (const Rec& r : recs) earliest = std::min(earliest, r.time);
  for (Rec& r : recs) r.time -= earliest;
  return -earliest;
}

}  // namespace xab::tr::piclrec
