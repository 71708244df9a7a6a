// Events back to trace text (docs/trace-format.md), through the
// trace-format library's writer.
#include <xab/model/builder.h>
#include <xab/model/format.h>
#include <xab/traceformat/write.h>

namespace xab {

std::string formatTime(TimeNs t) {
  std::string out;
  text::appendTime(out, t);
  return out;
}

std::string formatSlot(const Trace& trace, const Event& e, int slot) {
  auto slots = kindSlots(e.kind, e.phase);
  if (slot < 0 || static_cast<std::size_t>(slot) >= slots.size()) return {};
  std::int32_t v = e.a[slot];
  std::string out;
  switch (Spelling sp = slots[static_cast<std::size_t>(slot)].spelling) {
    case Spelling::String: text::appendEscaped(out, trace.str(v)); break;
    case Spelling::List: text::appendTidList(out, trace.list(v)); break;
    default: text::appendValue(out, sp, v);
  }
  return out;
}

std::optional<std::int32_t> fieldOf(const Event& e, std::string_view key) {
  if (key == "rc") return e.hasRc() ? std::optional(e.rc) : std::nullopt;
  int s = slotOf(e.kind, e.phase, key);
  return e.has(s) ? std::optional(e.a[s]) : std::nullopt;
}

std::string formatRecord(const Trace& trace, TaskIndex task, std::uint32_t index) {
  std::string out;
  text::appendRecord(out, toRecord(trace, task, index, index == 0));
  return out;
}

}  // namespace xab
