#include "values.h"

#include <charconv>
#include <iterator>

namespace xab::abmon {
namespace {

// PVM_STR .. PVM_ULONG are 0..11 in pvm3.h; this file does not include
// pvm3.h (the formatter links no PVM), pvm_receiver.cpp checks the codes.
constexpr std::string_view kTypeNames[] = {"str",  "byte",   "short", "int",
                                           "float", "cplx",  "double", "dcplx",
                                           "long", "ushort", "uint",  "ulong"};

void append_number(std::string& out, std::int64_t value, int base) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, value, base);
  out.append(buf, res.ptr);
}

}  // namespace

void append_int(std::string& out, std::int64_t value) { append_number(out, value, 10); }

void append_time(std::string& out, std::int64_t ns) {
  std::int64_t sec = ns / 1000000000;
  std::int64_t frac = ns % 1000000000;
  if (frac < 0) {  // floor, so that -0.5 s reads -1.500000000
    frac += 1000000000;
    --sec;
  }
  append_number(out, sec, 10);
  char buf[10] = {'.', '0', '0', '0', '0', '0', '0', '0', '0', '0'};
  for (int i = 9; i >= 1; --i, frac /= 10) buf[i] = static_cast<char>('0' + frac % 10);
  out.append(buf, sizeof buf);
}

void append_tid_result(std::string& out, std::int32_t tid) {
  if (tid < 0) {
    append_number(out, tid, 10);
    return;
  }
  out.push_back('t');
  append_number(out, tid, 16);
}

void append_tid(std::string& out, std::int32_t tid) {
  if (tid == -1)
    out.append("any");
  else
    append_tid_result(out, tid);
}

void append_tag(std::string& out, std::int32_t tag) {
  if (tag == -1)
    out.append("any");
  else
    append_number(out, tag, 10);
}

void append_type(std::string& out, std::int32_t type) {
  if (type >= 0 && static_cast<std::size_t>(type) < std::size(kTypeNames))
    out.append(kTypeNames[type]);
  else
    append_number(out, type, 10);
}

void append_escaped(std::string& out, std::string_view text) {
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

}  // namespace xab::abmon
