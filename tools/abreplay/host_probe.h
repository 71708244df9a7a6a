// host_probe.h -- abreplay --record across hosts: every host's
// clock measured against this host's, at the record run's start and end,
// so that the record's stamps (each task stamps its own host's clock) can
// be put on one clock (xab/replay/host_clocks.h).
#pragma once

#include <string>

namespace xab::abreplay {

// Spawns `abreplay --clock-probe` on every host of the virtual machine
// (from a forked child, so that abreplay itself is no task of the run),
// answers each probe's ping-pong exchanges and appends them to DIR/clocks.
// `phase`: 0 before the run, 2 after.  A host where no probe starts keeps
// its own clock (said on stderr); no virtual machine: nothing is measured.
void measureHostClocks(const std::string& dir, int phase);

// The probe's main (`abreplay --clock-probe`, spawned by the above).
int clockProbe();

}  // namespace xab::abreplay
