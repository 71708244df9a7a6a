// Global time's causality correction (clock_correct.h, docs/global-time.md).
//
// A receive that comes too early is moved forward to send + minTransfer,
// and every later record of its task with it (durations and order within
// the task stay as recorded, Chassin de Kergommeaux et al., §5.4).  Moving
// a task may make its later sends too late for others: repeated until
// nothing moves (bounded), each pass against the shifts of the pass
// before.
//
// A task's shift only ever grows at its receives: between two of them every
// record moves alike.  So a pass costs one look at each receive (its
// sender's shift is that of the sender's last receive at or before the
// send), not one at each record, and each task's records get their shift
// once, at the end.
#include "clock_correct.h"

#include <algorithm>

namespace xab::detail {

namespace {

// One receive of a message: where its send and its receive are, among the
// receives of their tasks.
struct Edge {
  TimeNs sent;                // the send's time
  TimeNs got;                 // the receive's time
  TaskIndex sender;
  std::uint32_t sendIndex;    // the send's record in its task
  std::int64_t sendAt = -1;        // position in the sender's receives of the last one at or before the send; -1: none
  TaskIndex receiver;
  std::uint32_t recvIndex;    // the receive's record in its task
  std::uint32_t recvAt = 0;   // position of that record in the receiver's receives
};

// The receives of every task: their record indexes (sorted, unique) and the
// shift of each, which holds for the task's records up to its next receive.
struct Steps {
  std::vector<std::vector<std::uint32_t>> index;
  std::vector<std::vector<TimeNs>> shift;

  TimeNs at(TaskIndex t, std::int64_t pos) const { return pos < 0 ? 0 : shift[t][static_cast<std::size_t>(pos)]; }
};

std::int64_t lastAtOrBefore(const std::vector<std::uint32_t>& sorted, std::uint32_t i) {
  return std::upper_bound(sorted.begin(), sorted.end(), i) - sorted.begin() - 1;
}

// How late each edge's receive is against this pass's shifts (0: in time).
void lateness(const std::vector<Edge>& edges, const Steps& s, TimeNs minTransfer, std::vector<TimeNs>& late) {
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const Edge& e = edges[k];
    const TimeNs sent = addTime(addTime(e.sent, s.at(e.sender, e.sendAt)), minTransfer);
    const TimeNs got = addTime(e.got, s.at(e.receiver, e.recvAt));
    TimeNs by;
    late[k] = got < sent && !__builtin_sub_overflow(sent, got, &by) ? by : 0;
  }
}

// One task's receives moved by this pass: each by the most any receive at
// or before it was late.  A receive's amounts are taken in rising order,
// each above the task's running most counting as a move.
void moveTask(const std::vector<Edge>& edges, const std::vector<TimeNs>& late, std::size_t begin, std::size_t end,
              std::vector<TimeNs>& shift, ClockReport& report) {
  TimeNs added = 0;
  std::uint32_t pos = 0;
  std::vector<TimeNs> same;
  for (std::size_t k = begin; k < end;) {
    const std::uint32_t at = edges[k].recvAt;
    for (; pos < at; ++pos) shift[pos] = addTime(shift[pos], added);
    same.clear();
    for (; k < end && edges[k].recvAt == at; ++k)
      if (late[k] > 0) same.push_back(late[k]);
    if (same.size() > 1) std::sort(same.begin(), same.end());
    for (TimeNs amount : same)
      if (amount > added) {
        added = amount;
        ++report.receivesMoved;
        report.largestMove = std::max(report.largestMove, amount);
      }
  }
  for (; pos < shift.size(); ++pos) shift[pos] = addTime(shift[pos], added);
}

}  // namespace

CausalCorrection causalShifts(const Trace& trace, const MessageTable& m, TimeNs minTransfer, ClockReport& report) {
  const TaskIndex tasks = static_cast<TaskIndex>(trace.taskCount());
  Steps steps;
  steps.index.resize(tasks);
  steps.shift.resize(tasks);
  std::vector<Edge> edges;
  for (const Message& msg : m.messages)
    for (const MessageReceive& r : msg.receives) {
      edges.push_back({trace.event(msg.send).time, trace.event(r.recv).time, msg.send.task, msg.send.index, -1,
                       r.recv.task, r.recv.index});
      steps.index[r.recv.task].push_back(r.recv.index);
    }
  for (TaskIndex t = 0; t < tasks; ++t) {
    auto& idx = steps.index[t];
    std::sort(idx.begin(), idx.end());
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    steps.shift[t].assign(idx.size(), 0);
  }
  for (Edge& e : edges) {
    e.sendAt = lastAtOrBefore(steps.index[e.sender], e.sendIndex);
    e.recvAt = static_cast<std::uint32_t>(lastAtOrBefore(steps.index[e.receiver], e.recvIndex));
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.receiver != b.receiver ? a.receiver < b.receiver : a.recvAt < b.recvAt;
  });
  std::vector<std::size_t> begin(tasks + 1, edges.size());
  for (std::size_t k = edges.size(); k-- > 0;) begin[edges[k].receiver] = k;
  for (TaskIndex t = tasks; t-- > 0;) begin[t] = std::min(begin[t], begin[t + 1]);

  std::vector<TimeNs> late(edges.size());
  for (int pass = 0; pass < 64; ++pass) {
    lateness(edges, steps, minTransfer, late);
    if (std::none_of(late.begin(), late.end(), [](TimeNs l) { return l > 0; })) break;
    for (TaskIndex t = 0; t < tasks; ++t)
      if (std::any_of(late.begin() + static_cast<std::ptrdiff_t>(begin[t]),
                      late.begin() + static_cast<std::ptrdiff_t>(begin[t + 1]), [](TimeNs l) { return l > 0; }))
        moveTask(edges, late, begin[t], begin[t + 1], steps.shift[t], report);
  }

  CausalCorrection out;
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const Edge& e = edges[k];
    out.violationsLeft += addTime(e.got, steps.at(e.receiver, e.recvAt)) <
                          addTime(addTime(e.sent, steps.at(e.sender, e.sendAt)), minTransfer);
  }
  out.shift.resize(tasks);
  for (TaskIndex t = 0; t < tasks; ++t) {
    std::vector<TimeNs>& s = out.shift[t];
    s.assign(trace.events(t).size(), 0);
    const auto& idx = steps.index[t];
    for (std::size_t p = 0; p < idx.size(); ++p) {
      const std::size_t to = p + 1 < idx.size() ? idx[p + 1] : s.size();
      std::fill(s.begin() + idx[p], s.begin() + static_cast<std::ptrdiff_t>(std::min(to, s.size())), steps.shift[t][p]);
    }
  }
  return out;
}

}  // namespace xab::detail
