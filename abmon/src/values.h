// values.h -- how single values are spelled in a trace line
// (docs/trace-format.md, "Values").  All append to a string: abmon builds
// each message's lines in one buffer and writes it once.
#ifndef XAB_ABMON_VALUES_H
#define XAB_ABMON_VALUES_H

#include <cstdint>
#include <string>
#include <string_view>

namespace xab::abmon {

void append_int(std::string& out, std::int64_t value);
// Seconds since the epoch with 9 decimals: 1763680000.200100200.
void append_time(std::string& out, std::int64_t ns);
// t<hex>; -1 is "any"; other negative values are PVM error codes (decimal).
void append_tid(std::string& out, std::int32_t tid);
// A result that is a tid: t<hex>, negatives (errors) in decimal.
void append_tid_result(std::string& out, std::int32_t tid);
// -1 is "any".
void append_tag(std::string& out, std::int32_t tag);
// PVM data type name (str byte ... ulong), unknown codes in decimal.
void append_type(std::string& out, std::int32_t type);
// Bytes that are not printable ASCII, and space, '%' and '=', become %XX.
void append_escaped(std::string& out, std::string_view text);

}  // namespace xab::abmon

#endif
