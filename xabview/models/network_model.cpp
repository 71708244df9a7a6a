// XPVM's network view, its content (network_model.h).
#include "network_model.h"

#include "panel_models.h"

#include <algorithm>
#include <map>

namespace xab::view {

Activity NetworkHost::state() const {
  for (Activity a : {Activity::Blocked, Activity::Barrier, Activity::Computing, Activity::Communicating})
    if (doing[static_cast<std::size_t>(a)] > 0) return a;
  return doing[static_cast<std::size_t>(Activity::Exited)] > 0 ? Activity::Exited : Activity::NotStarted;
}

NetworkPicture networkAt(const ViewState& st) {
  NetworkPicture out;
  const ViewSnapshot* s = st.snapshot();
  if (!s || !s->trace || !s->analysis) return out;
  const Trace& trace = *s->trace;
  std::map<StrId, std::size_t> index;  // host name -> its box
  std::vector<std::size_t> hostOf(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    const StrId name = trace.task(t).host;
    auto [it, added] = index.try_emplace(name, out.hosts.size());
    if (added) {
      NetworkHost h;
      h.name = name < 0 ? QString("?") : QString::fromUtf8(trace.str(name).data(), static_cast<qsizetype>(trace.str(name).size()));
      out.hosts.push_back(std::move(h));
    }
    NetworkHost& h = out.hosts[it->second];
    hostOf[t] = it->second;
    h.tasks.push_back(t);
    ++h.doing[static_cast<std::size_t>(describeTask(st, t).kind)];
  }
  const TimeNs now = st.cursorTime();
  const SampleReport& samples = s->analysis->model.samples;
  for (NetworkHost& h : out.hosts) {
    const HostLoad* load = samples.host(h.name.toStdString());
    const LoadPoint* at = load ? load->at(now) : nullptr;
    if (!at) continue;
    h.load = at->load;
    h.cpus = at->cpus;
  }
  std::map<std::pair<std::size_t, std::size_t>, std::pair<NetworkLink, TimeNs>> links;  // with the transit
  for (const auto& [pair, at] : pairsAt(*s, st.position())) {
    const std::size_t a = hostOf[pair.first], b = hostOf[pair.second];
    if (a == b) continue;
    auto& [link, transit] = links[{a, b}];
    link.from = a;
    link.to = b;
    link.messages += at.count;
    link.bytes += at.bytes;
    link.bandwidth += static_cast<double>(at.receivedBytes);  // summed here, divided below
    transit += at.transit;
  }
  for (auto& [key, lt] : links) {
    NetworkLink link = lt.first;
    link.bandwidth = lt.second > 0 ? link.bandwidth / (static_cast<double>(lt.second) / 1e9) : 0;
    out.maxBandwidth = std::max(out.maxBandwidth, link.bandwidth);
    out.links.push_back(link);
  }
  return out;
}

QString describeHost(const NetworkHost& h) {
  QStringList doing;
  for (int a = 0; a < kActivityCount; ++a)
    if (h.doing[static_cast<std::size_t>(a)] > 0)
      doing << QStringLiteral("%1 %2").arg(h.doing[static_cast<std::size_t>(a)]).arg(activityName(static_cast<Activity>(a)));
  QString out = QStringLiteral("%1: %2 task%3 (%4)")
                    .arg(h.name)
                    .arg(h.tasks.size())
                    .arg(h.tasks.size() == 1 ? "" : "s")
                    .arg(doing.join(", "));
  if (h.load >= 0) out += QStringLiteral(", load %1 on %2 CPU%3").arg(h.load, 0, 'f', 2).arg(h.cpus).arg(h.cpus == 1 ? "" : "s");
  return out;
}

}  // namespace xab::view
