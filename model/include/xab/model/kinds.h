// xab/model/kinds.h -- event kinds as the trace model knows them.
//
// The PVM calls come from libab's table (xab/events.h), so a kind added
// there is known here without an edit.  abmon's own records and "other"
// (an event name this reader does not know: forward compatible) follow.
#pragma once

#include <xab/events.h>

#include <cstdint>
#include <span>
#include <string_view>

namespace xab {

enum class Kind : std::uint16_t {
#define XAB_MODEL_KIND_(id, name, flags, rck, b, e) id,
  XAB_CALLS(XAB_MODEL_KIND_)
#undef XAB_MODEL_KIND_
  ABMON_START,  // "abmon.start": abmon's tid; version batch flush_ms
  TASK_EXIT,    // "task.exit": pvmd says the task has gone; how
  ABMON_LOST,   // "abmon.lost": n events the task dropped
  ABMON_BAD,    // "abmon.bad": reason n
  ABMON_STOP,   // "abmon.stop": events tasks bad
  OTHER,        // unknown event name; slot 0 holds the name's StrId
  COUNT_
};
static_assert(static_cast<int>(Kind::ABMON_START) == XAB_EV_COUNT_);

inline constexpr int kKindCount = static_cast<int>(Kind::COUNT_);

enum class Phase : std::uint8_t { End = 0, Begin = 1 };

// How a slot's text is read.  Values are stored as int32 in Event::a[].
enum class SlotType : char {
  Tid = 't',     // t40002, any (-1), none (0), or a negative error code
  Int = 'i',     // decimal; `any` reads as -1 (tags)
  String = 's',  // %-escaped text, stored as a StrId (Trace::str)
  DataType = 'y',// str byte ... ulong, or a decimal code (PVM_STR = 0 ...)
  List = 'l',    // comma-separated tids or `-`, stored as a ListId (Trace::list)
};

struct SlotSpec {
  std::string_view key;
  SlotType type;
};

inline constexpr int kMaxSlots = 6;

// Keys the analyses use, so they need no string compare per event.
enum class Key : std::uint8_t {
  Dst, Src, Tag, Bytes, Serial, Group, Count, Type, N, Stride, Root, Op,
  Tid, Tids, Inst, Mid, Enc, File, Where, Flags, Timeout, Text, Name, How, Reason, Messages,
  COUNT_
};

std::string_view kindName(Kind k);             // "recv", "abmon.start", "other"
unsigned kindFlags(Kind k);                    // XAB_F_* bits
char kindRcType(Kind k);                       // 'i' or 't'
Kind kindFromName(std::string_view name);      // Kind::OTHER when unknown
std::span<const SlotSpec> kindSlots(Kind k, Phase p);
int slotOf(Kind k, Phase p, Key key);          // slot index, or -1
int slotOf(Kind k, Phase p, std::string_view key);
std::string_view keyName(Key key);

inline bool isBlocking(Kind k) { return kindFlags(k) & XAB_F_BLOCKING; }
inline bool isMsgOut(Kind k) { return kindFlags(k) & XAB_F_MSG_OUT; }
inline bool isMsgIn(Kind k) { return kindFlags(k) & XAB_F_MSG_IN; }
inline bool isPack(Kind k) { return kindFlags(k) & XAB_F_PACK; }
inline bool isUnpack(Kind k) { return kindFlags(k) & XAB_F_UNPACK; }
inline bool isCollective(Kind k) {
  return k == Kind::REDUCE || k == Kind::GATHER || k == Kind::SCATTER;
}

// PVM data type codes as PVM numbers them (PVM_STR = 0 ... PVM_ULONG = 11).
std::string_view dataTypeName(std::int32_t code);  // "int"; "" when unknown

}  // namespace xab
