// xab/traceformat/record.h -- a trace record as plain values, the
// interface every importer writes records into, and the line reader and
// record writer that turn records into text and back.
//
// A RecordSink is what a producer of records writes into: the library's
// TextWriter writes trace text; the model's TraceBuilder
// (xab/model/builder.h) stores them as a Trace.  An importer (picl2ab) or a
// copier (the translators' TraceStream) fills Records and hands them to
// either, so no record goes through text to reach a Trace.  The library
// knows nothing of the model: strings and lists in a Record are views that
// live as long as the call that hands the Record over.
#pragma once

#include <xab/traceformat/schema.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace xab::text {

// The header line: "#xab-trace 1 abmon=t40001 host=vm pid=4242 start=...".
// Its first field is kHeaderTag; isHeaderLine tells it from a comment (an
// importer asks, to tell an xab trace from its own format).
inline constexpr std::string_view kHeaderTag = "#xab-trace";
bool isHeaderLine(std::string_view line);
struct Header {
  int version = kTraceFormatVersion;
  bool hasAbmon = false;  // abmon= (an importer's trace has no abmon)
  std::int32_t abmon = 0;
  std::string_view host;
  std::int32_t pid = 0;
  std::int64_t start = 0;
};

// A task's identity, which rides on its first record (keys that are not
// slots of the record's kind).
struct Identity {
  std::string_view name, host;
  std::int32_t instance = -1;  // an importer's instance= (-1: none)
  std::int32_t parent = 0, lang = -1, pid = 0;
  bool hasName = false, hasHost = false, hasParent = false, hasLang = false, hasPid = false;
  bool any() const { return hasName || hasHost || hasParent || hasLang || hasPid || instance >= 0; }
};

struct Record {
  std::int64_t recvTime = 0;  // abmon's clock
  std::int64_t time = 0;      // the task's clock
  std::int32_t tid = 0;
  Kind kind = Kind::OTHER;
  Phase phase = Phase::End;
  std::uint8_t present = 0;  // bit i: slot i is in the record; bit 7: rc is
  std::int32_t rc = 0;
  std::int32_t a[kMaxSlots] = {};                  // Int, Tid, DataType slots
  std::string_view str[kMaxSlots] = {};            // String slots (plain text)
  std::span<const std::int32_t> list[kMaxSlots] = {};  // List slots
  Identity id;

  // Empties the record for the next one: no slot, no rc, no identity.
  // Cheaper than assigning Record{} (about 300 bytes) for each of millions
  // of records; the values of absent slots are never read.
  void clearFields() {
    present = 0;
    rc = 0;
    id = Identity{};
  }
  bool has(int slot) const { return slot >= 0 && slot < kMaxSlots && (present >> slot) & 1; }
  bool hasRc() const { return present & 0x80; }
  void setRc(std::int32_t v) { rc = v; present |= 0x80; }
  // By key: false (nothing set) when the kind has no such slot.  Inline:
  // an importer sets millions of values.
  bool set(Key key, std::int32_t v) { return setSlot(key, a, v); }
  bool setString(Key key, std::string_view s) { return setSlot(key, str, s); }
  // A record of an event name this reader does not know.
  void setOther(std::string_view name) {
    kind = Kind::OTHER;
    phase = Phase::End;
    str[0] = name;
    present = 1;
  }

 private:
  template <class T, class V>
  bool setSlot(Key key, T (&values)[kMaxSlots], const V& v) {
    int s = slotOf(kind, phase, key);
    if (s < 0) return false;
    values[s] = v;
    present |= static_cast<std::uint8_t>(1u << s);
    return true;
  }
};

class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void header(const Header& h) = 0;
  virtual void record(const Record& r) = 0;
  // A comment line's text (after "# "); sinks that store records ignore it.
  virtual void comment(std::string_view) {}
};

// The record's line without '\n': times, tid, event, the present fields
// in table order, rc last, then the identity.  Reading it back gives the
// same record.
void appendRecord(std::string& out, const Record& r);
void appendHeader(std::string& out, const Header& h);

// Writes trace text through `put`, whole lines in pieces of about 64 KiB
// (one call per piece, not per line: picl2ab writes millions of lines).
// flush() hands over what is buffered; the destructor flushes too.
class TextWriter final : public RecordSink {
 public:
  explicit TextWriter(std::function<void(std::string_view)> put) : put_(std::move(put)) {}
  ~TextWriter() override { flush(); }
  TextWriter(const TextWriter&) = delete;
  TextWriter& operator=(const TextWriter&) = delete;
  void header(const Header& h) override;
  void record(const Record& r) override;
  void comment(std::string_view text) override;
  void flush();

 private:
  void endLine();
  static constexpr std::size_t kPiece = 64 * 1024;
  std::function<void(std::string_view)> put_;
  std::string buf_;
};

// Reads lines of trace text.  The Records and Headers it returns hold
// views into the line and into the reader's scratch space: valid until the
// next call.
class LineReader {
 public:
  enum class Line { Skip, Header, Record };  // Skip: empty, a comment
  // What the line is; on a malformed line `error` says why ("bad task
  // time '17x'"); `fatal` is set for a newer format version.  A
  // "#xab-trace" line is the header while the caller has none yet
  // (wantHeader), a comment after.
  Line read(std::string_view line, bool wantHeader, std::string& error, bool& fatal) {
    // Inline: the reader calls it for every line.
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      error.clear();
      return Line::Skip;
    }
    if (line[0] == '#') {
      error.clear();
      return readHashLine(line, wantHeader, error, fatal);
    }
    error = readRecord(line);
    return Line::Record;
  }
  const Header& header() const { return header_; }
  const Record& record() const { return record_; }

 private:
  Line readHashLine(std::string_view line, bool wantHeader, std::string& error, bool& fatal);
  std::string readHeader(std::string_view line, bool& fatal);
  std::string readRecord(std::string_view line);
  std::string readFields(std::string_view rest);
  bool readSlot(const SlotSpec& spec, int slot, std::string_view val);
  bool readIdentity(std::string_view key, std::string_view val);
  std::string_view plain(std::string_view val, std::string& scratch, bool& ok);

  Header header_;
  Record record_;
  std::string headerHost_;
  std::string strScratch_[kMaxSlots + 2];  // + the identity's name and host
  std::vector<std::int32_t> listScratch_[kMaxSlots];
};

}  // namespace xab::text
