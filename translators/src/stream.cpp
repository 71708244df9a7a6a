// TraceStream: pieces of the input (small Traces) handed to a writer record
// by record in arrival order, with calls assembled per task across pieces.
#include <xab/translators/stream.h>

#include <xab/model/builder.h>
#include <xab/model/messages.h>
#include <xab/model/reader.h>
#include <xab/model/time_base.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

namespace xab::tr {

std::string StreamTask::label() const {
  if (name.empty()) return "(" + formatTid(tid) + ")";
  return "(" + name + ", " + std::to_string(instance) + ")";
}

TraceStream::TraceStream(StreamWriter& w) : w_(w) {}
TraceStream::~TraceStream() = default;

std::optional<TaskIndex> TraceStream::find(Tid tid) const {
  auto it = byTid_.find(tid);
  if (it == byTid_.end()) return std::nullopt;
  return it->second;
}

TaskIndex TraceStream::mention(Tid tid) {
  auto [it, added] = byTid_.try_emplace(tid, static_cast<TaskIndex>(tasks_.size()));
  if (added) {
    StreamTask t;
    t.tid = tid;
    tasks_.push_back(std::move(t));
    open_.emplace_back();
  }
  return it->second;
}

void TraceStream::noteTime(TimeNs t) {
  if (!any_) {
    any_ = true;
    origin_ = first_ = last_ = t;
    return;
  }
  first_ = std::min(first_, t);
  last_ = std::max(last_, t);
}

void TraceStream::feed(const Trace& piece) {
  if (piece.header().present && !header_.present) header_ = piece.header();
  // The piece's tasks in the stream's numbering, with what they say of
  // themselves (a task's identity rides on its first record).
  std::vector<TaskIndex> global(piece.taskCount());
  std::size_t n = piece.monitorEvents().size();
  for (TaskIndex t = 0; t < piece.taskCount(); ++t) {
    const TaskInfo& info = piece.task(t);
    global[t] = mention(info.tid);
    StreamTask& st = tasks_[global[t]];
    if (st.name.empty() && info.name >= 0) {
      st.name = piece.str(info.name);
      st.instance = perName_[st.name]++;
    }
    if (st.host.empty() && info.host >= 0) st.host = piece.str(info.host);
    st.hasRecords |= !piece.events(t).empty();
    n += piece.events(t).size();
  }
  // Arrival order: the reader numbers every record it stores (seq).
  constexpr std::uint32_t kNone = UINT32_MAX, kMonitor = UINT32_MAX - 1;
  order_.assign(n, kNone);
  auto place = [&](std::uint32_t seq, std::uint32_t what) {
    if (seq >= order_.size()) order_.resize(seq + 1, kNone);
    order_[seq] = what;
  };
  for (const Event& e : piece.monitorEvents()) place(e.seq, kMonitor);
  for (TaskIndex t = 0; t < piece.taskCount(); ++t) piece.events(t).forEach([&](const Event& e) { place(e.seq, t); });

  std::vector<std::uint32_t> pos(piece.taskCount(), 0);
  std::size_t monitor = 0;
  for (std::uint32_t what : order_) {
    if (what == kNone) continue;
    if (what == kMonitor) {
      noteTime(piece.monitorEvents()[monitor++].time);
      continue;
    }
    std::uint32_t index = pos[what]++;
    const Event& e = piece.events(what)[index];
    noteTime(e.time);
    ++records_;
    Record r{piece, e, global[what]};
    w_.record(*this, r);
    assemble(r, what, index);
    tasks_[r.task].lastTime = e.time;
  }
  keepOpenCalls(piece);
}

// A task's records as calls: a begin record waits for the next record of
// its task; an end of the same kind closes it, anything else leaves it
// unfinished (until that record's time).  Any other record is a call of
// its own that takes no time.
void TraceStream::assemble(const Record& r, TaskIndex pieceTask, std::uint32_t index) {
  Open& o = open_[r.task];
  const Event& e = r.e;
  if (o.pending && (e.kind != o.e.kind || e.isBegin())) flushOpen(r.task, e.time);
  if (e.isBegin()) {
    o.pending = true;
    o.trace = &r.trace;
    o.e = e;
    o.pieceTask = pieceTask;
    o.index = index;
    o.kept.reset();
  } else if (o.pending) {
    Record b{*o.trace, o.e, r.task};
    w_.call(*this, StreamCall{b, r, b.e.time, std::max(b.e.time, e.time), false});
    o.pending = false;
    o.kept.reset();
  } else {
    w_.call(*this, StreamCall{r, r, e.time, e.time, false});
  }
}

void TraceStream::flushOpen(TaskIndex t, TimeNs until) {
  Open& o = open_[t];
  Record b{*o.trace, o.e, t};
  w_.call(*this, StreamCall{b, b, b.e.time, std::max(b.e.time, until), true});
  o.pending = false;
  o.kept.reset();
}

void TraceStream::keepOpenCalls(const Trace& piece) {
  for (TaskIndex t = 0; t < open_.size(); ++t) {
    Open& o = open_[t];
    if (!o.pending || o.trace != &piece) continue;
    // The record copied into a one-record Trace of its own, through the
    // builder (no text): strings and lists come along.
    TraceBuilder one;
    one.record(toRecord(piece, o.pieceTask, o.index, o.index == 0));
    o.kept = one.take();
    o.trace = o.kept.get();
    o.e = o.kept->events(0)[0];
  }
}

void TraceStream::finish() {
  for (TaskIndex t = 0; t < open_.size(); ++t)
    if (open_[t].pending) flushOpen(t, tasks_[t].lastTime);
  w_.end(*this);
}

namespace {

// Global time for a stream: a first pass over the file gathers the clock
// records, their fits re-time every piece of the second (the model's
// StreamTimeBase).  Standard input cannot be read twice: as recorded.
// Said once on stderr.
int streamTimeBase(const InputOptions& o, StreamTimeBase& base) {
  if (!base.wantsFirstPass()) return kExitOk;
  struct stat st{};
  if (o.path == "-" || stat(o.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fprintf(stderr, "%s: a pipe is read once: task clocks as recorded (global time needs a regular file)\n",
                 o.program.c_str());
    return kExitOk;
  }
  InputOptions quiet = o;
  quiet.progress = false;
  int rc = readThrough(quiet, [&](TraceReader& r) { base.gather(*r.take()); },
                       [&](TraceReader& r) { base.gather(*r.take()); });
  if (rc != kExitOk) return rc;
  if (std::size_t fitted = base.fit(); fitted == 0)
    std::fprintf(stderr, "%s: no clock records: task clocks as recorded\n", o.program.c_str());
  else
    std::fprintf(stderr, "%s: global time: %zu tasks fitted to abmon's clock (no causality correction when streaming)\n",
                 o.program.c_str(), fitted);
  return kExitOk;
}

}  // namespace

int streamInput(const InputOptions& o, TraceStream& s, std::uint64_t* bytes) {
  if (o.compensate || !o.replayOf.empty()) {  // the whole trace first (io.h): global time, compensation, replay correction
    Input in = readTrace(o);
    if (!in.trace) return in.exitCode;
    if (bytes) *bytes = in.bytes;
    s.feed(*in.trace);
    return kExitOk;
  }
  TimeBase asked;
  asked.globalTime = o.globalTime;
  StreamTimeBase base(asked);
  if (int rc = streamTimeBase(o, base); rc != kExitOk) return rc;
  auto feed = [&](TraceReader& r) { s.feed(*base.apply(r.take())); };
  return readThrough(o, feed, [&](TraceReader& r) {
    if (bytes) *bytes = r.byteCount();
    feed(r);  // the last line, when it had no '\n'
  });
}

std::vector<Tid> namedDestinations(const Trace& trace, const Event& send) {
  auto d = sendDestinations(trace, send).value_or(std::span<const Tid>{});
  return {d.begin(), d.end()};
}

bool isGotMessage(const Event& e) {
  return gotMessage(e) && e.get(Key::Src) > 0 && e.get(Key::Serial) > 0;
}

void GroupMembers::record(const TraceStream& s, const Record& r) {
  const Event& e = r.e;
  if ((e.kind != Kind::JOINGROUP && e.kind != Kind::LVGROUP) || e.isBegin() || (e.hasRc() && e.rc < 0)) return;
  StrId g = e.get(Key::Group, -1);
  if (g < 0) return;
  std::vector<Tid>& m = members_[std::string(r.trace.str(g))];
  Tid tid = s.task(r.task).tid;
  auto it = std::find(m.begin(), m.end(), tid);
  if (e.kind == Kind::JOINGROUP && it == m.end()) m.push_back(tid);
  if (e.kind == Kind::LVGROUP && it != m.end()) m.erase(it);
}

std::vector<Tid> GroupMembers::others(const std::string& group, Tid self) const {
  auto it = members_.find(group);
  if (it == members_.end()) return {};
  std::vector<Tid> out;
  for (Tid t : it->second)
    if (t != self) out.push_back(t);
  return out;
}

std::string bcastGroup(const Record& r) {
  if (r.e.kind != Kind::BCAST || sendDestinations(r.trace, r.e)) return {};  // dst= names them
  StrId g = r.e.get(Key::Group, -1);
  return g < 0 ? std::string() : std::string(r.trace.str(g));
}

}  // namespace xab::tr
