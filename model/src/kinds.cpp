// The kind table: names, flags and slot lists, parsed once from the
// XAB_CALLS strings so events.h stays the only place that lists them.
#include <xab/model/kinds.h>

#include <array>
#include <string>
#include <unordered_map>
#include <vector>

namespace xab {
namespace {

struct KindRow {
  std::string_view name;
  unsigned flags;
  char rc;
  std::string_view begin;
  std::string_view end;
};

constexpr KindRow kRows[] = {
#define XAB_MODEL_ROW_(id, name, flags, rck, b, e) {name, flags, rck, b, e},
    XAB_CALLS(XAB_MODEL_ROW_)
#undef XAB_MODEL_ROW_
    {"abmon.start", 0, 'i', "", "version:i batch:i flush_ms:i"},
    {"task.exit", 0, 'i', "", "how:s"},
    {"abmon.lost", 0, 'i', "", "n:i messages:i"},
    {"abmon.bad", 0, 'i', "", "reason:s n:i"},
    {"abmon.stop", 0, 'i', "", "events:i tasks:i bad:i"},
    {"other", 0, 'i', "", "name:s"},
};
static_assert(std::size(kRows) == static_cast<std::size_t>(kKindCount));

constexpr std::string_view kKeyNames[] = {
    "dst", "src", "tag", "bytes", "serial", "group", "count", "type", "n", "stride", "root", "op",
    "tid", "tids", "inst", "mid", "enc", "file", "where", "flags", "timeout", "text", "name", "how",
    "reason", "messages"};
static_assert(std::size(kKeyNames) == static_cast<std::size_t>(Key::COUNT_));

constexpr int kKeyCount = static_cast<int>(Key::COUNT_);

// Open addressing over a cheap hash of the name: the reader looks up every
// record's name, and std::hash over short strings is the slow part.
class NameIndex {
 public:
  void add(std::string_view name, Kind k) {
    std::size_t i = hash(name);
    while (slots_[i].name.data()) i = (i + 1) & kMask;
    slots_[i] = {name, k};
  }
  Kind find(std::string_view name) const {
    if (name.empty()) return Kind::OTHER;
    for (std::size_t i = hash(name);; i = (i + 1) & kMask) {
      if (!slots_[i].name.data()) return Kind::OTHER;
      if (slots_[i].name == name) return slots_[i].kind;
    }
  }

 private:
  static constexpr std::size_t kSize = 512, kMask = kSize - 1;  // > 3x the kinds: short probes
  static std::size_t hash(std::string_view s) {
    std::size_t n = s.size();
    if (n == 0) return 0;
    auto c = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(s[i])); };
    return (n * 131 + c(0) * 31 + c(n / 2) * 17 + c(n - 1) * 7 + c(n > 2 ? 2 : 0)) & kMask;
  }
  struct Slot {
    std::string_view name;
    Kind kind = Kind::OTHER;
  };
  std::array<Slot, kSize> slots_{};
};

struct Tables {
  std::array<std::array<std::vector<SlotSpec>, 2>, kKindCount> slots;
  std::array<std::array<std::array<std::int8_t, kKeyCount>, 2>, kKindCount> keySlot{};
  NameIndex byName;

  static std::vector<SlotSpec> parse(std::string_view list) {
    std::vector<SlotSpec> out;
    while (!list.empty()) {
      auto sp = list.find(' ');
      auto item = list.substr(0, sp);
      list = sp == std::string_view::npos ? std::string_view{} : list.substr(sp + 1);
      auto colon = item.find(':');
      if (colon == std::string_view::npos || colon + 1 >= item.size()) continue;
      out.push_back({item.substr(0, colon), static_cast<SlotType>(item[colon + 1])});
    }
    return out;
  }

  Tables() {
    for (int k = 0; k < kKindCount; ++k) {
      slots[k][0] = parse(kRows[k].end);
      slots[k][1] = parse(kRows[k].begin);
      // A record literally named "other" is still unknown.
      if (static_cast<Kind>(k) != Kind::OTHER) byName.add(kRows[k].name, static_cast<Kind>(k));
      for (int p = 0; p < 2; ++p) {
        keySlot[k][p].fill(-1);
        for (int key = 0; key < kKeyCount; ++key)
          for (std::size_t s = 0; s < slots[k][p].size() && s < kMaxSlots; ++s)
            if (slots[k][p][s].key == kKeyNames[key]) keySlot[k][p][key] = static_cast<std::int8_t>(s);
      }
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

int index(Kind k) {
  int i = static_cast<int>(k);
  return i >= 0 && i < kKindCount ? i : static_cast<int>(Kind::OTHER);
}

}  // namespace

std::string_view kindName(Kind k) { return kRows[index(k)].name; }
unsigned kindFlags(Kind k) { return kRows[index(k)].flags; }
char kindRcType(Kind k) { return kRows[index(k)].rc; }

Kind kindFromName(std::string_view name) {
  return tables().byName.find(name);
}

std::span<const SlotSpec> kindSlots(Kind k, Phase p) {
  return tables().slots[index(k)][p == Phase::Begin ? 1 : 0];
}

int slotOf(Kind k, Phase p, Key key) {
  int ki = static_cast<int>(key);
  if (ki < 0 || ki >= kKeyCount) return -1;
  return tables().keySlot[index(k)][p == Phase::Begin ? 1 : 0][ki];
}

int slotOf(Kind k, Phase p, std::string_view key) {
  auto s = kindSlots(k, p);
  for (std::size_t i = 0; i < s.size() && i < kMaxSlots; ++i)
    if (s[i].key == key) return static_cast<int>(i);
  return -1;
}

std::string_view keyName(Key key) {
  int ki = static_cast<int>(key);
  return ki >= 0 && ki < kKeyCount ? kKeyNames[ki] : std::string_view{};
}

std::string_view dataTypeName(std::int32_t code) {
  static constexpr std::string_view names[] = {"str",  "byte",  "short", "int",    "float", "cplx",
                                               "double", "dcplx", "long", "ushort", "uint", "ulong"};
  return code >= 0 && code < static_cast<std::int32_t>(std::size(names)) ? names[code]
                                                                        : std::string_view{};
}

}  // namespace xab
