// picl2ab's passes over PICL records held in memory, shared by its
// rooms: picl_parse.cpp reads the lines into records, picl_pairs.cpp puts
// each node's records at one time stamp in nesting order and matches
// receives to sends, picl_reader.cpp maps the records to xab's
// (docs/picl-mapping.md, "Reading PICL").  Internal to the translators.
#pragma once

#include <xab/translators/picl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xab::tr::piclrec {

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

inline bool isEntry(const Rec& r) { return r.rectype == picl::kEntry; }
inline bool isExit(const Rec& r) { return r.rectype == picl::kExit; }

// What picl2ab makes of an MPICL event code (docs/picl-mapping.md).
enum class Role : std::uint8_t { Skip, Trace, Send, Recv, RecvLate, Probe, ProbeNone, Barrier, Reduce, Gather, Scatter, Spawn, Bcast };

inline Role roleOf(int ev) {
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
inline bool isBcastRoot(const Rec& r) { return r.nd >= 2 && r.d[1] == r.node; }
inline bool isBcastLeaf(const Rec& r) { return r.nd >= 2 && r.d[1] != r.node && r.d[1] >= 0 && r.d[1] < kMaxNodes; }

inline bool carriesMessage(const Rec& exit) { return exit.nd >= 3; }  // (bytes, tag, source)

// The distinct PICL node numbers, ascending: node ids[k] is task k.
struct Nodes {
  std::vector<std::int32_t> ids;
  std::size_t index(std::int32_t node) const {
    return static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), node) - ids.begin());
  }
};

// picl_parse.cpp: the first token of a line (false when it has none).
bool nextToken(std::string_view& rest, std::string_view& tok);
// One line into rec; "" or why it is malformed.
std::string parseLine(std::string_view line, Rec& rec);
// Reads every line into recs; false (res.error set) at a malformed line
// unless lenient.
bool readRecords(std::string_view text, const PiclReadOptions& o, std::vector<Rec>& recs, PiclReadResult& res);
// Makes every time non-negative; returns the shift.
TimeNs shiftTimes(std::vector<Rec>& recs);

// picl_pairs.cpp: each node's records at one time stamp in nesting order,
// entries linked to their exits.
void nestSameTime(std::vector<Rec>& recs, const Nodes& nodes);
// Gives sends and receives their serials; returns the receives left unmatched.
std::uint64_t matchMessages(std::vector<Rec>& recs, const Nodes& nodes);

}  // namespace xab::tr::piclrec
