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
#include "picl_records.h"

#include <algorithm>
#include <unordered_map>

namespace xab::tr {
namespace {

using namespace picl;
using namespace piclrec;

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
