// host_clocks.cpp -- DIR/clocks of a record, and each host's fit
// (xab/replay/host_clocks.h).
#include <xab/replay/host_clocks.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace xab::replay {

std::string formatHostClock(std::int32_t hostTid, const std::string& name, const ClockSample& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "clock %x %s %d %d %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
                static_cast<unsigned>(hostTid), name.c_str(), s.phase, s.number, static_cast<std::int64_t>(s.t1),
                static_cast<std::int64_t>(s.t2), static_cast<std::int64_t>(s.t3), static_cast<std::int64_t>(s.t4));
  return buf;
}

std::map<std::int32_t, HostClockSamples> readHostClocks(const std::string& dir) {
  std::map<std::int32_t, HostClockSamples> hosts;
  std::ifstream in(dir + "/clocks");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string what, tid, name;
    ClockSample s;
    if (!(words >> what >> tid >> name >> s.phase >> s.number >> s.t1 >> s.t2 >> s.t3 >> s.t4) || what != "clock")
      continue;
    auto host = static_cast<std::int32_t>(std::stoul(tid, nullptr, 16));
    hosts[host].name = name;
    hosts[host].samples.push_back(s);
  }
  return hosts;
}

std::map<std::int32_t, HostClockFit> fitHostClocks(const std::map<std::int32_t, HostClockSamples>& hosts) {
  std::map<std::int32_t, HostClockFit> fits;
  for (const auto& [tid, h] : hosts) {
    ClockFit fit = fitClock(h.samples);
    if (fit.valid) fits[tid] = {h.name, fit};
  }
  return fits;
}

}  // namespace xab::replay

#include <xab/replay/record_set.h>

namespace xab::replay {

// Every stamp of a task (its header's start, each entry's time) through its
// host's fit: the record on the reference host's clock.  A host without a
// fit (no probe ran there) keeps its own clock.
void RecordSet::putOnReferenceClock(const std::string& dir) {
  host_clocks_ = fitHostClocks(readHostClocks(dir));
  if (host_clocks_.empty()) return;
  for (auto& t : tasks_) {
    auto it = host_clocks_.find(hostOfTid(t.header.tid));
    if (it == host_clocks_.end()) continue;
    const ClockFit& fit = it->second.fit;
    t.header.start_ns = fit.toReference(t.header.start_ns);
    for (auto& e : t.entries)
      if (e.t_ns != 0) e.t_ns = fit.toReference(e.t_ns);
  }
}

}  // namespace xab::replay
