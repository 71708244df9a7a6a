// ab2picl's core: xab trace -> PICL 2.0 records (docs/picl-mapping.md).
//
// Each node (task) yields its own stream of PICL records in its own order;
// a k-way merge by (time, entries before marks before exits, node) makes
// the one time-sorted file ParaGraph wants without reordering any node.
#include <xab/translators/picl.h>
#include <xab/translators/timeline.h>

#include <xab/model/messages.h>

#include <algorithm>
#include <functional>
#include <map>

namespace xab::tr {
namespace {

using namespace picl;

struct Rec {
  TimeNs time = 0;
  int rectype = 0, evtype = 0;
  int ndata = 0;
  std::int32_t data[3] = {};
};

int rank(int rectype) { return rectype == kEntry ? 0 : rectype == kMark ? 1 : 2; }

struct Context {
  const Trace& trace;
  const MessageTable& mt;
  const AdjustedTimes& adj;
  PiclWriteStats& stats;
  std::map<std::string, int, std::less<>> markCodes;

  int node(Tid tid) const {
    if (tid == kAnyTid) return -1;
    auto t = trace.findTask(tid);
    return t ? static_cast<int>(*t) : -1;
  }
  TimeNs time(EventRef r) const { return adj.times[r.task][r.index]; }
  int markCode(std::string_view text) {
    auto it = markCodes.find(text);
    if (it != markCodes.end()) return it->second;
    stats.marks.emplace_back(text);
    int code = static_cast<int>(stats.marks.size());
    markCodes.emplace(std::string(text), code);
    return code;
  }
};

// One node's records, produced an event at a time.
class NodeStream {
 public:
  NodeStream(Context& c, TaskIndex t) : c_(c), t_(t), ev_(c.trace.events(t)) {}

  // The next record, or false at the end of the node.
  bool peek(Rec& out) {
    while (head_ == q_.size() && !ended_) refill();
    if (head_ == q_.size()) return false;
    out = q_[head_];
    return true;
  }
  void pop() { ++head_; }

 private:
  void refill() {
    if (q_.capacity() > 64) std::vector<Rec>().swap(q_);  // a wide mcast's records: not kept
    q_.clear();
    head_ = 0;
    fill();
  }

  void emit(TimeNs time, int rectype, int evtype, std::initializer_list<std::int32_t> data = {}) {
    Rec r;
    r.time = time;
    r.rectype = rectype;
    r.evtype = evtype;
    for (std::int32_t d : data) r.data[r.ndata++] = d;
    q_.push_back(r);
  }

  void fill() {
    if (i_ == 0 && !ev_.empty() && !started_) {
      started_ = true;
      emit(c_.time({t_, 0}), kEntry, kTrace);
    }
    if (i_ >= ev_.size()) {
      TimeNs end = ev_.empty() ? 0 : c_.time({t_, static_cast<std::uint32_t>(ev_.size() - 1)});
      if (open_) emit(end, kExit, openCode_);  // blocked when the trace ended
      if (!ev_.empty()) emit(end, kExit, kTrace);
      ended_ = true;
      return;
    }
    translate(i_);
    ++i_;
  }

  // Index of the end record of the blocking call begun at b, or -1.
  std::int64_t endOf(std::uint32_t b) const {
    for (std::uint32_t j = b + 1; j < ev_.size(); ++j) {
      const Event& e = ev_[j];
      if (e.kind == ev_[b].kind) return e.isBegin() ? -1 : j;
    }
    return -1;
  }

  // -51 or -52 for the receive begun at b (docs/picl-mapping.md).
  int receiveCode(std::uint32_t b, std::int64_t end) const {
    if (end < 0) return kRecvBlocked;
    EventRef e{t_, static_cast<std::uint32_t>(end)};
    std::int64_t m = receivedMessage(c_.mt, e);
    TimeNs begin = c_.time({t_, b});
    if (m >= 0) return c_.time(c_.mt.messages.send(static_cast<std::size_t>(m))) <= begin ? kRecvWaiting : kRecvBlocked;
    return c_.time(e) - begin < kWaitingThreshold ? kRecvWaiting : kRecvBlocked;
  }

  void sendTo(TimeNs time, const Event& e, Tid dst) {
    emit(time, kEntry, kSend, {e.get(Key::Bytes), e.get(Key::Tag), c_.node(dst)});
    emit(time, kExit, kSend);
  }

  void open(TimeNs time, int code, std::initializer_list<std::int32_t> data = {}) {
    emit(time, kEntry, code, data);
    open_ = true;
    openCode_ = code;
  }
  void close(TimeNs time, std::initializer_list<std::int32_t> data = {}) {
    if (!open_) return;  // an end whose begin was lost
    emit(time, kExit, openCode_, data);
    open_ = false;
  }

  void translate(std::uint32_t i) {
    const Event& e = ev_[i];
    const TimeNs time = c_.time({t_, i});
    const bool begin = e.isBegin();
    switch (e.kind) {
      case Kind::SEND:
      case Kind::PSEND: sendTo(time, e, e.get(Key::Dst)); return;
      case Kind::MCAST:
      case Kind::BCAST: multicast(i, time, e); return;
      case Kind::RECV:
      case Kind::TRECV:
      case Kind::PRECV:
        if (begin) open(time, receiveCode(i, endOf(i)), {e.get(Key::Tag, -1), c_.node(e.get(Key::Src, -1))});
        else close(time, {gotMessage(e) ? e.get(Key::Bytes) : 0, e.get(Key::Tag, -1), c_.node(e.get(Key::Src, -1))});
        return;
      case Kind::NRECV:
      case Kind::HANDLER:
      case Kind::PROBE: nonBlocking(time, e); return;
      case Kind::BARRIER: begin ? open(time, kBarrier) : close(time); return;
      case Kind::REDUCE: begin ? open(time, kReduce) : close(time); return;
      case Kind::SPAWN: begin ? open(time, kSpawn) : close(time, {e.rc}); return;
      case Kind::MARK:
        emit(time, kMark, c_.markCode(c_.trace.str(e.get(Key::Text, -1))));
        return;
      default: ++c_.stats.skipped; return;
    }
  }

  void nonBlocking(TimeNs time, const Event& e) {
    if (e.rc < 0 && !gotMessage(e)) { ++c_.stats.skipped; return; }
    const std::int32_t tag = e.get(Key::Tag, -1), src = c_.node(e.get(Key::Src, -1));
    int code = e.kind == Kind::PROBE ? (e.rc > 0 ? kProbeFound : kProbeNotFound)
                                     : (gotMessage(e) ? kRecvWaiting : kProbeNotFound);
    emit(time, kEntry, code, {tag, src});
    if (code == kRecvWaiting) emit(time, kExit, code, {e.get(Key::Bytes), tag, src});
    else emit(time, kExit, code);
  }

  // One -21 per destination inside a -785 bracket, so ParaGraph draws each
  // message.  A bcast names no destinations: its receivers stand in.
  void multicast(std::uint32_t i, TimeNs time, const Event& e) {
    std::int64_t m = c_.mt.messageOf({t_, i});
    std::vector<Tid> dst;
    if (m >= 0) {
      const Message& msg = c_.mt.messages[static_cast<std::size_t>(m)];
      if (msg.destinationsKnown) dst.assign(msg.destinations.begin(), msg.destinations.end());
      else
        for (const MessageReceive& r : msg.receives) dst.push_back(c_.trace.task(r.recv.task).tid);
    }
    std::erase_if(dst, [&](Tid d) { return c_.node(d) < 0; });
    emit(time, kEntry, kBcast, {e.get(Key::Bytes), e.get(Key::Tag), static_cast<std::int32_t>(dst.size())});
    for (Tid d : dst) sendTo(time, e, d);
    emit(time, kExit, kBcast);
  }

  Context& c_;
  TaskIndex t_;
  const EventStore& ev_;
  std::uint32_t i_ = 0;
  bool started_ = false, ended_ = false;
  bool open_ = false;
  int openCode_ = 0;
  // The records of the event being translated: filled only once drained.
  // A vector, not a deque: libstdc++'s deque allocates 576 bytes as it is
  // made, 58 MB for the nodes of a trace of 100,000 one-record tasks.
  std::vector<Rec> q_;
  std::size_t head_ = 0;
};

void put(Sink& out, const Rec& r, int node, TimeNs origin) {
  out.putInt(r.rectype);
  out.put(' ');
  out.putInt(r.evtype);
  out.put(' ');
  out.putSeconds(std::max<TimeNs>(0, r.time - origin), 6);
  out.put(' ');
  out.putInt(node);
  out.put(" 0 ");
  out.putInt(r.ndata);
  if (r.ndata) {
    out.put(" 2");
    for (int k = 0; k < r.ndata; ++k) {
      out.put(' ');
      out.putInt(r.data[k]);
    }
  }
  out.put('\n');
}

}  // namespace

PiclWriteStats writePicl(const Trace& trace, Sink& out) {
  PiclWriteStats stats;
  MessageTable mt = matchMessages(trace);
  AdjustedTimes adj = fixTachyons(trace, mt);
  stats.moved = adj.moved;
  stats.shifted = adj.shifted;
  Context ctx{trace, mt, adj, stats, {}};
  std::vector<NodeStream> nodes;
  nodes.reserve(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) nodes.emplace_back(ctx, t);

  struct Head {
    TimeNs time;
    int rank;
    TaskIndex node;
    bool operator>(const Head& o) const {
      if (time != o.time) return time > o.time;
      if (rank != o.rank) return rank > o.rank;
      return node > o.node;
    }
  };
  std::vector<Head> heap;
  Rec r;
  for (TaskIndex t = 0; t < nodes.size(); ++t)
    if (nodes[t].peek(r)) heap.push_back({r.time, rank(r.rectype), t});
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  const TimeNs origin = trace.firstTime();
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    TaskIndex t = heap.back().node;
    nodes[t].peek(r);
    put(out, r, static_cast<int>(t), origin);
    ++stats.records;
    nodes[t].pop();
    if (nodes[t].peek(r)) {
      heap.back() = {r.time, rank(r.rectype), t};
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    } else {
      heap.pop_back();
    }
  }
  return stats;
}

void writeNodeTable(const Trace& trace, const PiclWriteStats& stats, Sink& out) {
  out.put("# PICL node  xab tid  task\n");
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    out.put("node ");
    out.putInt(t);
    out.put(' ');
    out.put(formatTid(trace.task(t).tid));
    out.put(' ');
    out.put(trace.label(t));
    out.put('\n');
  }
  for (std::size_t i = 0; i < stats.marks.size(); ++i) {
    out.put("event ");
    out.putInt(static_cast<std::int64_t>(i + 1));
    out.put(' ');
    out.put(stats.marks[i]);
    out.put('\n');
  }
}

}  // namespace xab::tr
