// One line of the trace text into the builder.  Hand-written and
// allocation-free on the usual path: fields are string_views into the
// caller's buffer; only new strings are copied (once, when interned).
#include "builder.h"
#include "values.h"

#include <xab/model/reader.h>

#include <cstring>

namespace xab {
namespace {

// Splits at single spaces.  Returns false when nothing is left.
bool nextField(std::string_view& rest, std::string_view& field) {
  if (rest.empty()) return false;
  // Fields are short: a plain loop beats a memchr call here.
  std::size_t i = 0, n = rest.size();
  const char* p = rest.data();
  while (i < n && p[i] != ' ') ++i;
  field = std::string_view(p, i);
  rest = i < n ? std::string_view(p + i + 1, n - i - 1) : std::string_view{};
  return true;
}

std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (char c : s.substr(0, kMax)) out.push_back(c >= 32 && c < 127 ? c : '?');
  if (s.size() > kMax) out += "...";
  return out + "'";
}

constexpr std::string_view kBegin = ".begin";

}  // namespace

std::string LineParser::parse(std::string_view line, bool& fatal) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return {};
  if (line[0] == '#') {
    if (line.starts_with("#xab-trace") && !b_.header().present) return header(line, fatal);
    return {};
  }
  return record(line);
}

std::string LineParser::header(std::string_view line, bool& fatal) {
  std::string_view rest = line, f;
  nextField(rest, f);  // "#xab-trace"
  if (f != "#xab-trace") return {};  // "#xab-traceX": a comment
  std::int32_t version = 0;
  if (!nextField(rest, f) || !text::parseInt(f, version) || version < 1)
    return "header: bad format version " + quoted(f);
  if (version > kTraceFormatVersion) {
    fatal = true;
    return "trace format version " + std::to_string(version) +
           " is newer than this reader understands (version " +
           std::to_string(kTraceFormatVersion) + "); use a newer xab";
  }
  TraceHeader& h = b_.header();
  h.present = true;
  h.version = version;
  std::string value;
  while (nextField(rest, f)) {
    auto eq = f.find('=');
    if (eq == std::string_view::npos) continue;
    auto key = f.substr(0, eq), val = f.substr(eq + 1);
    // A bad value in the header costs only that value.
    if (key == "abmon") text::parseTid(val, h.abmon);
    else if (key == "pid") text::parseInt(val, h.pid);
    else if (key == "start") text::parseTime(val, h.start);
    else if (key == "host" && text::unescape(val, value)) h.host = value;
  }
  return {};
}

// The first four fields: both times, the tid and the event name.
std::string LineParser::head(std::string_view& rest, Event& e, Tid& tid) {
  std::string_view f;
  if (!nextField(rest, f) || !text::parseTime(f, e.recvTime)) return "bad receive time " + quoted(f);
  if (!nextField(rest, f) || !text::parseTime(f, e.time)) return "bad task time " + quoted(f);
  if (!nextField(rest, f) || !text::parseTid(f, tid)) return "bad tid " + quoted(f);
  std::string_view name;
  if (!nextField(rest, name) || name.empty()) return "missing event name";
  e.phase = Phase::End;
  std::string_view base = name;
  if (base.ends_with(kBegin)) {
    base.remove_suffix(kBegin.size());
    e.phase = Phase::Begin;
  }
  e.kind = kindFromName(base);
  if (e.kind != Kind::OTHER) return {};
  // Forward compatible: keep the full name, ignore its fields.
  e.phase = Phase::End;
  if (!text::unescape(name, scratch_)) return "bad event name " + quoted(name);
  e.a[0] = b_.intern(scratch_);
  e.present = 1;
  rest = {};
  return {};
}

bool LineParser::slotValue(SlotType type, std::string_view val, std::int32_t& v) {
  switch (type) {
    case SlotType::Tid: return text::parseTid(val, v);
    case SlotType::DataType: return text::parseDataType(val, v);
    case SlotType::String:
      if (!text::unescape(val, scratch_)) return false;
      v = b_.intern(scratch_);
      return true;
    case SlotType::List:
      if (!text::parseTidList(val, listScratch_)) return false;
      v = b_.addList(listScratch_);
      return true;
    case SlotType::Int:
    default: return text::parseInt(val, v);
  }
}

// The task's identity rides on its first record.  Returns false for a bad
// value; a key that is not an identity key is ignored (a newer writer's).
bool LineParser::identityField(std::string_view key, std::string_view val, Identity& id) {
  if (key == "name" || key == "host") {
    if (!text::unescape(val, scratch_)) return false;
    (key == "name" ? id.name : id.host) = b_.intern(scratch_);
    return true;
  }
  if (key == "parent") return text::parseTid(val, id.parent) && (id.hasParent = true);
  if (key == "lang") return text::parseLang(val, id.lang) && (id.hasLang = true);
  if (key == "pid") return text::parseInt(val, id.pid) && (id.hasPid = true);
  if (key == "instance") return text::parseInt(val, id.instance) && id.instance >= 0;
  return true;
}

std::string LineParser::fields(std::string_view rest, Event& e, Identity& id) {
  auto slots = kindSlots(e.kind, e.phase);
  std::string_view f;
  while (nextField(rest, f)) {
    if (f.empty()) continue;  // tolerate a doubled space
    auto eq = f.find('=');
    if (eq == std::string_view::npos || eq == 0) return "field without key=value: " + quoted(f);
    std::string_view key = f.substr(0, eq), val = f.substr(eq + 1);
    bool ok = true;
    if (key == "rc") {
      ok = text::parseTid(val, e.rc);
      e.present |= 0x80;
    } else {
      int s = -1;
      for (std::size_t i = 0; i < slots.size() && i < kMaxSlots; ++i)
        if (slots[i].key == key) { s = static_cast<int>(i); break; }
      if (s >= 0) {
        // info's lang slot holds c/fortran as abmon writes it (an int otherwise).
        ok = key == "lang" ? text::parseLang(val, e.a[s])
                           : slotValue(slots[static_cast<std::size_t>(s)].type, val, e.a[s]);
        e.present |= static_cast<std::uint8_t>(1u << s);
      } else {
        ok = identityField(key, val, id);
      }
    }
    if (!ok) return "bad value for " + std::string(key) + ": " + quoted(val);
  }
  return {};
}

std::string LineParser::record(std::string_view line) {
  std::string_view rest = line;
  Event e{};
  Tid tid = 0;
  Identity id;
  if (std::string why = head(rest, e, tid); !why.empty()) return why;
  if (std::string why = fields(rest, e, id); !why.empty()) return why;
  e.seq = b_.nextSeq();
  if (e.kind == Kind::ABMON_START || e.kind == Kind::ABMON_STOP) {
    b_.appendMonitor(e);
    return {};
  }
  TaskIndex t = b_.taskFor(tid);
  TaskInfo& info = b_.info(t);
  if (id.name >= 0) b_.setName(t, id.name, id.instance);
  if (id.host >= 0) info.host = id.host;
  if (id.hasParent) info.parent = id.parent;
  if (id.hasLang) info.lang = id.lang;
  if (id.hasPid) info.pid = id.pid;
  b_.append(t, e);
  return {};
}

}  // namespace xab
