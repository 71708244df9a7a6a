#include "call_table.h"

#include <xab/events.h>

namespace xab::abmon {
namespace {

std::vector<Slot> slotsOf(Kind kind, Phase phase) {
  std::vector<Slot> out;
  for (const SlotSpec& s : kindSlots(kind, phase))
    out.push_back({" " + std::string(s.key) + "=", s.spelling});
  return out;
}

}  // namespace

CallTable::CallTable() {
  calls_.reserve(XAB_EV_COUNT_);
  for (unsigned k = 0; k < XAB_EV_COUNT_; ++k) {
    auto kind = static_cast<Kind>(k);
    CallInfo info;
    info.name = kindName(kind);
    info.beginName = info.name + ".begin";
    info.rcIsTid = kindRcType(kind) == 't';
    info.beginSlots = slotsOf(kind, Phase::Begin);
    info.endSlots = slotsOf(kind, Phase::End);
    calls_.push_back(std::move(info));
  }
}

const CallTable& callTable() {
  static const CallTable table;
  return table;
}

}  // namespace xab::abmon
