#include <xab/translators/calls.h>

namespace xab::tr {

std::string_view callName(const Trace& trace, const Event& e) {
  if (e.kind == Kind::OTHER) return trace.str(e.a[0]);
  return kindName(e.kind);
}

}  // namespace xab::tr
