// Records to text (TextWriter, appendRecord) and text to records
// (LineReader): the trace line's one writer and one reader.
#include <xab/traceformat/read.h>
#include <xab/traceformat/record.h>
#include <xab/traceformat/write.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace xab::text {
namespace {

std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (char c : s.substr(0, kMax)) out.push_back(c >= 32 && c < 127 ? c : '?');
  if (s.size() > kMax) out += "...";
  return out + "'";
}

}  // namespace

bool isHeaderLine(std::string_view line) {
  if (!line.starts_with(kHeaderTag)) return false;
  if (line.back() == '\r') line.remove_suffix(1);
  std::string_view f;
  nextField(line, f);
  return f == kHeaderTag;  // "#xab-traceX": a comment
}

void appendHeader(std::string& out, const Header& h) {
  out.append(kHeaderTag);
  out.push_back(' ');
  appendInt(out, h.version);
  if (h.hasAbmon) {
    appendKey(out, "abmon");
    appendTid(out, h.abmon);
  }
  appendKey(out, "host");
  appendEscaped(out, h.host);
  appendKey(out, "pid");
  appendInt(out, h.pid);
  appendKey(out, "start");
  appendTime(out, h.start);
}

namespace {

// The longest key: bounds what a numeric field takes in LineBuffer.
constexpr std::size_t longestKey() {
  std::size_t n = 0;
  for (auto k : kFieldKeys) n = k.size() > n ? k.size() : n;
  return n;
}
static_assert(longestKey() <= 16);

// Text of a bounded length padded to a fixed size, so that writing it is
// one fixed-size copy the compiler inlines (two vector moves) and not a
// call to memcpy: a record has eight or so such pieces, and a memcpy call
// for each cost picl2ab a fifth of its time.
struct Padded {
  char text[32] = {};
  std::uint8_t size = 0;
};

constexpr Padded padded(std::string_view a, std::string_view b = {}, std::string_view c = {}) {
  Padded p;
  for (std::string_view part : {a, b, c})
    for (char ch : part) {
      if (p.size + 1u >= sizeof p.text) throw "Padded: text too long";  // a compile-time error
      p.text[p.size++] = ch;
    }
  return p;
}

// " key=" of every field key, by Key index.
constexpr auto buildKeyText() {
  std::array<Padded, kKeyCount> t{};
  for (int k = 0; k < kKeyCount; ++k) t[k] = padded(" ", kFieldKeys[k], "=");
  return t;
}
constexpr auto kKeyText = buildKeyText();

// [kind][phase][slot] -> the slot's " key=".
constexpr auto buildSlotKeyText() {
  std::array<std::array<std::array<Padded, kMaxSlots>, 2>, kKindCount> t{};
  for (int k = 0; k < kKindCount; ++k)
    for (int p = 0; p < 2; ++p) {
      const auto& slots = schema::kSlots[k][p];
      for (std::size_t s = 0; s < slots.size; ++s)
        for (int key = 0; key < kKeyCount; ++key)
          if (kFieldKeys[key] == slots.items[s].key) t[k][p][s] = kKeyText[key];
    }
  return t;
}
constexpr auto kSlotKeyText = buildSlotKeyText();

// [kind][phase] -> "name" or "name.begin".
constexpr auto buildEventText() {
  std::array<std::array<Padded, 2>, kKindCount> t{};
  for (int k = 0; k < kKindCount; ++k) {
    t[k][0] = padded(schema::kRows[k].name);
    t[k][1] = padded(schema::kRows[k].name, ".begin");
  }
  return t;
}
constexpr auto kEventText = buildEventText();
constexpr Padded kRcText = padded(" rc=");

// A record's numeric part written straight into a stack buffer (no
// capacity check or memcpy call per value); strings and lists, whose
// length has no bound, go through the std::string writers.
class LineBuffer {
 public:
  explicit LineBuffer(std::string& out) : out_(out) {}
  ~LineBuffer() { flush(); }
  void flush() {
    out_.append(buf_, static_cast<std::size_t>(p_ - buf_));  // not (first, last): see write.cpp
    p_ = buf_;
  }
  // Room for one more field of at most 2 + 16 + kMaxTimeChars bytes.
  void room() {
    if (static_cast<std::size_t>(buf_ + sizeof buf_ - p_) < 64) flush();
  }
  void put(char c) { *p_++ = c; }
  void put(std::string_view s) {
    if (s.size() > static_cast<std::size_t>(buf_ + sizeof buf_ - p_)) {
      flush();
      out_.append(s);
      return;
    }
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  // Room for sizeof Padded::text: room() makes sure of 64 bytes.
  void put(const Padded& t) {
    std::memcpy(p_, t.text, sizeof t.text);
    p_ += t.size;
  }
  // A time written by putSeconds into a kMaxTimeChars buffer.
  void putTime(const char (&time)[kMaxTimeChars], std::size_t size) {
    std::memcpy(p_, time, kMaxTimeChars);
    p_ += size;
  }
  void key(std::string_view k) {
    room();
    *p_++ = ' ';
    std::memcpy(p_, k.data(), k.size());
    p_ += k.size();
    *p_++ = '=';
  }
  void time(std::int64_t ns) { p_ = putSeconds(p_, ns, 9); }
  void integer(std::int64_t v) { p_ = putInt(p_, v); }
  void tid(std::int32_t v) { p_ = putTid(p_, v); }
  void value(Spelling spelling, std::int32_t v) {
    switch (spelling) {
      case Spelling::Tid: return tid(v);
      case Spelling::Tag: return v == -1 ? put("any") : integer(v);
      case Spelling::DataType: {
        auto name = dataTypeName(v);
        return name.empty() ? integer(v) : put(name);
      }
      case Spelling::Parent: return v <= 0 ? put("none") : tid(v);
      case Spelling::Lang:
        return v == XAB_LANG_C ? put("c") : v == XAB_LANG_FORTRAN ? put("fortran") : integer(v);
      case Spelling::Int:
      case Spelling::String:
      case Spelling::List: break;
    }
    integer(v);
  }
  std::string& text() {  // for a writer of unbounded length: flushed first
    flush();
    return out_;
  }

 private:
  std::string& out_;
  char buf_[512];
  char* p_ = buf_;
};

}  // namespace

void appendRecord(std::string& out, const Record& r) {
  LineBuffer b(out);
  {
    char time[kMaxTimeChars];
    const auto size = static_cast<std::size_t>(putSeconds(time, r.recvTime, 9) - time);
    b.putTime(time, size);
    b.put(' ');
    if (r.time == r.recvTime)  // abmon's own records, importers: one clock
      b.putTime(time, size);
    else
      b.time(r.time);
  }
  b.put(' ');
  b.tid(r.tid);
  b.put(' ');
  if (r.kind == Kind::OTHER) {  // its name, and nothing of its fields
    appendEscaped(b.text(), r.str[0]);
    return;
  }
  const auto kind = std::min(static_cast<std::size_t>(r.kind), static_cast<std::size_t>(Kind::OTHER));
  const int phase = r.phase == Phase::Begin ? 1 : 0;
  b.put(kEventText[kind][phase]);
  auto slots = kindSlots(r.kind, r.phase);
  for (std::size_t s = 0; s < slots.size(); ++s) {
    if (!r.has(static_cast<int>(s))) continue;
    b.room();
    b.put(kSlotKeyText[kind][phase][s]);
    switch (slots[s].spelling) {
      case Spelling::String: appendEscaped(b.text(), r.str[s]); break;
      case Spelling::List: appendTidList(b.text(), r.list[s]); break;
      default: b.value(slots[s].spelling, r.a[s]);
    }
  }
  if (r.hasRc()) {
    b.room();
    b.put(kRcText);
    if (kindRcType(r.kind) == 't' && r.rc >= 0)
      b.tid(r.rc);  // a tid result: t<hex>; an error in decimal
    else
      b.integer(r.rc);
  }
  b.flush();
  const Identity& id = r.id;
  if (id.hasName) {
    appendKey(out, "name");
    appendEscaped(out, id.name);
  }
  if (id.instance >= 0) {
    appendKey(out, "instance");
    appendInt(out, id.instance);
  }
  if (id.hasHost) {
    appendKey(out, "host");
    appendEscaped(out, id.host);
  }
  if (id.hasParent) {
    appendKey(out, "parent");
    appendParent(out, id.parent);
  }
  if (id.hasLang) {
    appendKey(out, "lang");
    appendLang(out, id.lang);
  }
  if (id.hasPid) {
    appendKey(out, "pid");
    appendInt(out, id.pid);
  }
}

void TextWriter::endLine() {
  buf_.push_back('\n');
  if (buf_.size() >= kPiece) flush();
}

void TextWriter::flush() {
  if (buf_.empty()) return;
  put_(buf_);
  buf_.clear();
}

void TextWriter::header(const Header& h) {
  appendHeader(buf_, h);
  endLine();
}

void TextWriter::record(const Record& r) {
  appendRecord(buf_, r);
  endLine();
}

void TextWriter::comment(std::string_view text) {
  buf_.append("# ");
  buf_.append(text);
  endLine();
}

LineReader::Line LineReader::readHashLine(std::string_view line, bool wantHeader, std::string& error,
                                          bool& fatal) {
  if (!wantHeader || !isHeaderLine(line)) return Line::Skip;
  std::string_view rest = line, f;
  nextField(rest, f);
  error = readHeader(rest, fatal);
  return Line::Header;
}

std::string LineReader::readHeader(std::string_view rest, bool& fatal) {
  std::string_view f;
  std::int32_t version = 0;
  if (!nextField(rest, f) || !parseInt(f, version) || version < 1)
    return "header: bad format version " + quoted(f);
  if (version > kTraceFormatVersion) {
    fatal = true;
    return "trace format version " + std::to_string(version) +
           " is newer than this reader understands (version " +
           std::to_string(kTraceFormatVersion) + "); use a newer xab";
  }
  header_ = Header{};
  header_.version = version;
  headerHost_.clear();
  while (nextField(rest, f)) {
    auto eq = f.find('=');
    if (eq == std::string_view::npos) continue;
    auto key = f.substr(0, eq), val = f.substr(eq + 1);
    // A bad value in the header costs only that value.
    if (key == "abmon") header_.hasAbmon = parseTid(val, header_.abmon);
    else if (key == "pid") parseInt(val, header_.pid);
    else if (key == "start") parseTime(val, header_.start);
    else if (key == "host") {
      std::string value;
      if (unescape(val, value)) headerHost_ = value;
    }
  }
  header_.host = headerHost_;
  return {};
}

// The text of an escaped value: a view of the line itself when it has no
// escape (the usual case), else unescaped into scratch.
std::string_view LineReader::plain(std::string_view val, std::string& scratch, bool& ok) {
  ok = true;
  if (!needsUnescape(val)) return val;
  ok = unescape(val, scratch);
  return scratch;
}

std::string LineReader::readRecord(std::string_view line) {
  Record& r = record_;
  // Only what a reader of the record looks at without a present bit: the
  // slots themselves are read only where `present` says (no 330-byte reset
  // per line).
  r.present = 0;
  r.rc = 0;
  r.id = Identity{};
  std::string_view rest = line, f;
  if (!nextField(rest, f) || !parseTime(f, r.recvTime)) return "bad receive time " + quoted(f);
  if (!nextField(rest, f) || !parseTime(f, r.time)) return "bad task time " + quoted(f);
  if (!nextField(rest, f) || !parseTid(f, r.tid)) return "bad tid " + quoted(f);
  std::string_view name;
  if (!nextField(rest, name) || name.empty()) return "missing event name";
  splitEventName(name, r.kind, r.phase);
  if (r.kind != Kind::OTHER) return readFields(rest);
  // Forward compatible: keep the full name, ignore its fields.
  bool ok = true;
  r.setOther(plain(name, strScratch_[0], ok));
  if (!ok) return "bad event name " + quoted(name);
  return {};
}

bool LineReader::readSlot(const SlotSpec& spec, int slot, std::string_view val) {
  Record& r = record_;
  r.present |= static_cast<std::uint8_t>(1u << slot);
  if (spec.spelling == Spelling::String) {
    bool ok = true;
    r.str[slot] = plain(val, strScratch_[slot], ok);
    return ok;
  }
  if (spec.spelling == Spelling::List) {
    if (!parseTidList(val, listScratch_[slot])) return false;
    r.list[slot] = listScratch_[slot];
    return true;
  }
  switch (spec.spelling) {  // parseValue, without a second dispatch
    case Spelling::Tid:
    case Spelling::Parent: return parseTid(val, r.a[slot]);
    case Spelling::DataType: return parseDataType(val, r.a[slot]);
    case Spelling::Lang: return parseLang(val, r.a[slot]);
    default: return parseInt(val, r.a[slot]);
  }
}

// The task's identity rides on its first record.  Returns false for a bad
// value; a key that is not an identity key is ignored (a newer writer's).
bool LineReader::readIdentity(std::string_view key, std::string_view val) {
  Identity& id = record_.id;
  bool ok = true;
  if (key == "name") {
    id.name = plain(val, strScratch_[kMaxSlots], ok);
    id.hasName = ok;
    return ok;
  }
  if (key == "host") {
    id.host = plain(val, strScratch_[kMaxSlots + 1], ok);
    id.hasHost = ok;
    return ok;
  }
  if (key == "parent") return parseTid(val, id.parent) && (id.hasParent = true);
  if (key == "lang") return parseLang(val, id.lang) && (id.hasLang = true);
  if (key == "pid") return parseInt(val, id.pid) && (id.hasPid = true);
  if (key == "instance") return parseInt(val, id.instance) && id.instance >= 0;
  return true;
}

std::string LineReader::readFields(std::string_view rest) {
  Record& r = record_;
  auto slots = kindSlots(r.kind, r.phase);
  std::string_view f;
  while (nextField(rest, f)) {
    if (f.empty()) continue;  // tolerate a doubled space
    auto eq = f.find('=');
    if (eq == std::string_view::npos || eq == 0) return "field without key=value: " + quoted(f);
    std::string_view key = f.substr(0, eq), val = f.substr(eq + 1);
    bool ok = true;
    if (key == "rc") {
      ok = parseTid(val, r.rc);
      r.present |= 0x80;
    } else {
      int s = -1;
      for (std::size_t i = 0; i < slots.size(); ++i)
        if (slots[i].key == key) { s = static_cast<int>(i); break; }
      ok = s >= 0 ? readSlot(slots[static_cast<std::size_t>(s)], s, val) : readIdentity(key, val);
    }
    if (!ok) return "bad value for " + std::string(key) + ": " + quoted(val);
  }
  return {};
}

}  // namespace xab::text
