// xab/replay/host_clocks.h -- the clocks of a record's hosts:
// in record mode each task stamps its own host's clock, and there is no
// abmon to measure it.  `abreplay --record` measures every host's clock
// against its own host's (the command's) by ping-pong exchanges at the
// run's start and end and writes them to DIR/clocks; a RecordSet puts
// each task's stamps on that one clock through the model's clock fit
// (clock.h, fitClock), so that the correction's anchors agree.
//
// DIR/clocks is text, one line per exchange (t1, t4: the host's clock
// around it; t2, t3: the reference host's, at the probe's ping and the
// pong; ns):
//   clock HOST-TID NAME PHASE NUMBER T1 T2 T3 T4
// HOST-TID is the host's pvmd tid in hex (a task's tid with its local
// part cleared); PHASE 0 at the start, 2 at the end.  This header is the
// one owner of the format: abreplay writes lines with formatHostClock, a
// RecordSet reads them with readHostClocks.
#pragma once

#include <xab/model/clock.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace xab::replay {

struct HostClockSamples {
  std::string name;
  std::vector<ClockSample> samples;
};

// PVM's host part of a tid (bits 18..29): the pvmd tid of the task's host.
inline std::int32_t hostOfTid(std::int32_t tid) { return tid & 0x3ffc0000; }

// One line of DIR/clocks (with its newline).
std::string formatHostClock(std::int32_t hostTid, const std::string& name, const ClockSample& s);
// DIR/clocks by host tid; empty when the file is not there (a record made
// without abreplay, or by an older one).  Lines that do not parse are skipped.
std::map<std::int32_t, HostClockSamples> readHostClocks(const std::string& dir);

// Per host, the fit of its clock on the reference host's.
struct HostClockFit {
  std::string name;
  ClockFit fit;
};
std::map<std::int32_t, HostClockFit> fitHostClocks(const std::map<std::int32_t, HostClockSamples>& hosts);

}  // namespace xab::replay
