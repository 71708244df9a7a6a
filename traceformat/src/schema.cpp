// The schema's lookups: by name (every record), by key (the analyses).
#include <xab/traceformat/schema.h>

namespace xab {
namespace {

int index(Kind k) {
  int i = static_cast<int>(k);
  return i >= 0 && i < kKindCount ? i : static_cast<int>(Kind::OTHER);
}

constexpr schema::KeySlotTable buildKeySlots() {
  schema::KeySlotTable t{};
  for (int k = 0; k < kKindCount; ++k)
    for (int p = 0; p < 2; ++p) {
      t[k][p].fill(-1);
      const auto& slots = schema::kSlots[k][p];
      for (int key = 0; key < kKeyCount; ++key)
        for (std::size_t s = 0; s < slots.size; ++s)
          if (slots.items[s].key == kFieldKeys[key]) t[k][p][key] = static_cast<std::int8_t>(s);
    }
  return t;
}

// Open addressing over a cheap hash of the name: the reader looks up every
// record's name, and std::hash over short strings is the slow part.
class NameIndex {
 public:
  NameIndex() {
    // A record literally named "other" is still unknown.
    for (int k = 0; k < kKindCount; ++k)
      if (static_cast<Kind>(k) != Kind::OTHER) add(schema::kRows[k].name, static_cast<Kind>(k));
  }
  Kind find(std::string_view name) const {
    if (name.empty()) return Kind::OTHER;
    for (std::size_t i = hash(name);; i = (i + 1) & kMask) {
      if (!slots_[i].name.data()) return Kind::OTHER;
      if (slots_[i].name == name) return slots_[i].kind;
    }
  }

 private:
  void add(std::string_view name, Kind k) {
    std::size_t i = hash(name);
    while (slots_[i].name.data()) i = (i + 1) & kMask;
    slots_[i] = {name, k};
  }
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

}  // namespace

// Constant-initialized: no code runs for it at start.
constexpr schema::KeySlotTable schema::kKeySlots = buildKeySlots();

unsigned kindFlags(Kind k) { return schema::kRows[index(k)].flags; }
char kindRcType(Kind k) { return schema::kRows[index(k)].rc; }

Kind kindFromName(std::string_view name) {
  static const NameIndex byName;
  return byName.find(name);
}


int slotOf(Kind k, Phase p, std::string_view key) {
  auto s = kindSlots(k, p);
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i].key == key) return static_cast<int>(i);
  return -1;
}

std::string_view dataTypeName(std::int32_t code) {
  return code >= 0 && code < static_cast<std::int32_t>(std::size(kDataTypeNames)) ? kDataTypeNames[code]
                                                                                 : std::string_view{};
}

}  // namespace xab
