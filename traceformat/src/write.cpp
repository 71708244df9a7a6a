#include <xab/traceformat/write.h>

#include <charconv>
#include <cstring>
#include <iterator>

namespace xab::text {
namespace {

// [begin, end) as pointer and length: std::string::append(first, last) is
// the iterator-range overload, which goes through _M_replace and costs
// twice as much per call.
void appendSpan(std::string& out, const char* begin, const char* end) {
  out.append(begin, static_cast<std::size_t>(end - begin));
}

// The base is a constant in each caller: to_chars' decimal path is much
// faster than its general one.
void appendDecimal(std::string& out, std::int64_t value) {
  char buf[kMaxNumberChars];
  appendSpan(out, buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
}

void appendHex(std::string& out, std::int32_t value) {
  char buf[kMaxNumberChars];
  appendSpan(out, buf, std::to_chars(buf, buf + sizeof buf, value, 16).ptr);
}

// "00" .. "99": two digits per step.
constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

}  // namespace

char* putInt(char* p, std::int64_t value) { return std::to_chars(p, p + kMaxNumberChars, value).ptr; }

char* putTid(char* p, std::int32_t tid) {
  if (tid == -1) {
    std::memcpy(p, "any", 3);
    return p + 3;
  }
  if (tid < 0 && !isPvmdTid(tid)) return putInt(p, tid);
  *p++ = 't';
  return std::to_chars(p, p + kMaxNumberChars - 1, static_cast<std::uint32_t>(tid), 16).ptr;
}

char* putSeconds(char* p, std::int64_t ns, int decimals) {
  // Sign and magnitude, in unsigned arithmetic: INT64_MIN has no positive.
  auto mag = static_cast<std::uint64_t>(ns);
  if (ns < 0) {
    *p++ = '-';
    mag = 0 - mag;
  }
  p = std::to_chars(p, p + kMaxNumberChars, mag / 1000000000u).ptr;
  if (decimals <= 0) return p;
  if (decimals > 9) decimals = 9;
  auto frac = static_cast<std::uint32_t>(mag % 1000000000u);
  char digits[10];  // 9 digits, written from the right two at a time
  for (int i = 8; i > 0; i -= 2, frac /= 100) std::memcpy(digits + i - 1, kPairs + 2 * (frac % 100), 2);
  digits[0] = static_cast<char>('0' + frac);
  *p++ = '.';
  std::memcpy(p, digits, static_cast<std::size_t>(decimals));
  return p + decimals;
}

void appendInt(std::string& out, std::int64_t value) { appendDecimal(out, value); }

void appendTime(std::string& out, std::int64_t ns) {
  char buf[kMaxTimeChars];
  appendSpan(out, buf, putSeconds(buf, ns, 9));
}

void appendTidResult(std::string& out, std::int32_t tid) {
  if (tid < 0) {
    appendDecimal(out, tid);
    return;
  }
  out.push_back('t');
  appendHex(out, tid);
}

void appendTid(std::string& out, std::int32_t tid) {
  char buf[kMaxNumberChars];
  appendSpan(out, buf, putTid(buf, tid));
}

void appendTag(std::string& out, std::int32_t tag) {
  if (tag == -1)
    out.append("any");
  else
    appendDecimal(out, tag);
}

void appendDataType(std::string& out, std::int32_t type) {
  auto name = dataTypeName(type);
  if (!name.empty())
    out.append(name);
  else
    appendDecimal(out, type);
}

void appendParent(std::string& out, std::int32_t tid) {
  if (tid <= 0)
    out.append("none");
  else
    appendTid(out, tid);
}

void appendLang(std::string& out, std::int32_t lang) {
  if (lang == XAB_LANG_C)
    out.push_back('c');
  else if (lang == XAB_LANG_FORTRAN)
    out.append("fortran");
  else
    appendDecimal(out, lang);
}

void appendTidList(std::string& out, std::span<const std::int32_t> tids) {
  if (tids.empty()) {
    out.push_back('-');
    return;
  }
  for (std::size_t i = 0; i < tids.size(); ++i) {
    if (i > 0) out.push_back(',');
    appendTid(out, tids[i]);
  }
}

void appendEscaped(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (char ch : text) {
    auto byte = static_cast<unsigned char>(ch);
    if (byte > 0x20 && byte < 0x7f && byte != '%' && byte != '=') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
}

void appendValue(std::string& out, Spelling spelling, std::int32_t v) {
  switch (spelling) {
    case Spelling::Tid: return appendTid(out, v);
    case Spelling::Tag: return appendTag(out, v);
    case Spelling::DataType: return appendDataType(out, v);
    case Spelling::Parent: return appendParent(out, v);
    case Spelling::Lang: return appendLang(out, v);
    case Spelling::Int:
    case Spelling::String:
    case Spelling::List: break;
  }
  appendInt(out, v);
}

void appendEventName(std::string& out, Kind kind, Phase phase) {
  out.append(kindName(kind));
  if (phase == Phase::Begin) out.append(".begin");
}

void appendRecordStart(std::string& out, std::int64_t recvNs, std::int64_t taskNs, std::int32_t tid) {
  appendTime(out, recvNs);
  out.push_back(' ');
  appendTime(out, taskNs);
  out.push_back(' ');
  appendTid(out, tid);
  out.push_back(' ');
}

void appendRecordStart(std::string& out, std::int64_t recvNs, std::int64_t taskNs, std::int32_t tid, Kind kind,
                       Phase phase) {
  appendRecordStart(out, recvNs, taskNs, tid);
  appendEventName(out, kind, phase);
}

void appendMatchOrder(std::string& out) {
  appendKey(out, "match");
  out.append("order");
}

}  // namespace xab::text
