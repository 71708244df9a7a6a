// xab/translators/otf2.h -- an xab trace as an OTF2 archive (Score-P's
// format, read by Vampir and otf2-print): a location per task, a region
// per PVM call (Enter/Leave), messages as MpiSend/MpiRecv on one
// communicator of all tasks (rank = node number = task index), barriers
// and reduce/gather/scatter as collectives on a communicator per group.
// Built only when Debian's libotf2-trace-dev is found.
#pragma once

#include <xab/translators/stream.h>

#include <cstdint>
#include <memory>
#include <string>

namespace xab::tr {

struct Otf2WriteStats {
  std::string error;            // "" on success
  std::uint64_t events = 0;     // event records over all locations
  std::uint64_t sends = 0, receives = 0, collectives = 0;
  std::uint32_t locations = 0, regions = 0;
};

// Writes DIR/traces.otf2 (anchor), DIR/traces.def and DIR/traces/ (one
// event file per task) as records are fed to stream(); the archive is
// created at the first record and finished by finish().  error() is set
// at once when DIR already holds an archive; feeding then does nothing.
class Otf2Stream {
 public:
  explicit Otf2Stream(const std::string& dir);
  ~Otf2Stream();
  TraceStream& stream();
  const std::string& error() const;
  Otf2WriteStats finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A whole trace, through Otf2Stream.
Otf2WriteStats writeOtf2(const Trace& trace, const std::string& dir);

}  // namespace xab::tr
