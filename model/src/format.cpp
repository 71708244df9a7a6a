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
