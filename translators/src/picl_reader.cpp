// picl2ab's core: PICL 2.0 records -> xab text trace (docs/picl-mapping.md,
// "Reading PICL").  Two passes over records held in memory: the first
// matches receives to sends per (source, destination, tag) in order (a
// foreign file may hold a receive before its send), the second writes.
#include <xab/translators/picl.h>

#include <charconv>
#include <cmath>
#include <map>
#include <tuple>
#include <deque>

namespace xab::tr {
namespace {

using namespace picl;

constexpr int kMaxNodes = 1 << 20;  // more nodes than this is a broken file

struct Rec {
  TimeNs time = 0;
  std::int32_t rectype = 0, evtype = 0, node = 0;
  std::int32_t nd = 0;
  std::int32_t d[3] = {};
  std::int32_t serial = 0;  // sends: own serial; receives: the send's
};

// Plain loops: string_view::find_first_of calls memchr per character,
// which was a fifth of picl2ab's time.
bool nextToken(std::string_view& rest, std::string_view& tok) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  const char* p = rest.data();
  const char* end = p + rest.size();
  while (p < end && blank(*p)) ++p;
  if (p == end) return false;
  const char* b = p;
  while (p < end && !blank(*p)) ++p;
  tok = std::string_view(b, static_cast<std::size_t>(p - b));
  rest = std::string_view(p, static_cast<std::size_t>(end - p));
  return true;
}

// Seconds ("12.345678", "1.2e-3") to nanoseconds.  The usual fixed-point
// form is read exactly and fast; anything else goes through a double.
bool parseSeconds(std::string_view s, TimeNs& ns) {
  std::size_t i = 0;
  TimeNs whole = 0, frac = 0;
  int digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 10) whole = whole * 10 + (s[i++] - '0');
  if (i > 0 && i < s.size() && s[i] == '.') {
    std::size_t j = i + 1;
    for (; j < s.size() && s[j] >= '0' && s[j] <= '9'; ++j)
      if (digits < 9) frac = frac * 10 + (s[j] - '0'), ++digits;
    if (j == s.size() && j > i + 1) {
      for (; digits < 9; ++digits) frac *= 10;
      ns = whole * 1000000000 + frac;
      return true;
    }
  }
  double d = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(d) || d < 0 || d > 1e10)
    return false;
  ns = static_cast<TimeNs>(std::llround(d * 1e9));
  return true;
}

std::string quoted(std::string_view s) { return "'" + std::string(s.substr(0, 40)) + "'"; }

// Reads a line's fields in one pass (picl2ab spends most of its time here).
struct Cursor {
  const char* p;
  const char* end;
  static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
  bool token(std::string_view& tok) {
    while (p < end && blank(*p)) ++p;
    if (p == end) return false;
    const char* b = p;
    while (p < end && !blank(*p)) ++p;
    tok = std::string_view(b, static_cast<std::size_t>(p - b));
    return true;
  }
  // A decimal int32 field; on failure `tok` is the field (empty when
  // the line has no more fields), for the message.
  bool integer(std::int32_t& v, std::string_view& tok) { return token(tok) && decimal(tok, v); }

  static bool decimal(std::string_view tok, std::int32_t& v) {
    std::size_t i = tok[0] == '-' || tok[0] == '+';
    if (i == tok.size() || tok.size() > 11) return false;
    std::int64_t x = 0;
    for (; i < tok.size(); ++i) {
      if (tok[i] < '0' || tok[i] > '9') return false;
      x = x * 10 + (tok[i] - '0');
    }
    if (tok[0] == '-') x = -x;
    if (x < INT32_MIN || x > INT32_MAX) return false;
    v = static_cast<std::int32_t>(x);
    return true;
  }
};

// One line into rec; "" or why it is malformed.
std::string parseLine(std::string_view line, Rec& rec) {
  static constexpr const char* kNames[] = {"record type", "event type", "time", "node", "process", "data count"};
  Cursor c{line.data(), line.data() + line.size()};
  std::string_view tok;
  std::int32_t process = 0, ndata = 0;
  auto bad = [&](int k) {
    if (tok.empty())
      return "expected 6 fields (rectype evtype time node process ndata), got " + std::to_string(k);
    return std::string("bad ") + kNames[k] + " " + quoted(tok);
  };
  tok = {};
  if (!c.integer(rec.rectype, tok)) return bad(0);
  tok = {};
  if (!c.integer(rec.evtype, tok)) return bad(1);
  tok = {};
  if (!c.token(tok) || !parseSeconds(tok, rec.time)) return bad(2);
  tok = {};
  if (!c.integer(rec.node, tok) || rec.node < 0 || rec.node >= kMaxNodes) return bad(3);
  tok = {};
  if (!c.integer(process, tok)) return bad(4);
  tok = {};
  if (!c.integer(ndata, tok) || ndata < 0) return bad(5);
  if (ndata > 0 && !c.token(tok)) return "data count " + std::to_string(ndata) + " but no data type";
  rec.nd = 0;
  for (std::int32_t k = 0; k < ndata; ++k) {
    if (!c.token(tok))
      return "data count " + std::to_string(ndata) + " but " + std::to_string(k) + " data values";
    std::int32_t v = 0;
    if (!Cursor::decimal(tok, v)) v = 0;  // non-integer data: read as 0
    if (k < 3) rec.d[rec.nd++] = v;
  }
  return {};
}

bool isReceive(int ev) { return ev == kRecvWaiting || ev == kRecvBlocked; }

// Pass 1: serials per sender in send order; receives take them per
// (src, dst, tag) in order, whichever of the two comes first in the file.
std::uint64_t matchMessages(std::vector<Rec>& recs, std::vector<std::int32_t>& serials) {
  using Key = std::tuple<std::int32_t, std::int32_t, std::int32_t>;
  std::map<Key, std::deque<std::int32_t>> sends;    // serials not yet received
  std::map<Key, std::deque<std::size_t>> waiting;   // receives not yet matched
  for (std::size_t i = 0; i < recs.size(); ++i) {
    Rec& r = recs[i];
    if (r.rectype == kEntry && r.evtype == kSend) {
      if (static_cast<std::size_t>(r.node) >= serials.size()) serials.resize(static_cast<std::size_t>(r.node) + 1);
      r.serial = ++serials[static_cast<std::size_t>(r.node)];
      Key k{r.node, r.d[2], r.d[1]};
      auto w = waiting.find(k);
      if (w != waiting.end() && !w->second.empty()) {
        recs[w->second.front()].serial = r.serial;
        w->second.pop_front();
      } else {
        sends[k].push_back(r.serial);
      }
    } else if (r.rectype == kExit && isReceive(r.evtype) && r.nd >= 3) {
      Key k{r.d[2], r.node, r.d[1]};
      auto s = sends.find(k);
      if (s != sends.end() && !s->second.empty()) {
        r.serial = s->second.front();
        s->second.pop_front();
      } else {
        waiting[k].push_back(i);
      }
    }
  }
  std::uint64_t unmatched = 0;
  for (auto& [k, q] : waiting) unmatched += q.size();
  return unmatched;
}

class XabWriter {
 public:
  XabWriter(Sink& out, int nodes) : out_(out), started_(static_cast<std::size_t>(nodes), false), nodes_(nodes) {}

  // Returns false for a record with no xab equivalent.
  bool write(const Rec& r) {
    if (!started_[static_cast<std::size_t>(r.node)]) {
      started_[static_cast<std::size_t>(r.node)] = true;
      line(r, "mytid");
      out_.put(" rc=");
      putTid(piclNodeTid(r.node));
      out_.put(" name=node host=picl parent=none lang=c pid=0\n");
    }
    const bool entry = r.rectype == kEntry, exit = r.rectype == kExit;
    if (!entry && !exit && r.rectype != kMark) return false;
    if (r.rectype == kMark || (entry && r.evtype > 0)) return mark(r);
    if (r.evtype > 0) return true;  // the exit of a user event
    switch (r.evtype) {
      case kTrace: if (exit) { line(r, "exit"); out_.put(" rc=0\n"); } return true;
      case kSend:
        if (entry) {
          line(r, "send");
          tidField("dst", node(r.d[2]));
          field("tag", r.d[1]);
          field("bytes", r.d[0]);
          field("serial", r.serial);
          out_.put(" rc=0\n");
        }
        return true;
      case kRecvWaiting:
      case kRecvBlocked:
        // An exit without data closes a receive that never completed (the
        // trace ended while it waited): in xab, a begin with no end.
        if (entry || r.nd > 0) receive(r, entry);
        return true;
      case kProbeFound:
      case kProbeNotFound:
        if (entry) {
          line(r, "probe");
          tidField("src", node(r.d[1]));
          tagField(r.nd > 0 ? r.d[0] : -1);
          out_.put(r.evtype == kProbeFound ? " rc=1\n" : " rc=0\n");
        }
        return true;
      case kBarrier: collective(r, entry, "barrier", true); return true;
      case kReduce: collective(r, entry, "reduce", false); return true;
      case kSpawn:
        line(r, entry ? "spawn.begin" : "spawn");
        if (!entry) { field("count", r.nd ? r.d[0] : 0); field("rc", r.nd ? r.d[0] : 0); }
        out_.put('\n');
        return true;
      case kBcast: return true;  // its -21 records carry the messages
      default: return false;
    }
  }

 private:
  Tid node(std::int32_t n) const { return n < 0 ? kAnyTid : piclNodeTid(n); }

  void putTid(Tid tid) { out_.putTid(tid); }

  void tagField(std::int32_t tag) {
    if (tag == kAnyTag) return field("tag", std::string_view("any"));
    field("tag", tag);
  }
  void tidField(std::string_view key, Tid tid) {
    out_.put(' ');
    out_.put(key);
    out_.put('=');
    putTid(tid);
  }

  void line(const Rec& r, std::string_view event) {
    if (r.time != lastTime_) {  // both time columns, formatted once
      std::string_view t = formatTime(r.time);
      time_.assign(t);
      time_ += ' ';
      time_ += t;
      time_ += ' ';
      lastTime_ = r.time;
    }
    out_.put(time_);
    putTid(piclNodeTid(r.node));
    out_.put(' ');
    out_.put(event);
  }
  void field(std::string_view key, std::string_view v) {
    out_.put(' ');
    out_.put(key);
    out_.put('=');
    out_.put(v);
  }
  void field(std::string_view key, std::int64_t v) {
    out_.put(' ');
    out_.put(key);
    out_.put('=');
    out_.putInt(v);
  }

  void receive(const Rec& r, bool entry) {
    if (entry) {
      line(r, "recv.begin");
      tidField("src", r.nd > 1 ? node(r.d[1]) : kAnyTid);
      tagField(r.nd > 0 ? r.d[0] : -1);
    } else {
      line(r, "recv");
      tidField("src", r.nd > 2 ? node(r.d[2]) : kAnyTid);
      tagField(r.nd > 1 ? r.d[1] : -1);
      field("bytes", r.nd > 0 ? r.d[0] : 0);
      field("serial", r.serial);
      out_.put(" rc=1");
    }
    out_.put('\n');
  }

  void collective(const Rec& r, bool entry, std::string_view name, bool counted) {
    line(r, entry ? std::string(name) + ".begin" : std::string(name));
    field("group", "all");
    if (counted) field("count", nodes_);
    out_.put(entry ? "\n" : " rc=0\n");
  }

  bool mark(const Rec& r) {
    line(r, "mark");
    out_.put(" text=picl%20event%20");
    out_.putInt(r.evtype);
    out_.put(" rc=0\n");
    return true;
  }

  std::string_view formatTime(TimeNs t) {
    std::string digits = std::to_string(t / 1000000000);
    char frac[10] = {'.'};
    TimeNs f = t % 1000000000;
    for (int i = 9; i >= 1; --i, f /= 10) frac[i] = static_cast<char>('0' + f % 10);
    timeText_ = digits;
    timeText_.append(frac, 10);
    return timeText_;
  }

  Sink& out_;
  std::string time_, timeText_;
  TimeNs lastTime_ = -1;
  std::vector<bool> started_;
  int nodes_;
};

}  // namespace

PiclReadResult piclToXab(std::string_view text, Sink& out, const PiclReadOptions& o) {
  PiclReadResult res;
  std::vector<Rec> recs;
  recs.reserve(text.size() / 24);  // a record line is 24 bytes or more
  std::uint64_t lineNo = 0;
  int maxNode = -1;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++lineNo;
    std::string_view probe = line;
    std::string_view first;
    if (!nextToken(probe, first) || first[0] == '#') continue;
    Rec r;
    std::string why = parseLine(line, r);
    if (!why.empty()) {
      std::string msg = o.name + ":" + std::to_string(lineNo) + ": " + why;
      if (!o.lenient) {
        res.error = msg;
        return res;
      }
      ++res.malformed;
      if (res.warnings.size() < 10) res.warnings.push_back(msg);
      continue;
    }
    maxNode = std::max(maxNode, r.node);
    recs.push_back(r);
  }
  res.records = recs.size();
  res.nodes = maxNode + 1;
  std::vector<std::int32_t> serials;
  res.unmatched = matchMessages(recs, serials);
  out.put("#xab-trace 1 host=picl pid=0 start=0.000000000\n");
  out.put("# translated from PICL by picl2ab: node n is task t40001+n\n");
  XabWriter w(out, res.nodes);
  for (const Rec& r : recs)
    if (!w.write(r)) ++res.unknown;
  return res;
}

LoadResult loadPiclText(std::string_view text, const std::string& name) {
  std::string xab;
  Sink sink;
  sink.captureTo(&xab);
  PiclReadOptions o;
  o.name = name;
  o.lenient = true;
  PiclReadResult r = piclToXab(text, sink, o);
  sink.finish();
  LoadResult out = loadTraceText(xab);
  for (const std::string& w : r.warnings) out.errors.push_back({0, w});
  out.errorCount += r.malformed;
  return out;
}

LoadResult loadPiclFile(const std::string& path) {
  std::string text;
  std::string err = slurp(path, "picl", false, text);
  if (!err.empty()) {
    LoadResult out;
    out.fatal = err;
    return out;
  }
  return loadPiclText(text, displayName(path));
}

bool looksLikePicl(std::string_view head) {
  while (!head.empty()) {
    std::size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    head = nl == std::string_view::npos ? std::string_view{} : head.substr(nl + 1);
    std::string_view probe = line, tok;
    if (!nextToken(probe, tok) || tok[0] == '#') {
      if (line.starts_with("#xab-trace")) return false;
      continue;
    }
    Rec r;
    return parseLine(line, r).empty();
  }
  return false;
}

}  // namespace xab::tr
