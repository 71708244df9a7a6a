// call_table.h -- the trace-format schema's call rows, ready for abmon's
// formatter: each slot's " key=" prefix built once, so formatting a record
// appends without looking anything up.
//
// abmon formats every record from this table, so a new row in XAB_CALLS is
// formatted without touching abmon.  The rows' slot strings are parsed by
// the trace-format library (xab/traceformat/schema.h), once, at compile time.
#ifndef XAB_ABMON_CALL_TABLE_H
#define XAB_ABMON_CALL_TABLE_H

#include <xab/traceformat/schema.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xab::abmon {

// How one a[] slot is printed: the schema's spelling (Tag, Parent and Lang
// refine Int and Tid by key name).
using SlotKind = xab::Spelling;

struct Slot {
  std::string prefix;  // " key=" -- ready to append
  SlotKind kind;
};

struct CallInfo {
  std::string name;        // "recv"
  std::string beginName;  // "recv.begin"
  bool rcIsTid = false;
  std::vector<Slot> beginSlots;
  std::vector<Slot> endSlots;
};

// The table of all XAB_CALLS rows, indexed by enum xab_event_kind.
class CallTable {
 public:
  CallTable();
  std::size_t size() const { return calls_.size(); }
  const CallInfo* find(unsigned kind) const {
    return kind < calls_.size() ? &calls_[kind] : nullptr;
  }

 private:
  std::vector<CallInfo> calls_;
};

// The one table, built on first use.
const CallTable& callTable();

}  // namespace xab::abmon

#endif
