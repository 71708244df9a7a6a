// ab2otf2's core.  Events go to each task's event writer first (so the
// number of events per location is known), definitions after: global
// definitions must name every string before it is used, so the names are
// collected while the events are written.
#include <xab/translators/calls.h>
#include <xab/translators/otf2.h>
#include <xab/translators/timeline.h>

#include <xab/model/messages.h>

#include <otf2/otf2.h>

#include <filesystem>
#include <map>
#include <unordered_map>
#include <vector>

namespace xab::tr {
namespace {

OTF2_FlushType preFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_FlushCallbacks kFlush = {preFlush, nullptr};

constexpr OTF2_CommRef kWorld = 0;

struct Region {
  OTF2_StringRef name;
  OTF2_RegionRole role;
  OTF2_Paradigm paradigm;
};

struct Comm {  // one per PVM group used by a collective
  std::vector<TaskIndex> members;  // rank in the comm = position here
  std::map<std::int32_t, TaskIndex> byInstance;  // from joingroup's rc
};

class Otf2Writer {
 public:
  Otf2Writer(const Trace& t, const std::string& dir) : t_(t), dir_(dir), mt_(matchMessages(t)) {}

  Otf2WriteStats run() {
    if (t_.taskCount() == 0) {  // otf2-print and Vampir refuse an archive without locations
      s_.error = "the trace has no tasks: an OTF2 archive needs at least one";
      return s_;
    }
    if (std::filesystem::exists(dir_ + "/traces.otf2")) {
      s_.error = dir_ + ": already holds an OTF2 archive (traces.otf2); remove it or choose another -o";
      return s_;
    }
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      s_.error = dir_ + ": " + ec.message();
      return s_;
    }
    findGroups();
    ar_ = OTF2_Archive_Open(dir_.c_str(), "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar_) {
      s_.error = dir_ + ": OTF2 could not create the archive";
      return s_;
    }
    OTF2_Archive_SetFlushCallbacks(ar_, &kFlush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar_);
    OTF2_Archive_SetCreator(ar_, "ab2otf2 (xab)");
    OTF2_Archive_OpenEvtFiles(ar_);
    perLocation_.assign(t_.taskCount(), 0);
    for (TaskIndex i = 0; i < t_.taskCount(); ++i) events(i);
    OTF2_Archive_CloseEvtFiles(ar_);
    OTF2_Archive_OpenDefFiles(ar_);
    for (TaskIndex i = 0; i < t_.taskCount(); ++i)
      OTF2_Archive_CloseDefWriter(ar_, OTF2_Archive_GetDefWriter(ar_, i));
    OTF2_Archive_CloseDefFiles(ar_);
    definitions();
    if (OTF2_Archive_Close(ar_) != OTF2_SUCCESS && s_.error.empty()) s_.error = dir_ + ": OTF2 could not close the archive";
    s_.locations = static_cast<std::uint32_t>(t_.taskCount());
    s_.regions = static_cast<std::uint32_t>(regions_.size());
    return s_;
  }

 private:
  OTF2_StringRef str(const std::string& s) {
    auto [it, fresh] = strings_.try_emplace(s, static_cast<OTF2_StringRef>(stringOrder_.size()));
    if (fresh) stringOrder_.push_back(s);
    return it->second;
  }

  // Members of each group: tasks that joined it or met in a collective of it.
  void findGroups() {
    for (TaskIndex i = 0; i < t_.taskCount(); ++i) {
      const auto& ev = t_.events(i);
      for (std::size_t k = 0; k < ev.size(); ++k) {
        const Event& e = ev[k];
        if (e.kind != Kind::JOINGROUP && e.kind != Kind::BARRIER && !isCollective(e.kind)) continue;
        StrId g = e.get(Key::Group, -1);
        if (g < 0) continue;
        Comm& c = groups_[g];
        if (std::find(c.members.begin(), c.members.end(), i) == c.members.end()) c.members.push_back(i);
        if (e.kind == Kind::JOINGROUP && e.hasRc() && e.rc >= 0) c.byInstance[e.rc] = i;
      }
    }
    OTF2_CommRef next = kWorld + 1;
    for (auto& [g, c] : groups_) commOf_[g] = next++;
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

  std::string regionName(const Event& e) {
    if (e.kind == Kind::MARK) return "mark " + std::string(t_.str(e.get(Key::Text, -1)));
    return "pvm_" + std::string(callName(t_, e));
  }

  OTF2_TimeStamp stamp(TaskIndex i, TimeNs t) {
    TimeNs& last = last_[i];
    last = std::max(last, t);
    return static_cast<OTF2_TimeStamp>(last);
  }

  void events(TaskIndex i) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(ar_, i);
    last_[i] = INT64_MIN;
    std::uint64_t& n = perLocation_[i];
    forEachCall(t_, i, [&](const Call& c) {
      const Event& e = t_.events(i)[c.end];
      if (e.kind == Kind::TIDS || (e.kind >= Kind::ABMON_START && e.kind != Kind::OTHER))
        return;
      OTF2_RegionRef r = region(regionName(e), e.kind);
      OTF2_EvtWriter_Enter(w, nullptr, stamp(i, c.start), r);
      ++n;
      n += communication(w, i, c, e);
      OTF2_EvtWriter_Leave(w, nullptr, stamp(i, c.finish), r);
      ++n;
    });
    OTF2_Archive_CloseEvtWriter(ar_, w);
    s_.events += n;
  }

  // The events between Enter and Leave; returns how many.
  std::uint64_t communication(OTF2_EvtWriter* w, TaskIndex i, const Call& c, const Event& e) {
    EventRef ref{i, c.end};
    std::uint64_t n = 0;
    if (isMsgOut(e.kind)) {
      std::int64_t m = mt_.messageOf(ref);
      if (m < 0 || !(mt_.messages[static_cast<std::size_t>(m)].send == ref)) return 0;
      // One MpiSend per receive that happened: Vampir pairs sends and
      // receives in order, so a send never received would shift the rest.
      for (const MessageReceive& r : mt_.messages[static_cast<std::size_t>(m)].receives) {
        OTF2_EvtWriter_MpiSend(w, nullptr, stamp(i, c.start), r.receiver, kWorld,
                               static_cast<std::uint32_t>(e.get(Key::Tag)), static_cast<std::uint64_t>(std::max(0, e.get(Key::Bytes))));
        ++n, ++s_.sends;
      }
    } else if (isReceiveEnd(e) && !c.unfinished) {
      std::int64_t m = receivedMessage(mt_, ref);
      if (m < 0) return 0;
      OTF2_EvtWriter_MpiRecv(w, nullptr, stamp(i, c.finish), mt_.messages[static_cast<std::size_t>(m)].sender, kWorld,
                             static_cast<std::uint32_t>(e.get(Key::Tag)), static_cast<std::uint64_t>(std::max(0, e.get(Key::Bytes))));
      ++n, ++s_.receives;
    } else if ((e.kind == Kind::BARRIER || isCollective(e.kind)) && !c.unfinished) {
      StrId g = e.get(Key::Group, -1);
      if (g < 0 || !commOf_.count(g)) return 0;
      OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, stamp(i, c.start));
      OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, stamp(i, c.finish), collectiveOp(e.kind), commOf_[g],
                                      rootRank(g, e), 0, 0);
      n += 2, ++s_.collectives;
    }
    return n;
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
  std::uint32_t rootRank(StrId g, const Event& e) {
    if (e.kind == Kind::BARRIER) return OTF2_UNDEFINED_UINT32;
    const Comm& c = groups_[g];
    auto it = c.byInstance.find(e.get(Key::Root, -1));
    if (it == c.byInstance.end()) return OTF2_UNDEFINED_UINT32;
    auto pos = std::find(c.members.begin(), c.members.end(), it->second) - c.members.begin();
    return static_cast<std::uint32_t>(pos);
  }

  void definitions() {
    // Names first: every string a definition refers to.
    std::vector<StrId> hosts;
    std::map<StrId, OTF2_SystemTreeNodeRef> nodeOfHost;
    for (TaskIndex i = 0; i < t_.taskCount(); ++i)
      if (nodeOfHost.emplace(t_.task(i).host, static_cast<OTF2_SystemTreeNodeRef>(nodeOfHost.size() + 1)).second)
        hosts.push_back(t_.task(i).host);
    OTF2_StringRef sMachine = str("xab virtual machine"), sMachineClass = str("machine"), sNode = str("node"),
                   sWorld = str("pvm (all tasks)"), sLocations = str("tasks");
    for (StrId h : hosts) str(h < 0 ? "unknown host" : std::string(t_.str(h)));
    for (TaskIndex i = 0; i < t_.taskCount(); ++i) {
      str(t_.label(i));
      str(formatTid(t_.task(i).tid));
    }
    for (auto& [g, c] : groups_) str("group " + std::string(t_.str(g)));

    OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(ar_);
    TimeNs first = t_.firstTime(), lastT = t_.lastTime();
    OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, static_cast<std::uint64_t>(first),
                                              static_cast<std::uint64_t>(std::max<TimeNs>(0, lastT - first)),
                                              static_cast<std::uint64_t>(first));
    for (OTF2_StringRef k = 0; k < stringOrder_.size(); ++k)
      OTF2_GlobalDefWriter_WriteString(d, k, stringOrder_[k].c_str());
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, sMachine, sMachineClass, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    for (StrId h : hosts)
      OTF2_GlobalDefWriter_WriteSystemTreeNode(d, nodeOfHost[h], str(h < 0 ? "unknown host" : std::string(t_.str(h))),
                                               sNode, 0);
    for (TaskIndex i = 0; i < t_.taskCount(); ++i) {
      OTF2_GlobalDefWriter_WriteLocationGroup(d, i, str(t_.label(i)), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                              nodeOfHost[t_.task(i).host], OTF2_UNDEFINED_LOCATION_GROUP);
      OTF2_GlobalDefWriter_WriteLocation(d, i, str(formatTid(t_.task(i).tid)), OTF2_LOCATION_TYPE_CPU_THREAD,
                                         perLocation_[i], i);
    }
    for (OTF2_RegionRef r = 0; r < regions_.size(); ++r) {
      const Region& g = regions_[r];
      OTF2_GlobalDefWriter_WriteRegion(d, r, g.name, g.name, g.name, g.role, g.paradigm, OTF2_REGION_FLAG_NONE,
                                       OTF2_UNDEFINED_STRING, 0, 0);
    }
    std::vector<std::uint64_t> all(t_.taskCount());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    OTF2_GlobalDefWriter_WriteGroup(d, 0, sLocations, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(all.size()), all.data());
    OTF2_GlobalDefWriter_WriteGroup(d, 1, sWorld, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(all.size()), all.data());
    OTF2_GlobalDefWriter_WriteComm(d, kWorld, sWorld, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    for (auto& [g, c] : groups_) {
      std::vector<std::uint64_t> ranks(c.members.begin(), c.members.end());
      OTF2_GroupRef gr = 1 + commOf_[g];
      OTF2_StringRef name = str("group " + std::string(t_.str(g)));
      OTF2_GlobalDefWriter_WriteGroup(d, gr, name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                      OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(ranks.size()), ranks.data());
      OTF2_GlobalDefWriter_WriteComm(d, commOf_[g], name, gr, kWorld, OTF2_COMM_FLAG_NONE);
    }
  }

  const Trace& t_;
  std::string dir_;
  MessageTable mt_;
  Otf2WriteStats s_;
  OTF2_Archive* ar_ = nullptr;
  std::unordered_map<std::string, OTF2_StringRef> strings_;
  std::vector<std::string> stringOrder_;
  std::unordered_map<std::string, OTF2_RegionRef> regionIds_;
  std::vector<Region> regions_;
  std::map<StrId, Comm> groups_;
  std::map<StrId, OTF2_CommRef> commOf_;
  std::vector<std::uint64_t> perLocation_;
  std::unordered_map<TaskIndex, TimeNs> last_;
};

}  // namespace

Otf2WriteStats writeOtf2(const Trace& trace, const std::string& dir) { return Otf2Writer(trace, dir).run(); }

}  // namespace xab::tr
