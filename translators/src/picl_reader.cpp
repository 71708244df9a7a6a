// picl2ab's core: PICL 2.0 records -> xab records, as text or a Trace (docs/picl-mapping.md,
// "Reading PICL").  Passes over records held in memory: times are shifted
// when the file has negative ones; each node's records at one time stamp
// are put in nesting order and entries linked to their exits; receives are
// matched to sends per (source, destination, tag) in order (a foreign file
// may hold a receive before its send); then the trace is written.
#include <xab/translators/picl.h>

#include <xab/model/builder.h>
#include <xab/traceformat/record.h>
#include <xab/traceformat/write.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace xab::tr {
namespace {

using namespace picl;

constexpr int kMaxNodes = 1 << 20;  // more nodes than this is a broken file
constexpr std::uint32_t kNoMate = UINT32_MAX;

struct Rec {
  TimeNs time = 0;
  std::int32_t rectype = 0, evtype = 0, node = 0;
  std::int32_t nd = 0;
  std::int32_t d[3] = {};
  std::int32_t serial = 0;      // sends: own serial; receives: the send's
  std::uint32_t mate = kNoMate;  // an entry's exit, an exit's entry
  // A -785 entry: MPICL's MPI_Bcast, or ab2picl's multicast bracket with
  // or without sends inside.
  enum class Bcast : std::uint8_t { Mpi, Sends, Empty } bcast = Bcast::Mpi;
};

bool isEntry(const Rec& r) { return r.rectype == picl::kEntry; }
bool isExit(const Rec& r) { return r.rectype == picl::kExit; }

// What picl2ab makes of an MPICL event code (docs/picl-mapping.md).
enum class Role : std::uint8_t { Skip, Trace, Send, Recv, RecvLate, Probe, ProbeNone, Barrier, Reduce, Gather, Scatter, Spawn, Bcast };

Role roleOf(int ev) {
  using namespace picl;
  switch (ev) {
    case kTrace: return Role::Trace;
    case kSend: case kBsend: case kSsend: case kRsend:
    case kIsend: case kIbsend: case kIssend: case kIrsend: return Role::Send;
    case kRecvWaiting: case kRecvBlocked: return Role::Recv;
    case kRecvDone: case kRecvEnd: case kRecvEndBlocked: return Role::RecvLate;
    case kProbeFound: case kWaitFound: case kWaitBlocked: return Role::Probe;
    case kProbeNotFound: return Role::ProbeNone;
    case kBarrier: return Role::Barrier;
    case kReduce: case kAllreduce: case kReduceScatter: case kScan: return Role::Reduce;
    case kGather: case kAllgather: return Role::Gather;
    case kScatter: return Role::Scatter;
    case kSpawn: return Role::Spawn;
    case kBcast: return Role::Bcast;
    default: return Role::Skip;
  }
}

// MPICL's MPI_Bcast entry: (bytes at the root, -1 elsewhere; root; communicator).
bool isBcastRoot(const Rec& r) { return r.nd >= 2 && r.d[1] == r.node; }
bool isBcastLeaf(const Rec& r) { return r.nd >= 2 && r.d[1] != r.node && r.d[1] >= 0 && r.d[1] < kMaxNodes; }

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
// MPICL writes times such as -0.000001 (clocks adjusted after the start).
// |time| is at most 999999999 s (31 years): with the shift of negative
// times (shiftTimes) every time stays far inside TimeNs.
bool parseSeconds(std::string_view s, TimeNs& ns) {
  const std::size_t sign = !s.empty() && s[0] == '-';
  std::size_t i = sign;
  TimeNs whole = 0, frac = 0;
  int digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i < 9 + sign) whole = whole * 10 + (s[i++] - '0');
  if (i > sign && i < s.size() && s[i] == '.') {
    std::size_t j = i + 1;
    for (; j < s.size() && s[j] >= '0' && s[j] <= '9'; ++j)
      if (digits < 9) frac = frac * 10 + (s[j] - '0'), ++digits;
    if (j == s.size() && j > i + 1) {
      for (; digits < 9; ++digits) frac *= 10;
      ns = whole * 1000000000 + frac;
      if (sign) ns = -ns;
      return true;
    }
  }
  double d = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), d);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(d) || std::fabs(d) >= 1e9)
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

// The distinct PICL node numbers, ascending: node ids[k] is task k.
struct Nodes {
  std::vector<std::int32_t> ids;
  std::size_t index(std::int32_t node) const {
    return static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), node) - ids.begin());
  }
};

// A node's records at one time stamp, put in an order that nests, and its
// entries linked to their exits.  MPICL merges the nodes' files by time
// only, so at equal times one node's records may come in any order: a
// barrier's exit after the next barrier's entry, a send's exit before its
// entry.  Longer runs of equal times than kMaxGroup keep the file's order
// (the reordering is quadratic in the run's length).
class Nester {
 public:
  static constexpr std::size_t kMaxGroup = 256;
  Nester(std::vector<Rec>& recs, std::size_t nodes) : recs_(recs), nodes_(nodes) {}

  // Records come in file order (one pass over memory: a pass per node
  // would jump through the whole file for each).
  void add(std::uint32_t i, std::size_t node) {
    Node& n = nodes_[node];
    if (!n.run.empty() && recs_[i].time != recs_[n.run.front()].time) flush(n);
    n.run.push_back(i);
  }
  void finish() {
    for (Node& n : nodes_) flush(n);
  }

 private:
  struct Node {
    std::vector<std::uint32_t> run;   // its records at the current time stamp, in file order
    std::vector<std::uint32_t> open;  // entries not yet exited, innermost last
    std::vector<std::pair<std::int32_t, int>> openCount;  // code -> entries of it in open (few: a flat list)
  };

  void flush(Node& n) {
    if (n.run.size() > 1 && n.run.size() <= kMaxGroup && !nests(n)) reorder(n);
    for (std::uint32_t i : n.run) link(n, i);
    n.run.clear();
  }

  static int& openCount(Node& n, std::int32_t ev) {
    for (auto& [code, k] : n.openCount)
      if (code == ev) return k;
    return n.openCount.emplace_back(ev, 0).second;
  }
  static int openCount(const Node& n, std::int32_t ev) {
    for (const auto& [code, k] : n.openCount)
      if (code == ev) return k;
    return 0;
  }

  // True when the run already nests in file order (the usual case: checked
  // without allocating): no entry of a code that is open, no exit of a code
  // that is not.
  bool nests(const Node& n) const {
    for (std::size_t k = 0; k < n.run.size(); ++k) {
      const Rec& r = recs_[n.run[k]];
      if (!isEntry(r) && !isExit(r)) continue;
      int open = openCount(n, r.evtype);
      for (std::size_t j = 0; j < k; ++j) {
        const Rec& q = recs_[n.run[j]];
        if (q.evtype == r.evtype) open += isEntry(q) ? 1 : isExit(q) ? -1 : 0;
      }
      if (isEntry(r) ? open > 0 : open <= 0) return false;
    }
    return true;
  }

  // An entry of a code that is open moves behind a later exit of that code
  // (the exit closes the open one); an exit of a code that is not open moves
  // behind a later entry of that code (its own).  Otherwise file order.  The
  // run's records are permuted among the run's own places in the file.
  void reorder(const Node& n) {
    std::vector<Rec> group;
    for (std::uint32_t i : n.run) group.push_back(recs_[i]);
    std::map<std::int32_t, int> opened;  // code -> entries - exits within the run so far
    auto isOpen = [&](std::int32_t ev) { return openCount(n, ev) + opened[ev] > 0; };
    std::vector<bool> used(group.size(), false);
    auto later = [&](std::size_t from, std::int32_t rectype, std::int32_t ev) {
      for (std::size_t k = from + 1; k < group.size(); ++k)
        if (!used[k] && group[k].rectype == rectype && group[k].evtype == ev) return k;
      return group.size();
    };
    std::size_t next = 0;
    for (std::uint32_t slot : n.run) {
      while (used[next]) ++next;
      const Rec& r = group[next];
      std::size_t pick = group.size();
      if (isEntry(r) && isOpen(r.evtype)) pick = later(next, picl::kExit, r.evtype);
      else if (isExit(r) && !isOpen(r.evtype)) pick = later(next, picl::kEntry, r.evtype);
      if (pick == group.size()) pick = next;
      used[pick] = true;
      const Rec& p = group[pick];
      if (isEntry(p)) ++opened[p.evtype];
      if (isExit(p) && isOpen(p.evtype)) --opened[p.evtype];
      recs_[slot] = p;
    }
  }

  void link(Node& n, std::uint32_t i) {
    Rec& r = recs_[i];
    if (isEntry(r)) {
      // A send inside a -785 on its node: the -785 is a multicast written
      // as sends (ab2picl's bracket), not MPICL's MPI_Bcast.
      if (roleOf(r.evtype) == Role::Send)
        for (auto it = n.open.rbegin(); it != n.open.rend(); ++it)
          if (recs_[*it].evtype == picl::kBcast) {
            recs_[*it].bcast = Rec::Bcast::Sends;
            break;
          }
      n.open.push_back(i);
      ++openCount(n, r.evtype);
    } else if (isExit(r)) {
      int& count = openCount(n, r.evtype);
      if (count == 0) return;  // nothing to close: no search
      --count;
      auto it = std::find_if(n.open.rbegin(), n.open.rend(), [&](std::uint32_t j) { return recs_[j].evtype == r.evtype; });
      r.mate = *it;
      recs_[*it].mate = i;
      // MPICL's MPI_Bcast exit carries the bytes; ab2picl's bracket exit
      // carries nothing (a multicast nobody received has no sends inside).
      Rec& e = recs_[*it];
      if (r.evtype == picl::kBcast && r.nd == 0 && e.bcast == Rec::Bcast::Mpi) e.bcast = Rec::Bcast::Empty;
      n.open.erase(std::next(it).base());
    }
  }

  std::vector<Rec>& recs_;
  std::vector<Node> nodes_;
};

void nestSameTime(std::vector<Rec>& recs, const Nodes& nodes) {
  Nester nester(recs, nodes.ids.size());
  for (std::size_t i = 0; i < recs.size(); ++i) nester.add(static_cast<std::uint32_t>(i), nodes.index(recs[i].node));
  nester.finish();
}

bool carriesMessage(const Rec& exit) { return exit.nd >= 3; }  // (bytes, tag, source)

// Serials per sender in send order; receives take them per (src, dst, tag)
// in order, whichever of the two comes first in the file.  MPICL's
// MPI_Bcast: the root's k-th is a message that every other node's k-th
// MPI_Bcast with that root receives.
std::uint64_t matchMessages(std::vector<Rec>& recs, const Nodes& nodes) {
  using Key = std::tuple<std::int32_t, std::int32_t, std::int32_t>;
  std::vector<std::int32_t> serials(nodes.ids.size(), 0);
  std::map<Key, std::deque<std::int32_t>> sends;    // serials not yet received
  std::map<Key, std::deque<std::size_t>> waiting;   // receives not yet matched
  std::map<std::int32_t, std::vector<std::int32_t>> bcasts;  // root -> serials of its MPI_Bcasts
  std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> bcastsGot;  // (root, node) -> count
  std::vector<std::pair<std::size_t, std::size_t>> leaves;  // (entry, k): the root's k-th MPI_Bcast
  for (std::size_t i = 0; i < recs.size(); ++i) {
    Rec& r = recs[i];
    const Role role = roleOf(r.evtype);
    if (isEntry(r) && role == Role::Send && r.nd >= 3) {
      r.serial = ++serials[nodes.index(r.node)];
      Key k{r.node, r.d[2], r.d[1]};
      auto w = waiting.find(k);
      if (w != waiting.end() && !w->second.empty()) {
        recs[w->second.front()].serial = r.serial;
        w->second.pop_front();
      } else {
        sends[k].push_back(r.serial);
      }
    } else if (isEntry(r) && role == Role::Bcast && r.bcast == Rec::Bcast::Mpi && isBcastRoot(r)) {
      r.serial = ++serials[nodes.index(r.node)];
      bcasts[r.node].push_back(r.serial);
    } else if (isEntry(r) && role == Role::Bcast && r.bcast == Rec::Bcast::Mpi && isBcastLeaf(r)) {
      leaves.emplace_back(i, bcastsGot[{r.d[1], r.node}]++);
    } else if (isExit(r) && (role == Role::Recv || role == Role::RecvLate) && carriesMessage(r)) {
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
  for (auto [i, k] : leaves) {
    auto b = bcasts.find(recs[i].d[1]);
    if (b == bcasts.end() || k >= b->second.size()) {
      ++unmatched;
      continue;
    }
    recs[i].serial = b->second[k];
    if (recs[i].mate != kNoMate) recs[recs[i].mate].serial = b->second[k];
  }
  return unmatched;
}

// Makes the xab records of the PICL records, as plain values, into a
// RecordSink: the text writer (picl2ab) or the model's builder (loading a
// PICL file), so nothing goes through text on its way to a Trace.
class XabWriter {
 public:
  XabWriter(text::RecordSink& out, const std::vector<Rec>& recs, int nodes, PiclReadResult& res)
      : out_(out), recs_(recs), nodes_(nodes), res_(res) {}

  // The node's first record: task t40001+node, so that tasks come in node order.
  void start(std::int32_t node, TimeNs time) {
    Rec r;
    r.node = node;
    r.time = time;
    line(r, Kind::MYTID);
    rec_.setRc(piclNodeTid(node));
    // instance=: the label is (node, N) even where node numbers have gaps.
    text::Identity& id = rec_.id;
    id.hasName = id.hasHost = id.hasParent = id.hasLang = id.hasPid = true;
    id.name = "node";
    id.instance = node;
    id.host = "picl";
    id.parent = kNoTid;
    id.lang = XAB_LANG_C;
    id.pid = 0;
    emit();
  }

  // Writes the record's xab record(s), or counts it as skipped.
  void write(const Rec& r) {
    const bool entry = isEntry(r), exit = isExit(r);
    if (!entry && !exit && r.rectype != picl::kMark) return skipType(r);
    if (r.evtype > 0) {  // user events: the entry or mark is a mark, the exit ends it
      if (!exit) mark(r);
      return;
    }
    if (!entry && !exit) return skip(r);  // MPICL's own marks (-904 trace level, -12 close, ...)
    switch (roleOf(r.evtype)) {
      case Role::Trace:
        if (exit) {
          line(r, Kind::EXIT);
          rec_.setRc(0);
          emit();
        }
        return;
      case Role::Send: return entry ? send(r) : exitOf(r);
      case Role::Recv:
        // An exit without data closes a receive that never completed (the
        // trace ended while it waited): in xab, a begin with no end.
        if (entry || carriesMessage(r)) return receive(r, entry);
        if (r.mate == kNoMate) skip(r);  // an exit without data or entry
        return;
      case Role::RecvLate:
        // The message is known only at the exit: without one, the pair is skipped.
        if (entry ? r.mate != kNoMate && carriesMessage(recs_[r.mate]) : carriesMessage(r)) return receive(r, entry);
        return skip(r);
      case Role::Probe:
      case Role::ProbeNone: return entry ? probe(r) : exitOf(r);
      case Role::Barrier: return collective(r, entry, Kind::BARRIER);
      case Role::Reduce: return collective(r, entry, Kind::REDUCE);
      case Role::Gather: return collective(r, entry, Kind::GATHER);
      case Role::Scatter: return collective(r, entry, Kind::SCATTER);
      case Role::Spawn:
        line(r, Kind::SPAWN, entry);
        if (!entry) {
          rec_.set(Key::Count, r.nd ? r.d[0] : 0);
          rec_.setRc(r.nd ? r.d[0] : 0);
        }
        return emit();
      case Role::Bcast: return bcast(r, entry);
      case Role::Skip: return skip(r);
    }
  }

 private:
  void skip(const Rec& r) {
    ++res_.skipped[r.evtype];
    ++res_.unknown;
  }
  void skipType(const Rec& r) {
    ++res_.skippedTypes[r.rectype];
    ++res_.unknown;
  }
  // The exit of a pair whose entry wrote the record: used if the entry was.
  void exitOf(const Rec& r) {
    if (r.mate == kNoMate || !entryWritten(recs_[r.mate])) skip(r);
  }
  static bool entryWritten(const Rec& entry) { return roleOf(entry.evtype) != Role::Send || entry.nd >= 3; }

  void send(const Rec& r) {
    if (r.nd < 3) return skip(r);
    line(r, Kind::SEND);
    rec_.set(Key::Dst, node(r.d[2]));
    rec_.set(Key::Tag, r.d[1]);
    rec_.set(Key::Bytes, r.d[0]);
    rec_.set(Key::Serial, r.serial);
    rec_.setRc(0);
    emit();
  }

  void probe(const Rec& r) {
    line(r, Kind::PROBE);
    rec_.set(Key::Src, r.nd > 1 ? node(r.d[1]) : kAnyTid);
    rec_.set(Key::Tag, r.nd > 0 ? r.d[0] : kAnyTag);
    rec_.setRc(roleOf(r.evtype) == Role::Probe ? 1 : 0);
    emit();
  }

  // MPICL's MPI_Bcast: the root's entry sends the message to the group,
  // the others receive it between their entry and exit (tag 0: MPI's
  // collectives have none).  ab2picl's bracket around sends is used by its
  // sends; an empty one (a multicast nobody received) is skipped.
  void bcast(const Rec& r, bool entry) {
    const Rec* e = entry ? &r : r.mate != kNoMate ? &recs_[r.mate] : nullptr;
    if (e && e->bcast == Rec::Bcast::Sends) return;  // used: its sends carry the messages
    if (!e || e->bcast == Rec::Bcast::Empty) return skip(r);
    if (isBcastRoot(*e)) {
      if (!entry) return;
      line(r, Kind::BCAST);
      rec_.setString(Key::Group, "all");
      rec_.set(Key::Tag, 0);
      rec_.set(Key::Bytes, r.d[0]);
      rec_.set(Key::Serial, r.serial);
      rec_.setRc(0);
      return emit();
    }
    if (!isBcastLeaf(*e)) return skip(r);
    line(r, Kind::RECV, entry);
    rec_.set(Key::Src, node(e->d[1]));
    rec_.set(Key::Tag, 0);
    if (!entry) {
      rec_.set(Key::Bytes, r.nd > 0 ? r.d[0] : 0);
      rec_.set(Key::Serial, r.serial);
      rec_.setRc(1);
    }
    emit();
  }

  Tid node(std::int32_t n) const { return n < 0 || n >= kMaxNodes ? kAnyTid : piclNodeTid(n); }

  // Starts the record of one event of node r.node at r.time (both clocks).
  void line(const Rec& r, Kind kind, bool begin = false) {
    rec_.clearFields();
    rec_.recvTime = rec_.time = r.time;
    rec_.tid = piclNodeTid(r.node);
    rec_.kind = kind;
    rec_.phase = begin ? Phase::Begin : Phase::End;
  }
  void emit() { out_.record(rec_); }

  void receive(const Rec& r, bool entry) {
    const bool asked = roleOf(r.evtype) == Role::Recv;  // -51/-52 entries name (tag, source) asked
    line(r, Kind::RECV, entry);
    if (entry) {
      rec_.set(Key::Src, asked && r.nd > 1 ? node(r.d[1]) : kAnyTid);
      rec_.set(Key::Tag, asked && r.nd > 0 ? r.d[0] : kAnyTag);
    } else {
      rec_.set(Key::Src, r.nd > 2 ? node(r.d[2]) : kAnyTid);
      rec_.set(Key::Tag, r.nd > 1 ? r.d[1] : kAnyTag);
      rec_.set(Key::Bytes, r.nd > 0 ? r.d[0] : 0);
      rec_.set(Key::Serial, r.serial);
      rec_.setRc(1);
    }
    emit();
  }

  // MPICL's rooted collectives name the root second, as MPI_Bcast does.
  void collective(const Rec& r, bool entry, Kind kind) {
    line(r, kind, entry);
    rec_.setString(Key::Group, "all");
    if (kind == Kind::BARRIER) rec_.set(Key::Count, nodes_);
    const Rec* e = entry ? &r : r.mate != kNoMate ? &recs_[r.mate] : nullptr;
    const bool rooted = r.evtype == picl::kReduce || r.evtype == picl::kGather || r.evtype == picl::kScatter;
    if (rooted && e && e->nd >= 2 && e->d[1] >= 0) rec_.set(Key::Root, e->d[1]);
    if (!entry) rec_.setRc(0);
    emit();
  }

  void mark(const Rec& r) {
    line(r, Kind::MARK);
    markText_ = "picl event " + std::to_string(r.evtype);
    rec_.setString(Key::Text, markText_);
    rec_.setRc(0);
    emit();
  }

  text::RecordSink& out_;
  const std::vector<Rec>& recs_;
  text::Record rec_;
  std::string markText_;
  int nodes_;
  PiclReadResult& res_;
};

// Reads every line into recs; false (res.error set) at a malformed line
// unless lenient.
bool readRecords(std::string_view text, const PiclReadOptions& o, std::vector<Rec>& recs, PiclReadResult& res) {
  recs.reserve(text.size() / 24);  // a record line is 24 bytes or more
  std::uint64_t lineNo = 0;
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
        return false;
      }
      ++res.malformed;
      if (res.warnings.size() < 10) res.warnings.push_back(msg);
      continue;
    }
    recs.push_back(r);
  }
  return true;
}

// xab times cannot be negative: with negative PICL times, every time moves
// later by the same amount, so the earliest becomes 0 (the viewer and
// abstat show times from the trace's first record, so nothing shows it).
TimeNs shiftTimes(std::vector<Rec>& recs) {
  TimeNs earliest = 0;
  for (const Rec& r : recs) earliest = std::min(earliest, r.time);
  for (Rec& r : recs) r.time -= earliest;
  return -earliest;
}

}  // namespace

PiclReadResult piclToRecords(std::string_view text, text::RecordSink& out, const PiclReadOptions& o) {
  PiclReadResult res;
  std::vector<Rec> recs;
  if (!readRecords(text, o, recs, res)) return res;
  res.records = recs.size();
  Nodes nodes;
  std::unordered_map<std::int32_t, TimeNs> firstTime;  // node -> its earliest record
  res.shift = shiftTimes(recs);
  for (const Rec& r : recs) {
    auto [it, added] = firstTime.try_emplace(r.node, r.time);
    if (!added) it->second = std::min(it->second, r.time);
  }
  for (auto& [node, t] : firstTime) nodes.ids.push_back(node);
  std::sort(nodes.ids.begin(), nodes.ids.end());
  res.nodes = static_cast<int>(nodes.ids.size());
  nestSameTime(recs, nodes);
  res.unmatched = matchMessages(recs, nodes);
  text::Header header;
  header.host = "picl";
  out.header(header);
  out.comment("translated from PICL by picl2ab: node n is task t40001+n");
  if (res.shift > 0) {
    std::string note = "PICL times shifted by +";
    text::appendTime(note, res.shift);
    out.comment(note + " s: the file has negative times");
  }
  XabWriter w(out, recs, res.nodes, res);
  for (std::int32_t node : nodes.ids) w.start(node, firstTime[node]);
  for (const Rec& r : recs) w.write(r);
  return res;
}

PiclReadResult piclToXab(std::string_view text, Sink& out, const PiclReadOptions& o) {
  text::TextWriter writer([&out](std::string_view piece) { out.put(piece); });
  PiclReadResult res = piclToRecords(text, writer, o);
  writer.flush();
  return res;
}

LoadResult loadPiclText(std::string_view text, const std::string& name) {
  TraceBuilder builder;
  PiclReadOptions o;
  o.name = name;
  o.lenient = true;
  PiclReadResult r = piclToRecords(text, builder, o);
  LoadResult out;
  out.trace = builder.take();
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
      if (text::isHeaderLine(line)) return false;
      continue;
    }
    Rec r;
    return parseLine(line, r).empty();
  }
  return false;
}

}  // namespace xab::tr
