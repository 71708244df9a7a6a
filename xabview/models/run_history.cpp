#include "run_history.h"

#include <algorithm>

namespace xab::view {

RunHistory::RunHistory(TimeNs origin, TimeNs width) : origin_(origin), width_(std::max<TimeNs>(1, width)), end_(origin) {}

void RunHistory::close(Task& task) {
  if (task.open == SIZE_MAX) return;
  auto best = std::max_element(task.acc.begin(), task.acc.end());
  if (*best > 0) {
    Bin& b = task.bins[task.open];
    b.state = static_cast<std::uint8_t>(best - task.acc.begin());
    b.share = static_cast<std::uint8_t>(std::min<TimeNs>(255, *best * 255 / width_));
  }
  task.acc.fill(0);
  task.open = SIZE_MAX;
}

// Pairs of bins become one: the state of the one with the larger share, at
// half its share (both halves' when they agree).  An open bin stays open:
// its closed partner's time joins its sums.
void RunHistory::doubleWidth() {
  for (Task& task : tasks_) {
    if (task.bins.empty()) continue;
    if (task.open != SIZE_MAX) {
      const std::size_t partner = task.open ^ 1;
      const Bin p = task.bins[partner];
      if (partner < task.open && p.state != kNone) task.acc[p.state] += static_cast<TimeNs>(p.share) * width_ / 255;
      task.open /= 2;
    }
    for (std::size_t i = 0; i < kBins / 2; ++i) {
      const Bin a = task.bins[2 * i], b = task.bins[2 * i + 1];
      Bin m;
      if (a.state == b.state) m = {a.state, static_cast<std::uint8_t>((a.share + b.share) / 2)};
      else m = a.share >= b.share ? Bin{a.state, static_cast<std::uint8_t>(a.share / 2)}
                                  : Bin{b.state, static_cast<std::uint8_t>(b.share / 2)};
      task.bins[i] = m;
    }
    std::fill(task.bins.begin() + kBins / 2, task.bins.end(), Bin{});
  }
  width_ *= 2;
}

void RunHistory::fold(TaskIndex t, TimeNs begin, TimeNs end, TaskState state) {
  begin = std::max(begin, origin_);
  if (end <= begin) return;
  if (t >= tasks_.size()) tasks_.resize(t + 1);
  Task& task = tasks_[t];
  if (task.bins.empty()) task.bins.resize(kBins);
  const auto s = static_cast<std::size_t>(state);
  while (end - origin_ > static_cast<TimeNs>(kBins) * width_) doubleWidth();
  end_ = std::max(end_, end);
  while (begin < end) {
    const auto bin = static_cast<std::size_t>((begin - origin_) / width_);
    if (bin != task.open) {
      close(task);
      task.open = bin;
    }
    const TimeNs binEnd = origin_ + static_cast<TimeNs>(bin + 1) * width_;
    const TimeNs to = std::min(end, binEnd);
    if (s < kStates) task.acc[s] += to - begin;
    begin = to;
  }
}

void RunHistory::settle() {
  for (Task& task : tasks_) close(task);
}

std::uint8_t RunHistory::stateIn(TaskIndex t, TimeNs from, TimeNs to) const {
  if (t >= tasks_.size() || tasks_[t].bins.empty() || to <= origin_ || from >= end_) return kNone;
  const Task& task = tasks_[t];
  const auto first = static_cast<std::size_t>(std::max<TimeNs>(0, from - origin_) / width_);
  const auto last = std::min(kBins - 1, static_cast<std::size_t>((std::max(to, from + 1) - 1 - origin_) / width_));
  std::array<unsigned, kStates> weight{};
  for (std::size_t i = first; i <= last; ++i)
    if (task.bins[i].state < kStates) weight[task.bins[i].state] += task.bins[i].share + 1u;
  auto best = std::max_element(weight.begin(), weight.end());
  return *best ? static_cast<std::uint8_t>(best - weight.begin()) : kNone;
}

std::size_t RunHistory::memoryBytes() const {
  std::size_t n = tasks_.capacity() * sizeof(Task);
  for (const Task& task : tasks_) n += task.bins.capacity() * sizeof(Bin);
  return n;
}

}  // namespace xab::view
