// call_table.h -- the trace-format schema's call rows, ready for abmon's
// formatter: each slot's " key=" prefix and each call's names, spelled once
// by the trace format (xab/traceformat/write.h, kindText), so formatting a
// record appends without looking anything up.
//
// abmon formats every record from this table, so a new row in XAB_CALLS is
// formatted without touching abmon.
#ifndef XAB_ABMON_CALL_TABLE_H
#define XAB_ABMON_CALL_TABLE_H

#include <xab/events.h>
#include <xab/traceformat/write.h>

#include <cstddef>
#include <span>

namespace xab::abmon {

// How one a[] slot is printed: the schema's spelling (Tag, Parent and Lang
// refine Int and Tid by key name).
using SlotKind = xab::Spelling;
using Slot = text::SlotText;
using CallInfo = text::KindText;

// The rows of XAB_CALLS, indexed by enum xab_event_kind.
class CallTable {
 public:
  std::size_t size() const { return XAB_EV_COUNT_; }
  const CallInfo* find(unsigned kind) const { return kind < size() ? &kinds_[kind] : nullptr; }

 private:
  std::span<const CallInfo> kinds_ = text::kindTexts();
};

// The one table.
const CallTable& callTable();

}  // namespace xab::abmon

#endif
