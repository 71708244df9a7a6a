// xab/traceformat/write.h -- the one writer of trace values
// (docs/trace-format.md, "Values").  Each appends to a string, without
// allocating beyond the string's growth: abmon builds each message's lines
// in one buffer, the translators write millions of values.
#pragma once

#include <xab/traceformat/schema.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace xab::text {

// The writers' core: each writes at p and returns the end.  p must have
// room for the longest spelling: kMaxNumberChars for an int, a tid or a
// tag, kMaxTimeChars for a time.  Sinks that own a buffer write here.
inline constexpr std::size_t kMaxNumberChars = 24;
inline constexpr std::size_t kMaxTimeChars = 32;
char* putInt(char* p, std::int64_t value);
char* putTid(char* p, std::int32_t tid);
// ns as seconds with `decimals` digits (0..9, truncated): '-' and the
// magnitude for a negative time.
char* putSeconds(char* p, std::int64_t ns, int decimals);

void appendInt(std::string& out, std::int64_t value);
// Seconds with 9 decimals: 1763680000.200100200.  A negative time is its
// magnitude with a '-' in front: -0.5 s is -0.500000000 (as PICL and every
// number reader spell it).
void appendTime(std::string& out, std::int64_t ns);
// t<hex>; -1 is "any"; other negative values are PVM error codes (decimal).
void appendTid(std::string& out, std::int32_t tid);
// A result that is a tid: t<hex>, negatives (errors) in decimal.
void appendTidResult(std::string& out, std::int32_t tid);
// -1 is "any".
void appendTag(std::string& out, std::int32_t tag);
// PVM data type name (str byte ... ulong), unknown codes in decimal.
void appendDataType(std::string& out, std::int32_t type);
// A task's parent: `none` (no parent: 0 or a PVM error code), else a tid.
void appendParent(std::string& out, std::int32_t tid);
// c, fortran, or another code in decimal.
void appendLang(std::string& out, std::int32_t lang);
// Tids separated by commas; `-` when empty.
void appendTidList(std::string& out, std::span<const std::int32_t> tids);
// Bytes that are not printable ASCII, and space, '%' and '=', become %XX.
void appendEscaped(std::string& out, std::string_view text);
// " match=order": an end record of a call that carries a message and no
// serial, matched by order (docs/trace-format.md, "Records of tasks PVM
// traces"); not a schema key, so readers that do not know it ignore it.
void appendMatchOrder(std::string& out);
// An int-valued slot as its spelling says (not String or List).
void appendValue(std::string& out, Spelling spelling, std::int32_t v);
// " key=": what precedes every field.
inline void appendKey(std::string& out, std::string_view key) {
  out.push_back(' ');
  out.append(key);
  out.push_back('=');
}
// "recv" or "recv.begin".
void appendEventName(std::string& out, Kind kind, Phase phase);
// A record's first four columns: "RECV TASK TID" and a space, the event
// name left to the caller (abmon writes a call's own precomputed name);
// what every writer of a record line starts with.
void appendRecordStart(std::string& out, std::int64_t recvNs, std::int64_t taskNs, std::int32_t tid);
// ... and the event name: "RECV TASK TID NAME".
void appendRecordStart(std::string& out, std::int64_t recvNs, std::int64_t taskNs, std::int32_t tid, Kind kind,
                       Phase phase = Phase::End);

}  // namespace xab::text
