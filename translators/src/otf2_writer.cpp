// ab2otf2's core, streaming (stream.h): each call goes to its task's event
// writer when its end record is read; definitions come at the end, when
// the number of events per location and every name are known (global
// definitions must name every string before it is used).
//
// Memory: an OTF2 event writer holds a chunk of 256 KB (OTF2's smallest)
// from the moment it is opened, and a location's writer cannot be closed
// and reopened.  So a location's calls wait in a short list of our own
// until it has kLiveCalls of them; only then does it get a writer.  The
// rest are written at the end one location at a time (open, write,
// close), so memory follows what the trace holds, not the number of tasks
// it names: 100,000 tasks of one record each do not ask for 25 GB.
#include <xab/model/messages.h>
#include <xab/translators/calls.h>
#include <xab/translators/otf2.h>
#include <xab/translators/stream.h>

#include <otf2/otf2.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <unordered_map>
#include <vector>

namespace xab::tr {
namespace {

OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_FlushCallbacks kFlush = {preFlush, nullptr};

// Left to itself OTF2 keeps every chunk of a writer in memory until the
// writer is closed.  With these, a writer holds at most kChunksPerWriter:
// when it asks for one more, it is told there is none, so it flushes what
// it has to its file (preFlush) and frees it, then asks again.
constexpr int kChunksPerWriter = 2;
struct Chunks {
  std::vector<void*> held;
};
void* allocateChunk(void*, OTF2_FileType, OTF2_LocationRef, void** data, std::uint64_t size) {
  if (!*data) *data = new Chunks;
  auto* c = static_cast<Chunks*>(*data);
  if (c->held.size() >= kChunksPerWriter) return nullptr;
  void* p = std::malloc(size);
  if (p) c->held.push_back(p);
  return p;
}
void freeChunks(void*, OTF2_FileType, OTF2_LocationRef, void** data, bool final) {
  auto* c = static_cast<Chunks*>(*data);
  if (!c) return;
  for (void* p : c->held) std::free(p);
  c->held.clear();
  if (final) {
    delete c;
    *data = nullptr;
  }
}
OTF2_MemoryCallbacks kMemory = {allocateChunk, freeChunks};

constexpr OTF2_CommRef kWorld = 0;

// Calls a location keeps in memory before it gets an OTF2 writer of its
// own: a writer's chunk (256 KB) is then no more than its calls' share.
constexpr std::size_t kLiveCalls = 1024;

struct Region {
  OTF2_StringRef name;
  OTF2_RegionRole role;
  OTF2_Paradigm paradigm;
};

struct Comm {  // one per PVM group used by a collective
  OTF2_CommRef id = 0;
  std::vector<TaskIndex> members;  // rank in the comm = position here
  std::map<std::int32_t, TaskIndex> byInstance;  // from joingroup's rc
};

class Otf2Writer final : public StreamWriter {
 public:
  explicit Otf2Writer(const std::string& dir) : dir_(dir) {
    if (std::filesystem::exists(dir_ + "/traces.otf2"))
      s_.error = dir_ + ": already holds an OTF2 archive (traces.otf2); remove it or choose another -o";
  }

  ~Otf2Writer() override {
    if (!ar_) return;
    // Input that stopped half-way: what was read stays, waiting calls too.
    for (TaskIndex i = 0; i < pending_.size(); ++i)
      if (!pending_[i].empty()) closeLocation(i);
    OTF2_Archive_Close(ar_);
  }

  void record(TraceStream& s, const Record& r) override {
    if (!s_.error.empty() || (!ar_ && !open())) return;
    groups_.record(s, r);
    while (!waiting_.empty() && (waiting_.front().bcastGroup.empty() || waiting_.front().due <= s.records())) {
      write(s, waiting_.front());
      waiting_.pop_front();
    }
    const Event& e = r.e;
    if (e.kind != Kind::JOINGROUP && e.kind != Kind::BARRIER && !isCollective(e.kind)) return;
    StrId g = e.get(Key::Group, -1);
    if (g < 0) return;
    auto [it, fresh] = comms_.try_emplace(std::string(r.trace.str(g)));
    Comm& c = it->second;
    if (fresh) c.id = static_cast<OTF2_CommRef>(comms_.size());  // kWorld is 0
    if (std::find(c.members.begin(), c.members.end(), r.task) == c.members.end()) c.members.push_back(r.task);
    if (e.kind == Kind::JOINGROUP && !e.isBegin() && e.hasRc() && e.rc >= 0) c.byInstance[e.rc] = r.task;
  }

  void call(TraceStream& s, const StreamCall& c) override {
    if (!ar_) return;
    const Event& e = c.end.e;
    if (e.kind == Kind::TIDS || (e.kind >= Kind::ABMON_START && e.kind != Kind::OTHER)) return;
    CallOut out = describe(s, c);
    // A bcast waits for its destinations (GroupMembers), and the calls read
    // after it wait behind it, so each location's events stay in order.
    if (out.bcastGroup.empty() && waiting_.empty()) return write(s, out);
    out.due = s.records() + kBcastWindow;
    waiting_.push_back(std::move(out));
  }

  void end(TraceStream& s) override {
    bool anyTask = std::any_of(s.tasks().begin(), s.tasks().end(), [](const StreamTask& t) { return t.hasRecords; });
    if (s_.error.empty() && !anyTask)  // otf2-print and Vampir refuse an archive without locations
      s_.error = "the trace has no tasks: an OTF2 archive needs at least one";
    if (!ar_) return;
    for (const CallOut& c : waiting_) write(s, c);
    waiting_.clear();
    // Every location gets an event file, also a task only named as a peer;
    // one location at a time.
    if (!s.tasks().empty()) location(static_cast<TaskIndex>(s.tasks().size() - 1));
    for (TaskIndex i = 0; i < s.tasks().size(); ++i) closeLocation(i);
    OTF2_Archive_CloseEvtFiles(ar_);
    OTF2_Archive_OpenDefFiles(ar_);
    for (TaskIndex i = 0; i < s.tasks().size(); ++i)
      OTF2_Archive_CloseDefWriter(ar_, OTF2_Archive_GetDefWriter(ar_, i));
    OTF2_Archive_CloseDefFiles(ar_);
    definitions(s);
    if (OTF2_Archive_Close(ar_) != OTF2_SUCCESS && s_.error.empty()) s_.error = dir_ + ": OTF2 could not close the archive";
    ar_ = nullptr;
    s_.locations = static_cast<std::uint32_t>(s.tasks().size());
    s_.regions = static_cast<std::uint32_t>(regions_.size());
  }

  const Otf2WriteStats& stats() const { return s_; }

 private:
  // The archive is created at the first record: an input with no task
  // leaves no directory behind.
  bool open() {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      s_.error = dir_ + ": " + ec.message();
      return false;
    }
    // Event and definition chunks of 256 KB (OTF2's smallest): OTF2 clears a
    // whole chunk for each location it opens, 100,000 of them for a trace of
    // 100,000 tasks.
    ar_ = OTF2_Archive_Open(dir_.c_str(), "traces", OTF2_FILEMODE_WRITE, 256 << 10, 256 << 10,
                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar_) {
      s_.error = dir_ + ": OTF2 could not create the archive";
      return false;
    }
    OTF2_Archive_SetFlushCallbacks(ar_, &kFlush, nullptr);
    OTF2_Archive_SetMemoryCallbacks(ar_, &kMemory, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar_);
    OTF2_Archive_SetCreator(ar_, "ab2otf2 (xab)");
    OTF2_Archive_OpenEvtFiles(ar_);
    return true;
  }

  // Per-location state, for every location up to i: no OTF2 writer yet.
  void location(TaskIndex i) {
    if (i < writers_.size()) return;
    writers_.resize(i + 1, nullptr);
    pending_.resize(i + 1);
    perLocation_.resize(i + 1, 0);
    last_.resize(i + 1, INT64_MIN);
  }

  OTF2_EvtWriter* writer(TaskIndex i) {
    location(i);
    if (!writers_[i]) writers_[i] = OTF2_Archive_GetEvtWriter(ar_, i);
    return writers_[i];
  }

  // A location's calls so far go to its new writer.
  OTF2_EvtWriter* goLive(TaskIndex i) {
    OTF2_EvtWriter* w = writer(i);
    for (const CallOut& c : pending_[i]) emit(w, c);
    std::vector<CallOut>().swap(pending_[i]);
    return w;
  }

  // The location's event file, written and closed: at most one writer's
  // chunk is held by all locations that never went live.
  void closeLocation(TaskIndex i) {
    OTF2_EvtWriter* w = writers_[i] ? writers_[i] : goLive(i);
    std::vector<CallOut>().swap(pending_[i]);
    OTF2_Archive_CloseEvtWriter(ar_, w);
    writers_[i] = nullptr;
  }

  OTF2_StringRef str(const std::string& s) {
    auto [it, fresh] = strings_.try_emplace(s, static_cast<OTF2_StringRef>(stringOrder_.size()));
    if (fresh) stringOrder_.push_back(s);
    return it->second;
  }

  OTF2_RegionRef region(const std::string& name, Kind k) {
    auto it = regionIds_.find(name);
    if (it != regionIds_.end()) return it->second;
    OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
    OTF2_Paradigm paradigm = OTF2_PARADIGM_USER;
    if (isMsgOut(k) || isMsgIn(k) || k == Kind::PROBE) role = OTF2_REGION_ROLE_POINT2POINT;
    if (k == Kind::BARRIER) role = OTF2_REGION_ROLE_BARRIER;
    if (k == Kind::REDUCE) role = OTF2_REGION_ROLE_COLL_ALL2ONE;
    if (k == Kind::GATHER) role = OTF2_REGION_ROLE_COLL_ALL2ONE;
    if (k == Kind::SCATTER) role = OTF2_REGION_ROLE_COLL_ONE2ALL;
    if (role != OTF2_REGION_ROLE_FUNCTION) paradigm = OTF2_PARADIGM_MPI;  // Vampir's communication views
    auto id = static_cast<OTF2_RegionRef>(regions_.size());
    regions_.push_back({str(name), role, paradigm});
    regionIds_.emplace(name, id);
    return id;
  }

  // A call's region; named by its kind, except marks and unknown records.
  OTF2_RegionRef regionOf(const Record& r) {
    const Kind k = r.e.kind;
    if (k == Kind::MARK || k == Kind::OTHER) return region(regionName(r), k);
    auto i = static_cast<std::size_t>(k);
    if (i >= byKind_.size()) byKind_.resize(i + 1, OTF2_UNDEFINED_REGION);
    if (byKind_[i] == OTF2_UNDEFINED_REGION) byKind_[i] = region(regionName(r), k);
    return byKind_[i];
  }

  static std::string regionName(const Record& r) {
    if (r.e.kind == Kind::MARK) return "mark " + std::string(r.trace.str(r.e.get(Key::Text, -1)));
    return "pvm_" + std::string(callName(r.trace, r.e));
  }

  OTF2_TimeStamp stamp(TaskIndex i, TimeNs t) {
    TimeNs& last = last_[i];
    last = std::max(last, t);
    return static_cast<OTF2_TimeStamp>(last);
  }

  // A call as OTF2 events: Enter, what it communicated, Leave.  Ranks in
  // the world communicator are location numbers.
  struct CallOut {
    TaskIndex loc = 0;
    OTF2_TimeStamp start = 0, finish = 0;
    OTF2_RegionRef region = 0;
    enum { None, Send, Recv, Collective } what = None;
    std::vector<std::uint32_t> to;  // Send: one MpiSend per destination (an mcast to three gives three)
    std::uint32_t peer = 0, tag = 0;
    std::uint64_t bytes = 0;
    OTF2_CollectiveOp op = OTF2_COLLECTIVE_OP_BARRIER;
    OTF2_CommRef comm = kWorld;
    std::uint32_t root = OTF2_UNDEFINED_UINT32;
    std::string bcastGroup;  // a bcast: `to` is filled in when written
    Tid self = 0;
    std::uint64_t due = 0;   // waiting: written once this many records are read
  };

  CallOut describe(TraceStream& s, const StreamCall& c) {
    const Event& e = c.end.e;
    CallOut o;
    o.loc = c.end.task;
    location(o.loc);
    o.start = stamp(o.loc, c.start);
    o.finish = stamp(o.loc, c.finish);
    o.region = regionOf(c.end);
    o.tag = static_cast<std::uint32_t>(e.get(Key::Tag));
    o.bytes = static_cast<std::uint64_t>(std::max(0, e.get(Key::Bytes)));
    o.self = s.task(o.loc).tid;
    if (sentMessage(e)) {
      o.what = CallOut::Send;
      o.bcastGroup = bcastGroup(c.end);
      for (Tid d : namedDestinations(c.end.trace, e))
        if (d > 0) o.to.push_back(s.mention(d));
    } else if (isGotMessage(e) && !c.unfinished) {
      o.what = CallOut::Recv;
      o.peer = s.mention(e.get(Key::Src));
    } else if ((e.kind == Kind::BARRIER || isCollective(e.kind)) && !c.unfinished) {
      StrId g = e.get(Key::Group, -1);
      auto it = g < 0 ? comms_.end() : comms_.find(std::string(c.end.trace.str(g)));
      if (it != comms_.end()) {
        o.what = CallOut::Collective;
        o.op = collectiveOp(e.kind);
        o.comm = it->second.id;
        o.root = rootRank(it->second, e);
      }
    }
    return o;
  }

  // A call whose bcast destinations are known (the group as it is now):
  // to its location's writer if it has one, else to its pending list.
  void write(const TraceStream& s, const CallOut& call) {
    CallOut c = call;
    if (!c.bcastGroup.empty()) {
      for (Tid d : groups_.others(c.bcastGroup, c.self)) c.to.push_back(*s.find(d));
      c.bcastGroup.clear();
    }
    std::uint64_t n = 2;
    if (c.what == CallOut::Send) n += c.to.size(), s_.sends += c.to.size();
    if (c.what == CallOut::Recv) ++n, ++s_.receives;
    if (c.what == CallOut::Collective) n += 2, ++s_.collectives;
    perLocation_[c.loc] += n;
    s_.events += n;
    if (writers_[c.loc]) return emit(writers_[c.loc], c);
    auto& pending = pending_[c.loc];
    pending.push_back(std::move(c));
    if (pending.size() >= kLiveCalls) goLive(pending.back().loc);
  }

  static void emit(OTF2_EvtWriter* w, const CallOut& c) {
    OTF2_EvtWriter_Enter(w, nullptr, c.start, c.region);
    switch (c.what) {
      case CallOut::Send:
        for (std::uint32_t r : c.to) OTF2_EvtWriter_MpiSend(w, nullptr, c.start, r, kWorld, c.tag, c.bytes);
        break;
      case CallOut::Recv:
        OTF2_EvtWriter_MpiRecv(w, nullptr, c.finish, c.peer, kWorld, c.tag, c.bytes);
        break;
      case CallOut::Collective:
        OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, c.start);
        OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, c.finish, c.op, c.comm, c.root, 0, 0);
        break;
      case CallOut::None: break;
    }
    OTF2_EvtWriter_Leave(w, nullptr, c.finish, c.region);
  }

  static OTF2_CollectiveOp collectiveOp(Kind k) {
    switch (k) {
      case Kind::REDUCE: return OTF2_COLLECTIVE_OP_REDUCE;
      case Kind::GATHER: return OTF2_COLLECTIVE_OP_GATHER;
      case Kind::SCATTER: return OTF2_COLLECTIVE_OP_SCATTER;
      default: return OTF2_COLLECTIVE_OP_BARRIER;
    }
  }

  // The root instance as a rank of the group's communicator.
  static std::uint32_t rootRank(const Comm& c, const Event& e) {
    if (e.kind == Kind::BARRIER) return OTF2_UNDEFINED_UINT32;
    auto it = c.byInstance.find(e.get(Key::Root, -1));
    if (it == c.byInstance.end()) return OTF2_UNDEFINED_UINT32;
    auto pos = std::find(c.members.begin(), c.members.end(), it->second) - c.members.begin();
    return static_cast<std::uint32_t>(pos);
  }

  static std::string hostName(const StreamTask& t) { return t.host.empty() ? "unknown host" : t.host; }

  void definitions(const TraceStream& s) {
    // Names first: every string a definition refers to.
    std::vector<std::string> hosts;
    std::map<std::string, OTF2_SystemTreeNodeRef> nodeOfHost;
    for (const StreamTask& t : s.tasks())
      if (nodeOfHost.emplace(hostName(t), static_cast<OTF2_SystemTreeNodeRef>(nodeOfHost.size() + 1)).second)
        hosts.push_back(hostName(t));
    OTF2_StringRef sMachine = str("xab virtual machine"), sMachineClass = str("machine"), sNode = str("node"),
                   sWorld = str("pvm (all tasks)"), sLocations = str("tasks");
    for (const std::string& h : hosts) str(h);
    for (const StreamTask& t : s.tasks()) {
      str(t.label());
      str(formatTid(t.tid));
    }
    for (auto& [g, c] : comms_) str("group " + g);

    OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(ar_);
    TimeNs first = s.firstTime(), lastT = s.lastTime();
    OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, static_cast<std::uint64_t>(first),
                                              static_cast<std::uint64_t>(std::max<TimeNs>(0, lastT - first)),
                                              static_cast<std::uint64_t>(first));
    for (OTF2_StringRef k = 0; k < stringOrder_.size(); ++k)
      OTF2_GlobalDefWriter_WriteString(d, k, stringOrder_[k].c_str());
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, sMachine, sMachineClass, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (const std::string& h : hosts) OTF2_GlobalDefWriter_WriteSystemTreeNode(d, nodeOfHost[h], str(h), sNode, 0);
    for (TaskIndex i = 0; i < s.tasks().size(); ++i) {
      const StreamTask& t = s.task(i);
      OTF2_GlobalDefWriter_WriteLocationGroup(d, i, str(t.label()), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                              nodeOfHost[hostName(t)], OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation(d, i, str(formatTid(t.tid)), OTF2_LOCATION_TYPE_CPU_THREAD,
                                         perLocation_[i], i);
    }
    for (OTF2_RegionRef r = 0; r < regions_.size(); ++r) {
      const Region& g = regions_[r];
      OTF2_GlobalDefWriter_WriteRegion(d, r, g.name, g.name, g.name, g.role, g.paradigm, OTF2_REGION_FLAG_NONE,
                                       OTF2_UNDEFINED_STRING, 0, 0);
    }
    std::vector<std::uint64_t> all(s.tasks().size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    OTF2_GlobalDefWriter_WriteGroup(d, 0, sLocations, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(all.size()), all.data());
    OTF2_GlobalDefWriter_WriteGroup(d, 1, sWorld, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(all.size()), all.data());
    OTF2_GlobalDefWriter_WriteComm(d, kWorld, sWorld, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    // Communicators in the order their groups were first seen.
    std::vector<const std::pair<const std::string, Comm>*> byId;
    for (const auto& gc : comms_) byId.push_back(&gc);
    std::sort(byId.begin(), byId.end(), [](auto* a, auto* b) { return a->second.id < b->second.id; });
    for (const auto* gc : byId) {
      const Comm& c = gc->second;
      std::vector<std::uint64_t> ranks(c.members.begin(), c.members.end());
      OTF2_GroupRef gr = 1 + c.id;
      OTF2_StringRef name = str("group " + gc->first);
      OTF2_GlobalDefWriter_WriteGroup(d, gr, name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                      OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(ranks.size()), ranks.data());
      OTF2_GlobalDefWriter_WriteComm(d, c.id, name, gr, kWorld, OTF2_COMM_FLAG_NONE);
    }
  }

  std::string dir_;
  Otf2WriteStats s_;
  OTF2_Archive* ar_ = nullptr;
  GroupMembers groups_;
  std::deque<CallOut> waiting_;
  std::vector<OTF2_EvtWriter*> writers_;       // per location; null until it has kLiveCalls calls
  std::vector<std::vector<CallOut>> pending_;  // per location: calls waiting for a writer
  std::unordered_map<std::string, OTF2_StringRef> strings_;
  std::vector<std::string> stringOrder_;
  std::unordered_map<std::string, OTF2_RegionRef> regionIds_;
  std::vector<Region> regions_;
  std::vector<OTF2_RegionRef> byKind_;
  std::map<std::string, Comm> comms_;
  std::vector<std::uint64_t> perLocation_;
  std::vector<TimeNs> last_;
};

}  // namespace

struct Otf2Stream::Impl {
  explicit Impl(const std::string& dir) : writer(dir), stream(writer) {}
  Otf2Writer writer;
  TraceStream stream;
};

Otf2Stream::Otf2Stream(const std::string& dir) : impl_(std::make_unique<Impl>(dir)) {}
Otf2Stream::~Otf2Stream() = default;
TraceStream& Otf2Stream::stream() { return impl_->stream; }
const std::string& Otf2Stream::error() const { return impl_->writer.stats().error; }
Otf2WriteStats Otf2Stream::finish() {
  impl_->stream.finish();
  return impl_->writer.stats();
}

Otf2WriteStats writeOtf2(const Trace& trace, const std::string& dir) {
  Otf2Stream o(dir);
  if (o.error().empty()) o.stream().feed(trace);
  return o.finish();
}

}  // namespace xab::tr
