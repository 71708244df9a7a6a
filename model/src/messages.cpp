// Sends matched to receives by (sender tid, serial).
#include <xab/model/messages.h>

#include <algorithm>

namespace xab {
namespace {

std::uint64_t key(std::uint32_t hi, std::uint32_t lo) {
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

struct PendingRecv {
  EventRef ref;
  Tid src;
  std::int32_t serial;
  std::int32_t bytes;
  TimeNs time;
};

Message makeMessage(const Trace& trace, EventRef ref, const Event& e) {
  Message m;
  m.send = ref;
  m.sender = ref.task;
  m.kind = e.kind;
  m.tag = e.get(Key::Tag);
  m.bytes = e.get(Key::Bytes);
  m.serial = e.get(Key::Serial);
  m.time = e.time;
  if (e.kind == Kind::BCAST) {
    m.group = e.get(Key::Group, -1);
    m.destinationsKnown = false;
  } else if (e.kind == Kind::MCAST) {
    auto l = trace.list(e.get(Key::Dst, -1));
    m.destinations.assign(l.begin(), l.end());
  } else {
    m.destinations.push_back(e.get(Key::Dst));
  }
  return m;
}

void collect(const Trace& trace, MessageTable& table, std::vector<PendingRecv>& recvs) {
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    const auto& ev = trace.events(t);
    for (std::uint32_t i = 0; i < ev.size(); ++i) {
      const Event& e = ev[i];
      if (e.phase != Phase::End) continue;
      if (isMsgOut(e.kind) && !(e.hasRc() && e.rc < 0)) {  // a failed send sent nothing
        auto idx = static_cast<std::uint32_t>(table.messages.size());
        table.messages.push_back(makeMessage(trace, {t, i}, e));
        const Message& m = table.messages.back();
        if (m.serial > 0) table.bySerial[key(t, static_cast<std::uint32_t>(m.serial))] = idx;
        table.byEvent[key(t, i)] = idx;
      } else if (isMsgIn(e.kind) && e.hasRc() && e.rc > 0) {
        recvs.push_back({{t, i}, e.get(Key::Src), e.get(Key::Serial), e.get(Key::Bytes), e.time});
      }
    }
  }
  table.sent = table.messages.size();
}

void addToPair(PairStats& p, std::int32_t bytes, TimeNs transit) {
  ++p.count;
  p.bytes += static_cast<std::uint64_t>(std::max(bytes, 0));
  p.transit = addTime(p.transit, std::max<TimeNs>(transit, 0));
}

void match(const Trace& trace, MessageTable& table, const std::vector<PendingRecv>& recvs) {
  for (const PendingRecv& r : recvs) {
    auto sender = trace.findTask(r.src);
    std::int64_t idx = sender && r.serial > 0 ? table.find(*sender, r.serial) : -1;
    if (idx < 0) {
      table.unmatched.push_back({r.ref, r.src, r.serial});
      continue;
    }
    Message& m = table.messages[static_cast<std::size_t>(idx)];
    m.receives.push_back({r.ref, r.ref.task, r.time});
    table.byEvent[key(r.ref.task, r.ref.index)] = static_cast<std::uint32_t>(idx);
    std::int32_t bytes = r.bytes > 0 ? r.bytes : m.bytes;
    addToPair(table.pairs[{m.sender, r.ref.task}], bytes, r.time - m.time);
    addToPair(table.total, bytes, r.time - m.time);
  }
}

void findUnreceived(const Trace& trace, MessageTable& table) {
  for (Message& m : table.messages) {
    for (Tid d : m.destinations) {
      bool got = std::any_of(m.receives.begin(), m.receives.end(), [&](const MessageReceive& r) {
        return trace.task(r.receiver).tid == d;
      });
      if (!got) m.unreceived.push_back(d);
    }
    if (!m.unreceived.empty()) ++table.neverReceived;
  }
}

}  // namespace

double PairStats::bandwidth() const {
  return transit > 0 ? static_cast<double>(bytes) * 1e9 / static_cast<double>(transit) : 0.0;
}

std::int64_t MessageTable::find(TaskIndex sender, std::int32_t serial) const {
  if (serial <= 0) return -1;
  auto it = bySerial.find(key(sender, static_cast<std::uint32_t>(serial)));
  return it == bySerial.end() ? -1 : static_cast<std::int64_t>(it->second);
}

std::int64_t MessageTable::messageOf(EventRef r) const {
  auto it = byEvent.find(key(r.task, r.index));
  return it == byEvent.end() ? -1 : static_cast<std::int64_t>(it->second);
}

MessageTable matchMessages(const Trace& trace) {
  MessageTable table;
  std::vector<PendingRecv> recvs;
  collect(trace, table, recvs);
  match(trace, table, recvs);
  findUnreceived(trace, table);
  return table;
}

}  // namespace xab
