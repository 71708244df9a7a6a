// call_table.h -- events.h's slot strings, parsed once into a table.
//
// abmon formats every record from this table, so a new row in XAB_CALLS is
// formatted without touching abmon.
#ifndef XAB_ABMON_CALL_TABLE_H
#define XAB_ABMON_CALL_TABLE_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xab::abmon {

// How one a[] slot is printed.  Tag, Parent and Lang are refinements that
// events.h expresses only by key name ("tag:i", INFO's "parent:t",
// "lang:i"); the trace format gives them their own spelling.
enum class SlotKind : std::uint8_t {
  Int,     // i  decimal
  Tid,     // t  t<hex>, -1 any, other negatives decimal
  String,  // s  string id -> escaped text
  Type,    // y  PVM data type name
  List,    // l  a[] holds the count; tids come in XAB_EV_TIDS records
  Tag,     // i with key "tag": -1 is "any"
  Parent,  // t with key "parent": negative is "none"
  Lang,    // i with key "lang": c / fortran
};

struct Slot {
  std::string prefix;  // " key=" -- ready to append
  SlotKind kind;
};

struct CallInfo {
  std::string name;        // "recv"
  std::string begin_name;  // "recv.begin"
  bool rc_is_tid = false;
  std::vector<Slot> begin_slots;
  std::vector<Slot> end_slots;
};

// Parses "key:kind key:kind" into slots.  Returns false (and leaves a
// reason in *error) when an item is malformed or names an unknown kind,
// so a typo in events.h is caught by the unit tests, not by users.
bool parse_slots(std::string_view text, std::vector<Slot>& out, std::string* error);

// The table of all XAB_CALLS rows, indexed by enum xab_event_kind.
class CallTable {
 public:
  CallTable();
  // Empty when every row parsed; otherwise what was wrong.
  const std::string& error() const { return error_; }
  std::size_t size() const { return calls_.size(); }
  const CallInfo* find(unsigned kind) const {
    return kind < calls_.size() ? &calls_[kind] : nullptr;
  }

 private:
  std::vector<CallInfo> calls_;
  std::string error_;
};

// The one table, built on first use.
const CallTable& call_table();

}  // namespace xab::abmon

#endif
