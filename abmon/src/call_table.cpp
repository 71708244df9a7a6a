#include "call_table.h"

#include <xab/events.h>

namespace xab::abmon {
namespace {

struct RawCall {
  const char* name;
  char rc_kind;
  const char* begin_slots;
  const char* end_slots;
};

constexpr RawCall kRawCalls[] = {
#define XAB_ROW_(id, name, flags, rck, b, e) {name, rck, b, e},
    XAB_CALLS(XAB_ROW_)
#undef XAB_ROW_
};
static_assert(std::size(kRawCalls) == XAB_EV_COUNT_, "one row per event kind");

bool slot_kind(std::string_view key, char code, SlotKind& kind) {
  switch (code) {
    case 'i':
      kind = key == "tag" ? SlotKind::Tag : key == "lang" ? SlotKind::Lang : SlotKind::Int;
      return true;
    case 't':
      kind = key == "parent" ? SlotKind::Parent : SlotKind::Tid;
      return true;
    case 's': kind = SlotKind::String; return true;
    case 'y': kind = SlotKind::Type; return true;
    case 'l': kind = SlotKind::List; return true;
    default: return false;
  }
}

}  // namespace

bool parse_slots(std::string_view text, std::vector<Slot>& out, std::string* error) {
  out.clear();
  while (!text.empty()) {
    auto space = text.find(' ');
    auto item = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    if (item.empty()) continue;
    auto colon = item.find(':');
    SlotKind kind{};
    if (colon == std::string_view::npos || colon == 0 || colon + 2 != item.size() ||
        !slot_kind(item.substr(0, colon), item[colon + 1], kind)) {
      if (error) *error = "bad slot \"" + std::string(item) + "\"";
      return false;
    }
    out.push_back({" " + std::string(item.substr(0, colon)) + "=", kind});
  }
  if (out.size() > 6) {
    if (error) *error = "more than 6 slots";
    return false;
  }
  return true;
}

CallTable::CallTable() {
  calls_.reserve(std::size(kRawCalls));
  for (const RawCall& raw : kRawCalls) {
    CallInfo info;
    info.name = raw.name;
    info.begin_name = info.name + ".begin";
    info.rc_is_tid = raw.rc_kind == 't';
    std::string why;
    if (!parse_slots(raw.begin_slots, info.begin_slots, &why) ||
        !parse_slots(raw.end_slots, info.end_slots, &why)) {
      if (error_.empty()) error_ = info.name + ": " + why;
    }
    calls_.push_back(std::move(info));
  }
}

const CallTable& call_table() {
  static const CallTable table;
  return table;
}

}  // namespace xab::abmon
