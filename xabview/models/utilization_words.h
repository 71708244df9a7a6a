// utilization_words.h -- the utilization strip's readout: how many tasks do
// what at a time, in words (its tool tip under the pointer).
#pragma once

#include "panel_words.h"
#include "utilization.h"

namespace xab::view {

inline QString utilizationText(const ViewState& state, TimeNs t) {
  const ViewSnapshot* s = state.snapshot();
  if (!s) return {};
  const auto n = utilizationAt(state, t);
  auto of = [&](Activity a) { return n[static_cast<std::size_t>(a)]; };
  return QStringLiteral("At %1 s, of %2 tasks: %3 computing, %4 communicating, %5 blocked, %6 in a barrier")
      .arg(seconds(*s, t)).arg(s->trace->taskCount())
      .arg(of(Activity::Computing)).arg(of(Activity::Communicating)).arg(of(Activity::Blocked)).arg(of(Activity::Barrier));
}

}  // namespace xab::view
