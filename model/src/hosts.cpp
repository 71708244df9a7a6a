#include <xab/model/hosts.h>

#include <algorithm>
#include <utility>

namespace xab {
namespace {

HostFigures& entry(std::vector<HostFigures>& out, std::string_view host) {
  auto it = std::find_if(out.begin(), out.end(), [&](const HostFigures& h) { return h.host == host; });
  if (it != out.end()) return *it;
  HostFigures h;
  h.host = std::string(host);
  out.push_back(std::move(h));
  return out.back();
}

}  // namespace

std::vector<HostFigures> hostFigures(const Trace& t) {
  std::vector<HostFigures> out;
  for (TaskIndex k = 0; k < t.taskCount(); ++k) {
    const TaskInfo& i = t.task(k);
    HostFigures& h = entry(out, t.str(i.host));
    ++h.tasks;
    h.events += t.events(k).size();
    h.lost += i.lost + i.lostMessages;
  }
  for (const Event& e : t.monitorEvents()) {
    if (e.kind != Kind::RELAY_START && e.kind != Kind::RELAY_BATCH && e.kind != Kind::RELAY_STOP &&
        e.kind != Kind::HOST_DELETE)
      continue;
    HostFigures& h = entry(out, t.str(e.get(Key::Host, -1)));
    if (e.kind == Kind::HOST_DELETE) {
      h.deleted = true;
      h.how = std::string(t.str(e.get(Key::How, -1)));
    } else if (e.kind == Kind::RELAY_START) {
      h.relay = true;
    } else {
      ++h.batches;
      h.relayed += static_cast<std::uint64_t>(std::max(0, e.get(Key::Events)));
    }
  }
  return out;
}

}  // namespace xab
