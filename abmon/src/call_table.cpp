#include "call_table.h"

namespace xab::abmon {

const CallTable& callTable() {
  static const CallTable table;
  return table;
}

}  // namespace xab::abmon
