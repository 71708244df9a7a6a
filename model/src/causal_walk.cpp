// causal_walk.cpp -- the trace's communication as the re-dating passes see
// it (xab/model/causal_walk.h).
#include <xab/model/causal_walk.h>

namespace xab::detail {

Communication measureCommunication(const Trace& trace, const MessageTable& m,
                                   const std::vector<std::vector<TimeNs>>* beginCost) {
  Communication c;
  c.sendOf.resize(trace.taskCount());
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) c.sendOf[t].assign(trace.events(t).size(), std::nullopt);
  TimeNs transfer = INT64_MAX, duration = INT64_MAX;
  for (const Message& msg : m.messages)
    for (const MessageReceive& r : msg.receives) {
      c.sendOf[r.recv.task][r.recv.index] = msg.send;
      transfer = std::min(transfer, std::max<TimeNs>(0, trace.event(r.recv).time - trace.event(msg.send).time));
    }
  c.transfer = transfer == INT64_MAX ? 0 : transfer;
  for (const Message& msg : m.messages)
    for (const MessageReceive& r : msg.receives) {
      auto b = beginOf(trace.events(r.recv.task), r.recv.index);
      if (!b) continue;
      TimeNs begin = trace.events(r.recv.task)[*b].time;
      if (trace.event(msg.send).time + c.transfer > begin) continue;  // it waited for its message
      TimeNs d = trace.event(r.recv).time - begin - (beginCost ? (*beginCost)[r.recv.task][*b] : 0);
      duration = std::min(duration, std::max<TimeNs>(0, d));
    }
  c.receiveDuration = duration == INT64_MAX ? 0 : duration;
  return c;
}

}  // namespace xab::detail
