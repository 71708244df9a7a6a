// xab/traceformat/schema.h -- what a trace record may hold: every event
// kind, its fields (key and value type, per phase) and the field keys.
//
// The PVM calls are the rows of libab's event table (xab/events.h); abmon's
// own records (abmon.start, task.exit, abmon.lost, abmon.bad, abmon.stop)
// and "other" (an event name this reader does not know) follow, declared
// here and nowhere else.  The rows' slot strings ("src:t tag:i") are parsed
// once, at compile time; a malformed item stops the build.  The field keys
// are collected from the rows, so a key added in events.h is known here
// without an edit.
#pragma once

#include <xab/events.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace xab {

// The trace text's version (the header's `#xab-trace 1`).  A reader refuses
// a newer one; docs/trace-format.md "Versioning" says when it changes.
inline constexpr int kTraceFormatVersion = 1;

enum class Kind : std::uint16_t {
#define XAB_SCHEMA_KIND_(id, name, flags, rck, b, e) id,
  XAB_CALLS(XAB_SCHEMA_KIND_)
#undef XAB_SCHEMA_KIND_
  ABMON_START,  // "abmon.start": abmon's tid; version batch flush_ms
  TASK_EXIT,    // "task.exit": pvmd says the task has gone; how
  ABMON_LOST,   // "abmon.lost": n events the task dropped, or messages missing
  ABMON_BAD,    // "abmon.bad": reason n
  ABMON_STOP,   // "abmon.stop": events tasks bad
  // ---- relays and hosts (monitor records, no task's) ----
  RELAY_START,  // "relay.start": a relay's tid; host
  RELAY_BATCH,  // "relay.batch": host events bytes (time 2: the relay's clock)
  RELAY_STOP,   // "relay.stop": host events tasks bad
  HOST_DELETE,  // "host.delete": the host's relay's tid; host tasks how (delete|lost)
  PROGRAM_EXIT, // "program.exit": abmon's tid; tid status signal of the program abmon started
  // ---- clock-driven samples (the sampler's tid: abmon's or its host's relay's) ----
  SAMPLE,       // "sample": tid cpu_ms runnable_ms state of one task of the sampler's host
  HOST_LOAD,    // "host.load": host cpus load_milli busy_permille of the sampler's host
  OTHER,        // unknown event name; slot 0 holds the name
  COUNT_
};
static_assert(static_cast<int>(Kind::ABMON_START) == XAB_EV_COUNT_);

inline constexpr int kKindCount = static_cast<int>(Kind::COUNT_);

enum class Phase : std::uint8_t { End = 0, Begin = 1 };

// How a slot's text is read (the code letter of events.h's slot strings).
// Values are int32: strings and lists are ids into a table of the reader's.
enum class SlotType : char {
  Tid = 't',      // t40002, any (-1), none (0), a pvmd's t80000000, or a negative error code
  Int = 'i',      // decimal; `any` reads as -1 (tags)
  String = 's',   // %-escaped text
  DataType = 'y', // str byte ... ulong, or a decimal code (PVM_STR = 0 ...)
  List = 'l',     // comma-separated tids or `-`
};

// How a slot's value is spelled: the type, refined by three keys whose
// spelling the trace format gives by name (a tag's -1 is `any`, a parent
// that is none is `none`, a language is `c` / `fortran`).
enum class Spelling : std::uint8_t { Int, Tid, String, DataType, List, Tag, Parent, Lang };

struct SlotSpec {
  std::string_view key;
  SlotType type = SlotType::Int;
  Spelling spelling = Spelling::Int;
};

inline constexpr int kMaxSlots = 6;

namespace schema {

struct Row {
  std::string_view name;
  unsigned flags;
  char rc;  // 'i' or 't': how rc= is spelled
  std::string_view begin;
  std::string_view end;
};

inline constexpr Row kRows[] = {
#define XAB_SCHEMA_ROW_(id, name, flags, rck, b, e) {name, flags, rck, b, e},
    XAB_CALLS(XAB_SCHEMA_ROW_)
#undef XAB_SCHEMA_ROW_
    {"abmon.start", 0, 'i', "", "version:i batch:i flush_ms:i"},
    {"task.exit", 0, 'i', "", "how:s"},
    {"abmon.lost", 0, 'i', "", "n:i messages:i"},
    {"abmon.bad", 0, 'i', "", "reason:s n:i"},
    {"abmon.stop", 0, 'i', "", "events:i tasks:i bad:i"},
    // Relays and hosts
    {"relay.start", 0, 'i', "", "host:s"},
    {"relay.batch", 0, 'i', "", "host:s events:i bytes:i"},
    {"relay.stop", 0, 'i', "", "host:s events:i tasks:i bad:i"},
    {"host.delete", 0, 'i', "", "host:s tasks:i how:s"},
    {"program.exit", 0, 'i', "", "tid:t status:i signal:i"},
    // Samples
    {"sample", 0, 'i', "", "tid:t cpu_ms:i runnable_ms:i state:s"},
    {"host.load", 0, 'i', "", "host:s cpus:i load_milli:i busy_permille:i"},
    {"other", 0, 'i', "", "name:s"},
};
static_assert(std::size(kRows) == static_cast<std::size_t>(kKindCount));

// Keys that are not slots: the result, and an importer's task instance.
inline constexpr std::string_view kExtraKeys[] = {"rc", "instance"};

struct SlotList {
  std::array<SlotSpec, kMaxSlots> items{};
  std::uint8_t size = 0;
  std::uint8_t refMask = 0;  // bit i: slot i is a String or a List (held by reference)
  bool ok = true;  // false: a malformed item, an unknown type, > kMaxSlots
};

constexpr Spelling spellingOf(std::string_view key, SlotType type) {
  switch (type) {
    case SlotType::Tid: return key == "parent" ? Spelling::Parent : Spelling::Tid;
    case SlotType::String: return Spelling::String;
    case SlotType::DataType: return Spelling::DataType;
    case SlotType::List: return Spelling::List;
    case SlotType::Int: break;
  }
  return key == "tag" ? Spelling::Tag : key == "lang" ? Spelling::Lang : Spelling::Int;
}

// "key:t key:i" -> slots.  Strict: every item is key ':' one known letter.
constexpr SlotList parseSlots(std::string_view text) {
  SlotList out;
  while (!text.empty()) {
    auto space = text.find(' ');
    auto item = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    if (item.empty()) continue;
    auto colon = item.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 2 != item.size()) {
      out.ok = false;
      return out;
    }
    char code = item[colon + 1];
    if (code != 't' && code != 'i' && code != 's' && code != 'y' && code != 'l') {
      out.ok = false;
      return out;
    }
    if (out.size == kMaxSlots) {
      out.ok = false;
      return out;
    }
    auto key = item.substr(0, colon);
    auto type = static_cast<SlotType>(code);
    if (type == SlotType::String || type == SlotType::List)
      out.refMask = static_cast<std::uint8_t>(out.refMask | 1u << out.size);
    out.items[out.size++] = SlotSpec{key, type, spellingOf(key, type)};
  }
  return out;
}

using SlotTable = std::array<std::array<SlotList, 2>, kKindCount>;  // [kind][phase]

constexpr SlotTable buildSlots() {
  SlotTable t{};
  for (int k = 0; k < kKindCount; ++k) {
    t[k][0] = parseSlots(kRows[k].end);
    t[k][1] = parseSlots(kRows[k].begin);
  }
  return t;
}

inline constexpr SlotTable kSlots = buildSlots();

constexpr bool allRowsParse() {
  for (const auto& kind : kSlots)
    for (const auto& phase : kind)
      if (!phase.ok) return false;
  return true;
}
static_assert(allRowsParse(), "a slot string in xab/events.h (or the schema's own rows) is malformed");

// The field keys: every slot key of every row, first appearance first,
// then kExtraKeys.
template <class F>
constexpr void forEachKey(F&& f) {
  for (const auto& kind : kSlots)
    for (const auto& phase : kind)
      for (std::size_t i = 0; i < phase.size; ++i) f(phase.items[i].key);
  for (auto k : kExtraKeys) f(k);
}

constexpr std::size_t countKeys() {
  std::array<std::string_view, 256> seen{};
  std::size_t n = 0;
  forEachKey([&](std::string_view k) {
    for (std::size_t i = 0; i < n; ++i)
      if (seen[i] == k) return;
    seen[n++] = k;
  });
  return n;
}

inline constexpr std::size_t kKeyCount = countKeys();

constexpr std::array<std::string_view, kKeyCount> collectKeys() {
  std::array<std::string_view, kKeyCount> keys{};
  std::size_t n = 0;
  forEachKey([&](std::string_view k) {
    for (std::size_t i = 0; i < n; ++i)
      if (keys[i] == k) return;
    keys[n++] = k;
  });
  return keys;
}

}  // namespace schema

// Every field key a record may carry, generated from the rows.
inline constexpr std::array<std::string_view, schema::kKeyCount> kFieldKeys = schema::collectKeys();

// The index of a key in kFieldKeys; a key no row has does not compile.
consteval std::uint8_t fieldKey(std::string_view key) {
  for (std::size_t i = 0; i < kFieldKeys.size(); ++i)
    if (kFieldKeys[i] == key) return static_cast<std::uint8_t>(i);
  throw "not a field key of the schema";  // not a constant expression: a compile error
}

// Names for the keys the analyses use (no string compare per event).  Each
// is an index into kFieldKeys, so Key and the schema cannot disagree.
enum class Key : std::uint8_t {
  Dst = fieldKey("dst"), Src = fieldKey("src"), Tag = fieldKey("tag"), Bytes = fieldKey("bytes"),
  Serial = fieldKey("serial"), Group = fieldKey("group"), Count = fieldKey("count"),
  Type = fieldKey("type"), N = fieldKey("n"), Stride = fieldKey("stride"), Root = fieldKey("root"),
  Op = fieldKey("op"), Tid = fieldKey("tid"), Tids = fieldKey("tids"), Inst = fieldKey("inst"),
  Mid = fieldKey("mid"), Enc = fieldKey("enc"), File = fieldKey("file"), Where = fieldKey("where"),
  Flags = fieldKey("flags"), Timeout = fieldKey("timeout"), Text = fieldKey("text"),
  Name = fieldKey("name"), Host = fieldKey("host"), Parent = fieldKey("parent"),
  Lang = fieldKey("lang"), Pid = fieldKey("pid"), How = fieldKey("how"),
  Reason = fieldKey("reason"), Messages = fieldKey("messages"), Version = fieldKey("version"),
  Batch = fieldKey("batch"), FlushMs = fieldKey("flush_ms"), Events = fieldKey("events"),
  Tasks = fieldKey("tasks"), Bad = fieldKey("bad"), Rc = fieldKey("rc"),
  Instance = fieldKey("instance"), Status = fieldKey("status"), Signal = fieldKey("signal"),
  Stream = fieldKey("stream"), Ref = fieldKey("ref"), RefS = fieldKey("ref_s"), RefNs = fieldKey("ref_ns"),
  TurnNs = fieldKey("turn_ns"), RttNs = fieldKey("rtt_ns"), ClockPhase = fieldKey("phase"),
  Omit = fieldKey("omit"),
  CpuMs = fieldKey("cpu_ms"), RunnableMs = fieldKey("runnable_ms"), State = fieldKey("state"),
  Cpus = fieldKey("cpus"), LoadMilli = fieldKey("load_milli"), BusyPermille = fieldKey("busy_permille"),
};
inline constexpr int kKeyCount = static_cast<int>(schema::kKeyCount);

constexpr std::string_view kindName(Kind k) {
  auto i = static_cast<std::size_t>(k);
  return schema::kRows[i < std::size(schema::kRows) ? i : std::size(schema::kRows) - 1].name;
}
unsigned kindFlags(Kind k);                // XAB_F_* bits
char kindRcType(Kind k);                   // 'i' or 't'
Kind kindFromName(std::string_view name);  // Kind::OTHER when unknown (or "other")
// Inline: the reader and the builder ask for every record.
inline std::span<const SlotSpec> kindSlots(Kind k, Phase p) {
  auto i = static_cast<std::size_t>(k);
  const auto& list = schema::kSlots[i < schema::kSlots.size() ? i : static_cast<std::size_t>(Kind::OTHER)]
                                   [p == Phase::Begin ? 1 : 0];
  return {list.items.data(), list.size};
}
namespace schema {
// [kind][phase][key] -> slot index or -1 (schema.cpp computes it at
// compile time; declared here so slotOf is inline without every file
// that includes this header computing it again).
using KeySlotTable = std::array<std::array<std::array<std::int8_t, kKeyCount>, 2>, kKindCount>;
extern const KeySlotTable kKeySlots;
}  // namespace schema
// The slot index of a key in a kind's record, or -1.
inline int slotOf(Kind k, Phase p, Key key) {
  auto ki = static_cast<std::size_t>(key);
  if (ki >= static_cast<std::size_t>(kKeyCount)) return -1;
  auto i = static_cast<std::size_t>(k);
  if (i >= static_cast<std::size_t>(kKindCount)) i = static_cast<std::size_t>(Kind::OTHER);
  return schema::kKeySlots[i][p == Phase::Begin ? 1 : 0][ki];
}
int slotOf(Kind k, Phase p, std::string_view key);
constexpr std::string_view keyName(Key key) {
  auto i = static_cast<std::size_t>(key);
  return i < kFieldKeys.size() ? kFieldKeys[i] : std::string_view{};
}

// The samplers' records (abmon's and each relay's clock-driven samples of
// their host's tasks and of the host itself).
inline bool isSampleRecord(Kind k) { return k == Kind::SAMPLE || k == Kind::HOST_LOAD; }

// abmon's and its relays' own records: about the monitor, not a task.
inline bool isMonitorRecord(Kind k) {
  return k == Kind::ABMON_START || k == Kind::ABMON_STOP || k == Kind::RELAY_START ||
         k == Kind::RELAY_BATCH || k == Kind::RELAY_STOP || k == Kind::HOST_DELETE || k == Kind::PROGRAM_EXIT ||
         isSampleRecord(k);
}

// libab's own records: what it measured of itself (clock exchanges, its
// cost, its sends to abmon), not calls of the program.
inline bool isLibabRecord(Kind k) { return k == Kind::CLOCK || k == Kind::COST || k == Kind::FLUSH; }

inline bool isBlocking(Kind k) { return kindFlags(k) & XAB_F_BLOCKING; }
inline bool isMsgOut(Kind k) { return kindFlags(k) & XAB_F_MSG_OUT; }
inline bool isMsgIn(Kind k) { return kindFlags(k) & XAB_F_MSG_IN; }
inline bool isPack(Kind k) { return kindFlags(k) & XAB_F_PACK; }
inline bool isUnpack(Kind k) { return kindFlags(k) & XAB_F_UNPACK; }
inline bool isCollective(Kind k) {
  return k == Kind::REDUCE || k == Kind::GATHER || k == Kind::SCATTER;
}

// A pvmd's tid: PVM's pvmd bit (TIDPVMD, 0x80000000), a host part, and a
// local part of 0.  pvmd is the source of PVM's notify messages (a task's
// exit, a host added or deleted).  As an int32 it is negative, yet it is
// no error code: those are small, with a local part that is not 0.
constexpr bool isPvmdTid(std::int32_t tid) {
  auto u = static_cast<std::uint32_t>(tid);
  return (u & 0x80000000u) != 0 && (u & 0x3ffffu) == 0;
}

// PVM data type codes as PVM numbers them (PVM_STR = 0 ... PVM_ULONG = 11).
inline constexpr std::string_view kDataTypeNames[] = {
    "str", "byte", "short", "int", "float", "cplx", "double", "dcplx", "long", "ushort", "uint", "ulong"};
std::string_view dataTypeName(std::int32_t code);  // "int"; "" when unknown

// PVM's error codes by name, as pvm3.h defines them (PvmBadParam = -2 ...
// PvmIPLoopback = -36): the one table every reader names an rc < 0 by.
inline constexpr std::string_view kPvmErrorNames[] = {
    "PvmOk",        "",              "PvmBadParam",   "PvmMismatch",   "PvmOverflow",  "PvmNoData",
    "PvmNoHost",    "PvmNoFile",     "PvmDenied",     "",              "PvmNoMem",     "",
    "PvmBadMsg",    "",              "PvmSysErr",     "PvmNoBuf",      "PvmNoSuchBuf", "PvmNullGroup",
    "PvmDupGroup",  "PvmNoGroup",    "PvmNotInGroup", "PvmNoInst",     "PvmHostFail",  "PvmNoParent",
    "PvmNotImpl",   "PvmDSysErr",    "PvmBadVersion", "PvmOutOfRes",   "PvmDupHost",   "PvmCantStart",
    "PvmAlready",   "PvmNoTask",     "PvmNotFound",   "PvmExists",     "PvmHostrNMstr", "PvmParentNotSet",
    "PvmIPLoopback"};
// "PvmNoBuf" for -15; "" for a code PVM does not define.
constexpr std::string_view pvmErrorName(std::int32_t code) {
  return code <= 0 && -static_cast<std::int64_t>(code) < static_cast<std::int64_t>(std::size(kPvmErrorNames))
             ? kPvmErrorNames[-code]
             : std::string_view{};
}

}  // namespace xab
