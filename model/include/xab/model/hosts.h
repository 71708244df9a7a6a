// Per-host collection figures: the tasks on each host, their
// records and lost events, and what the host's relay sent (relay.batch,
// relay.stop), or that the host left the virtual machine (host.delete).
// abstat's Hosts table and xabview's Input panel show them.
#pragma once

#include <xab/model/trace.h>

#include <cstdint>
#include <string>
#include <vector>

namespace xab {

struct HostFigures {
  std::string host;
  std::uint64_t tasks = 0;
  std::uint64_t events = 0;   // the records of its tasks in the trace
  std::uint64_t lost = 0;     // events its tasks dropped, and event messages missing
  bool relay = false;         // a relay collected there (relay.start)
  std::uint64_t batches = 0;  // relay.batch and relay.stop records
  std::uint64_t relayed = 0;  // the events those batches carried
  bool deleted = false;       // host.delete: it left the virtual machine
  std::string how;            // then: "delete" (pvm delete) or "lost" (its pvmd died); "" if older abmon
};

// In the order hosts first appear (a task's host, or a relay's).
std::vector<HostFigures> hostFigures(const Trace& t);

}  // namespace xab
