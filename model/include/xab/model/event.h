// xab/model/event.h -- one stored record (Event) and the model's basic types.
#pragma once

#include <xab/model/kinds.h>

#include <cstdint>

namespace xab {

using TimeNs = std::int64_t;  // nanoseconds since the Unix epoch
using Tid = std::int32_t;     // a PVM tid; kAnyTid for "any task"
using StrId = std::int32_t;   // index into Trace's string table
using ListId = std::int32_t;  // index into Trace's tid-list table
using TaskIndex = std::uint32_t;

inline constexpr Tid kAnyTid = -1;
inline constexpr Tid kNoTid = 0;  // parent=none
inline constexpr std::int32_t kAnyTag = -1;
inline constexpr TimeNs kOpenEnd = INT64_MAX;  // an interval still open at the end of the trace

// Sums of durations saturate instead of overflowing: a corrupt trace can
// hold times 290 years apart, and summing those must not be undefined.
inline TimeNs addTime(TimeNs a, TimeNs b) {
  TimeNs r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

// Whether `present` (Event::present, an event's shape) says slot `slot` was
// in the record.
inline bool slotPresent(std::uint8_t present, int slot) {
  return slot >= 0 && slot < kMaxSlots && (present >> slot) & 1;
}

// One record as the analyses see it, 56 bytes (stored in an EventStore in
// about a fifth of that).  The meaning of a[] is kindSlots(kind, phase);
// rarely-used payload (strings, tid lists) lives in the trace's tables.
struct Event {
  TimeNs time;          // the task's clock
  TimeNs recvTime;      // abmon's clock when the record arrived (Beguelin, Xab, §3.3)
  std::uint32_t seq;    // record number in the input (0-based): arrival order
  Kind kind;
  Phase phase;
  std::uint8_t present; // bit i: a[i] was in the record; bit 6: kInsideCall; bit 7: rc was
  std::int32_t rc;
  std::int32_t a[kMaxSlots];

  bool has(int slot) const { return slotPresent(present, slot); }
  bool hasRc() const { return present & 0x80; }
  // Made inside a blocking call the task had begun and not yet ended: by a
  // pvm_addmhf handler, a pvm_recvf matching function, or libpvm itself
  // under PVM's tracer.  Set by the TraceBuilder, never written out.
  static constexpr std::uint8_t kInsideCall = 0x40;
  bool insideCall() const { return present & kInsideCall; }
  bool isBegin() const { return phase == Phase::Begin; }
  // The slot named by key, or fallback when this kind has no such slot or
  // the record did not carry it.
  std::int32_t get(Key key, std::int32_t fallback = 0) const {
    int s = slotOf(kind, phase, key);
    return has(s) ? a[s] : fallback;
  }
};
static_assert(sizeof(Event) == 56, "Event stays small: it is copied out of the store");
static_assert(kMaxSlots <= 6, "present's bit 6 is Event::kInsideCall");

}  // namespace xab
