// network_model.h -- XPVM's network view: the hosts of the virtual
// machine at the replay position, each with its tasks, what they are doing
// and the host's load, and the traffic between hosts up to then.
#pragma once

#include "activity.h"
#include "view_state.h"

#include <QString>

#include <array>
#include <cstdint>
#include <vector>

namespace xab::view {

struct NetworkHost {
  QString name;                              // as the tasks' host= says ("?" when unknown)
  std::vector<TaskIndex> tasks;              // in trace order
  std::array<int, kActivityCount> doing{};   // its tasks per activity at the position
  double load = -1;                          // its latest load average at or before then; -1: no sample
  int cpus = 0;
  // What the box says: the activity most of its live tasks are in
  // (blocked and barrier before computing: a host waiting is the news).
  Activity state() const;
};

// Messages from one host's tasks to another's, sent by the position.
struct NetworkLink {
  std::size_t from = 0, to = 0;  // indexes into NetworkPicture::hosts
  std::uint64_t messages = 0, bytes = 0;
  double bandwidth = 0;          // bytes per second over the received ones' transit; 0 none
};

struct NetworkPicture {
  std::vector<NetworkHost> hosts;  // in the order of their first task
  std::vector<NetworkLink> links;  // between two hosts, by (from, to)
  double maxBandwidth = 0;
};

// At the state's replay position.  Costs a pass over the messages sent by
// then (the message matrix's): computed while the view is shown only.
NetworkPicture networkAt(const ViewState& state);

// A host's line of text: "node1: 3 tasks (2 computing, 1 blocked), load 1.50 on 2 CPUs".
QString describeHost(const NetworkHost& h);

}  // namespace xab::view
