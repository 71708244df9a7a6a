// xab/translators/picl.h -- PICL 2.0 ("new PICL", Worley, ORNL/TM-12125),
// the trace format ParaGraph reads: writer (ab2picl) and reader (picl2ab,
// and the viewer opening a PICL file).  The mapping from PVM calls to PICL
// records is docs/picl-mapping.md.
#pragma once

#include <xab/model/reader.h>
#include <xab/translators/io.h>
#include <xab/traceformat/record.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace xab::tr {

// MPICL's event codes (record types -3 entry, -4 exit, -2 mark); the
// whole list and what picl2ab makes of each is docs/picl-mapping.md.
namespace picl {
inline constexpr int kMark = -2, kEntry = -3, kExit = -4;
inline constexpr int kTrace = -901, kSend = -21, kRecvWaiting = -51, kRecvBlocked = -52,
                     kProbeFound = -53, kProbeNotFound = -54, kBarrier = -402, kBcast = -785,
                     kReduce = -790, kSpawn = -503;
// Sends whose entry carries (bytes, tag, destination) like -21: buffered,
// synchronous, ready, and the begins of the four nonblocking sends.
inline constexpr int kBsend = -22, kSsend = -23, kRsend = -24, kIsend = -27, kIbsend = -33,
                     kIssend = -39, kIrsend = -45;
// Receives whose exit carries (bytes, tag, source) like -51/-52: a
// nonblocking receive found "done" by a status request, and its end
// (not blocked / blocked); blocking probes (not blocked / blocked).
inline constexpr int kRecvDone = -58, kRecvEnd = -60, kRecvEndBlocked = -61, kWaitFound = -55,
                     kWaitBlocked = -56;
// MPI collectives with an xab call.
inline constexpr int kAllgather = -780, kAllreduce = -782, kGather = -786, kReduceScatter = -791,
                     kScan = -792, kScatter = -793;
inline constexpr int kIntType = 2;  // data type code of integers
}  // namespace picl

// A receive "found its message waiting" (-51) when the message's send is
// no later than the receive's begin; with no send in the trace, when the
// receive lasted less than this.
inline constexpr TimeNs kWaitingThreshold = 50'000;

struct PiclWriteStats {
  std::uint64_t records = 0;
  std::uint64_t moved = 0;     // receives moved after their send (tachyons)
  std::uint64_t shifted = 0;   // events moved with a moved receive
  std::uint64_t skipped = 0;   // calls with no PICL event (pack, mytid, ...)
  std::vector<std::string> marks;  // user event code i+1 -> mark text
};

// Writes the whole trace as one time-sorted PICL stream.
PiclWriteStats writePicl(const Trace& trace, Sink& out);

// "node tid label" lines, then "event code text" lines for marks.
void writeNodeTable(const Trace& trace, const PiclWriteStats& stats, Sink& out);

struct PiclReadOptions {
  std::string name = "<stdin>";  // for messages: FILE in FILE:LINE: reason
  bool lenient = false;          // skip malformed lines instead of stopping
};

struct PiclReadResult {
  std::string error;             // "FILE:LINE: reason" of the first malformed line; "" if none
  std::vector<std::string> warnings;  // lenient: malformed lines skipped (first few)
  std::uint64_t records = 0;     // PICL records read
  std::uint64_t malformed = 0;   // lines skipped (lenient)
  std::uint64_t unknown = 0;     // records skipped: the sum of the two maps below
  std::map<std::int32_t, std::uint64_t> skipped;       // event code -> entry/exit/mark records skipped
  std::map<std::int32_t, std::uint64_t> skippedTypes;  // other record type -> records skipped
  std::uint64_t unmatched = 0;   // receives with no matching send
  TimeNs shift = 0;              // added to every time (> 0 when the file has negative times)
  int nodes = 0;                 // distinct node numbers
};

// Translates PICL text to the xab text trace (docs/trace-format.md):
// node n becomes task t40001+n named "node", messages get serials per
// sender in send order, matched to receives per (src, dst, tag) in order.
PiclReadResult piclToXab(std::string_view picl, Sink& out, const PiclReadOptions& o = {});
// The same records into any RecordSink (the model's TraceBuilder: a Trace
// with no text between).
PiclReadResult piclToRecords(std::string_view picl, text::RecordSink& out, const PiclReadOptions& o = {});

// A PICL file loaded as a trace, for the viewer and abstat.
LoadResult loadPiclFile(const std::string& path);
LoadResult loadPiclText(std::string_view text, const std::string& name = "<text>");

// True when the text starts like a PICL trace (a first record line of
// integers and a time), not like an xab trace.
bool looksLikePicl(std::string_view head);

// The tid node n gets in picl2ab's output.
inline Tid piclNodeTid(int node) { return 0x40001 + node; }

}  // namespace xab::tr
