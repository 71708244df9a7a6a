// monitor_filter.cpp -- filtering at the source changed live (monitor.h;
// xab/control_protocol.h "filter"): the control socket's request becomes
// a filter poke to each task (wire.h, "Pokes").
#include "monitor.h"

#include <pvm3.h>
#include <spdlog/spdlog.h>
#include <xab/wire.h>

#include "mailbox.h"

namespace xab::abmon {

std::string Monitor::filterTasks(std::int32_t tid, unsigned omit, std::vector<std::int32_t>& told) {
  auto reachable = [this](std::int32_t t) { return sessions_.takesPokes(t) && !sessions_.finalSeen(t); };
  if (tid != Control::kAllTasks) {
    if (!sessions_.known(tid))
      return fmt::format("t{:x} is not a task of this abmon (none, gone, or reached through a relay)", tid);
    if (!reachable(tid))
      return fmt::format("t{:x} takes no pokes (abmon --poke-ms 0, its own handler took abmon's context, or it has ended)", tid);
    told.push_back(tid);
  } else {
    for (std::int32_t t : sessions_.tids())
      if (reachable(t)) told.push_back(t);
  }
  for (std::int32_t t : told) pokeFilter(t, omit);
  // pvm_send reads whatever has come in meanwhile into PVM's own queue,
  // where no socket wakes us for it: take it now.
  if (!told.empty() && drain()) watchPvmFds();
  return {};
}

// The key, XAB_POKE_FILTER, the families; through pvmd like every poke.
void Monitor::pokeFilter(std::int32_t tid, unsigned omit) {
  const int words[2] = {XAB_POKE_FILTER, static_cast<int>(omit)};
  int rc = sendPoke(tid, words);
  if (rc < 0) spdlog::warn("filter poke to t{:x}: {}", tid, pvmErrorName(rc));
}

}  // namespace xab::abmon
