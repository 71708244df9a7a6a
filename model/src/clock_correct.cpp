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

using Edge = decltype(Exchange::edge);

TimeNs transitOf(TimeNs sent, TimeNs got) {
  TimeNs d;
  if (__builtin_sub_overflow(got, sent, &d)) return got > sent ? INT64_MAX : -INT64_MAX;
  return std::max(d, -INT64_MAX);
}

// How much earlier than send + minTransfer the receive is under these
// shifts: (send + sendShift + minTransfer) - (receive + recvShift), > 0
// when it is too early.
TimeNs earliness(const Edge& e, TimeNs sendShift, TimeNs recvShift, TimeNs minTransfer) {
  return addTime(addTime(addTime(minTransfer, -e.transit), sendShift), -recvShift);
}

// The receives of every task: their record indexes (sorted, unique), and
// in one array the shift of each, which holds for the task's records up to
// its next receive.  Slot 0 is the shift of records before any receive
// (always 0); task t's receives have the slots from first[t] on.
struct Steps {
  std::vector<std::vector<std::uint32_t>> index;
  std::vector<std::uint32_t> first;  // per task + 1
  std::vector<TimeNs> shift;

  std::uint32_t slot(TaskIndex t, std::uint32_t record) const {
    const auto& idx = index[t];
    const auto after = std::upper_bound(idx.begin(), idx.end(), record) - idx.begin();
    return after == 0 ? 0 : first[t] + static_cast<std::uint32_t>(after - 1);
  }
};

// How late each edge's receive is against this pass's shifts (0: in time).
void lateness(const std::vector<Exchange>& edges, const std::vector<TimeNs>& shift, TimeNs minTransfer,
              std::vector<TimeNs>& late) {
  for (std::size_t k = 0; k < edges.size(); ++k) {
    const Edge& e = edges[k].edge;
    late[k] = std::max<TimeNs>(0, earliness(e, shift[e.sendSlot], shift[e.recvSlot], minTransfer));
  }
}

// One task's receives (slots [from, to), edges [begin, end) in slot
// order) moved by this pass: each by the most any receive at or before it
// was late.  A receive's amounts are taken in rising order, each above the
// task's running most counting as a move.
void moveTask(const std::vector<Exchange>& edges, const std::vector<TimeNs>& late, std::size_t begin, std::size_t end,
              std::uint32_t from, std::uint32_t to, std::vector<TimeNs>& shift, ClockReport& report) {
  TimeNs added = 0;
  std::uint32_t slot = from;
  std::vector<TimeNs> same;
  for (std::size_t k = begin; k < end;) {
    const std::uint32_t at = edges[k].edge.recvSlot;
    for (; slot < at; ++slot) shift[slot] = addTime(shift[slot], added);
    same.clear();
    for (; k < end && edges[k].edge.recvSlot == at; ++k)
      if (late[k] > 0) same.push_back(late[k]);
    if (same.size() > 1) std::sort(same.begin(), same.end());
    for (TimeNs amount : same)
      if (amount > added) {
        added = amount;
        ++report.receivesMoved;
        report.largestMove = std::max(report.largestMove, amount);
      }
  }
  for (; slot < to; ++slot) shift[slot] = addTime(shift[slot], added);
}

}  // namespace

TimeNs RecordShift::operator()(TaskIndex t, std::size_t i) const {
  if (perRecord_) return (*perRecord_)[t][i];
  const auto& from = steps_->from[t];
  const auto after = std::upper_bound(from.begin(), from.end(), i) - from.begin();
  return after == 0 ? 0 : steps_->shift[t][static_cast<std::size_t>(after - 1)];
}

RecordShift::Walk::Walk(const RecordShift& s, TaskIndex t) {
  if (s.perRecord_) {
    perRecord_ = &(*s.perRecord_)[t];
  } else if (t < s.steps_->from.size()) {
    from_ = &s.steps_->from[t];
    shift_ = &s.steps_->shift[t];
  }
}

TimeNs RecordShift::Walk::operator()(std::size_t i) {
  if (perRecord_) return (*perRecord_)[i];
  if (!from_) return 0;
  while (next_ < from_->size() && (*from_)[next_] <= i) ++next_;
  return next_ == 0 ? 0 : (*shift_)[next_ - 1];
}

std::vector<Exchange> exchanges(const Trace& trace, const MessageTable& m) {
  std::size_t receives = 0;
  for (std::size_t k = 0; k < m.messages.size(); ++k) receives += m.messages.receives(k).size();
  std::vector<Exchange> x;
  x.reserve(receives);  // one allocation: growth by doubling would raise the peak
  for (std::size_t k = 0; k < m.messages.size(); ++k) {
    const TimeNs sent = trace.event(m.messages.send(k)).time;
    for (const MessageReceive& r : m.messages.receives(k)) x.push_back({.times = {sent, trace.event(r.recv).time}});
  }
  return x;
}

CausalCorrection causalShifts(MessageTable m, std::vector<Exchange> edges, const std::vector<ClockFit>& fits,
                              TimeNs minTransfer, ClockReport& report) {
  const auto tasks = static_cast<TaskIndex>(fits.size());
  Steps steps;
  steps.index.resize(tasks);
  // Counted first: each task's list is allocated once, at its size.
  std::vector<std::uint32_t> perTask(tasks, 0);
  for (std::size_t k = 0; k < m.messages.size(); ++k)
    for (const MessageReceive& r : m.messages.receives(k)) ++perTask[r.recv.task];
  for (TaskIndex t = 0; t < tasks; ++t) steps.index[t].reserve(perTask[t]);
  perTask = {};
  for (std::size_t k = 0; k < m.messages.size(); ++k)
    for (const MessageReceive& r : m.messages.receives(k)) steps.index[r.recv.task].push_back(r.recv.index);
  steps.first.assign(tasks + 1, 1);
  for (TaskIndex t = 0; t < tasks; ++t) {
    auto& idx = steps.index[t];
    std::sort(idx.begin(), idx.end());
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    steps.first[t + 1] = steps.first[t] + static_cast<std::uint32_t>(idx.size());
  }
  // Each exchange's times become its edge, where they are.
  for (std::size_t k = 0, e = 0; k < m.messages.size(); ++k) {
    const EventRef send = m.messages.send(k);
    const std::uint32_t sendSlot = steps.slot(send.task, send.index);
    for (const MessageReceive& r : m.messages.receives(k)) {
      Exchange& x = edges[e++];
      const TimeNs sent = fits[send.task].toReference(x.times.sent);
      const TimeNs got = fits[r.recv.task].toReference(x.times.got);
      x.edge = {transitOf(sent, got), sendSlot, steps.slot(r.recv.task, r.recv.index)};
    }
  }
  m = MessageTable{};  // the edges hold all the passes read
  steps.shift.assign(steps.first[tasks], 0);  // allocated once the table is gone
  // By receiver, then record: a task's receives are one range of edges.
  std::sort(edges.begin(), edges.end(),
            [](const Exchange& a, const Exchange& b) { return a.edge.recvSlot < b.edge.recvSlot; });
  std::vector<std::size_t> begin(tasks + 1, edges.size());
  for (TaskIndex t = 0, k = 0; t < tasks; ++t) {
    while (k < edges.size() && edges[k].edge.recvSlot < steps.first[t]) ++k;
    begin[t] = k;
  }

  auto anyLate = [](auto from, auto to) { return std::any_of(from, to, [](TimeNs l) { return l > 0; }); };
  std::vector<TimeNs> late(edges.size());
  for (int pass = 0; pass < 64; ++pass) {
    lateness(edges, steps.shift, minTransfer, late);
    if (!anyLate(late.begin(), late.end())) break;
    for (TaskIndex t = 0; t < tasks; ++t)
      if (anyLate(late.begin() + static_cast<std::ptrdiff_t>(begin[t]), late.begin() + static_cast<std::ptrdiff_t>(begin[t + 1])))
        moveTask(edges, late, begin[t], begin[t + 1], steps.first[t], steps.first[t + 1], steps.shift, report);
  }

  CausalCorrection out;
  for (const Exchange& x : edges)
    out.violationsLeft += earliness(x.edge, steps.shift[x.edge.sendSlot], steps.shift[x.edge.recvSlot], minTransfer) > 0;
  out.shift.resize(tasks);
  for (TaskIndex t = 0; t < tasks; ++t) {
    const auto first = steps.shift.begin() + steps.first[t];
    out.shift[t].assign(first, first + static_cast<std::ptrdiff_t>(steps.index[t].size()));
  }
  out.from = std::move(steps.index);
  return out;
}

}  // namespace xab::detail
