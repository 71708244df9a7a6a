// Events back to trace text (docs/trace-format.md).
#include <xab/model/format.h>

#include <cstdio>

namespace xab {
namespace {

std::string escape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c > 32 && c < 127 && c != '%' && c != '=') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

std::string tidList(std::span<const Tid> tids) {
  if (tids.empty()) return "-";
  std::string out;
  for (Tid t : tids) out += (out.empty() ? "" : ",") + formatTid(t);
  return out;
}

void identity(const Trace& trace, TaskIndex task, std::string& out) {
  const TaskInfo& i = trace.task(task);
  if (i.name >= 0) out += " name=" + escape(trace.str(i.name));
  if (i.host >= 0) out += " host=" + escape(trace.str(i.host));
  out += " parent=" + (i.parent == kNoTid ? std::string("none") : formatTid(i.parent));
  if (i.lang >= 0) out += i.lang == 0 ? " lang=c" : i.lang == 1 ? " lang=fortran" : " lang=" + std::to_string(i.lang);
  if (i.pid) out += " pid=" + std::to_string(i.pid);
}

}  // namespace

std::string formatTime(TimeNs t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%09lld", static_cast<long long>(t / 1'000'000'000),
                static_cast<long long>(t % 1'000'000'000));
  return buf;
}

std::string formatSlot(const Trace& trace, const Event& e, int slot) {
  auto slots = kindSlots(e.kind, e.phase);
  if (slot < 0 || static_cast<std::size_t>(slot) >= slots.size()) return {};
  std::int32_t v = e.a[slot];
  switch (slots[static_cast<std::size_t>(slot)].type) {
    case SlotType::Tid: return formatTid(v);
    case SlotType::String: return escape(trace.str(v));
    case SlotType::List: return tidList(trace.list(v));
    case SlotType::DataType: {
      auto n = dataTypeName(v);
      return n.empty() ? std::to_string(v) : std::string(n);
    }
    case SlotType::Int:
    default: return slots[static_cast<std::size_t>(slot)].key == "tag" ? formatTag(v) : std::to_string(v);
  }
}

std::optional<std::int32_t> fieldOf(const Event& e, std::string_view key) {
  if (key == "rc") return e.hasRc() ? std::optional(e.rc) : std::nullopt;
  int s = slotOf(e.kind, e.phase, key);
  return e.has(s) ? std::optional(e.a[s]) : std::nullopt;
}

std::string formatRecord(const Trace& trace, TaskIndex task, std::uint32_t index) {
  const Event& e = trace.events(task)[index];
  std::string out = formatTime(e.recvTime) + " " + formatTime(e.time) + " " + formatTid(trace.task(task).tid) + " ";
  if (e.kind == Kind::OTHER) return out + escape(trace.str(e.a[0]));
  out += kindName(e.kind);
  if (e.isBegin()) out += ".begin";
  auto slots = kindSlots(e.kind, e.phase);
  for (std::size_t s = 0; s < slots.size() && s < kMaxSlots; ++s)
    if (e.has(static_cast<int>(s)))
      out += " " + std::string(slots[s].key) + "=" + formatSlot(trace, e, static_cast<int>(s));
  if (e.hasRc()) out += " rc=" + (kindRcType(e.kind) == 't' ? formatTid(e.rc) : std::to_string(e.rc));
  if (index == 0) identity(trace, task, out);
  return out;
}

}  // namespace xab
