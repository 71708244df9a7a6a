// state_mipmap.cpp -- a task's states at levels of detail (state_mipmap.h).
#include "state_mipmap.h"

#include <algorithm>

namespace xab::view {
namespace {

// The state that covers most of a bin; kNoState if none covers any.
template <class Cover>
std::uint8_t dominant(const Cover& c) {
  auto best = std::max_element(c.begin(), c.end());
  return *best > 0 ? static_cast<std::uint8_t>(best - c.begin()) : kNoState;
}

}  // namespace

std::uint8_t StateMipmap::at(std::size_t level, TimeNs t) const {
  if (width0 == 0 || level >= levels.size() || t < firstShown(level)) return kNoState;
  auto bin = static_cast<std::size_t>((t - origin) / binWidth(level));
  return bin < levels[level].size() ? levels[level][bin] : kNoState;
}

std::size_t StateMipmap::memoryBytes() const {
  std::size_t n = 0;
  for (const auto& l : levels) n += l.capacityBytes();
  return n;
}

void MipmapBuilder::expect(TimeNs origin, TimeNs end) {
  if (width_ != 0) return;
  origin_ = folded_ = origin;
  width_ = kFirstWidth;
  while (static_cast<std::uint64_t>(end - origin_) > static_cast<std::uint64_t>(width_) * kMipBins) width_ *= 2;
}

void MipmapBuilder::fold(TimeNs begin, TimeNs end, TaskState state) {
  if (width_ == 0) expect(begin, end);
  const bool gap = begin > folded_;
  begin = std::max(begin, folded_);
  if (end <= begin) return;
  folded_ = end;
  // The task's time in at most kMipBins bins.
  while (static_cast<std::uint64_t>(end - origin_) > static_cast<std::uint64_t>(width_) * kMipBins) doubleWidth();
  const auto s = static_cast<std::size_t>(state);
  if (gap)  // the bins of a gap (before the first record of the run's window) close empty
    while (begin >= origin_ + static_cast<TimeNs>(closed_ + 1) * width_) close();
  while (begin < end) {
    const TimeNs binEnd = origin_ + static_cast<TimeNs>(closed_ + 1) * width_;
    const TimeNs upTo = std::min(end, binEnd);
    open_[0][s] += upTo - begin;
    begin = upTo;
    if (begin == binEnd) close();
  }
}

// Level 0's open bin closes; each level's bin that it completes closes in
// turn, its time added to the open bin above.
void MipmapBuilder::close() {
  ++closed_;
  for (std::size_t k = 0; k < kLevels; ++k) {
    Cover& bin = open_[k];
    levels_[k].push_back(dominant(bin));
    for (std::size_t s = 0; s < kStates; ++s) open_[k + 1][s] += bin[s];
    bin.fill(0);
    if (closed_ % (std::size_t{2} << k) != 0) break;  // the bin above is not complete
  }
}

void MipmapBuilder::doubleWidth() {
  // Level 1 becomes level 0: its open bin holds a lone closed bin of level
  // 0, if any; now the time folded into level 0's open bin too.
  for (std::size_t s = 0; s < kStates; ++s) open_[1][s] += open_[0][s];
  std::move(open_.begin() + 1, open_.end(), open_.begin());
  open_[kLevels].fill(0);  // the top's bins (at most one) are below it now
  levels_.erase(levels_.begin());
  levels_.emplace_back();
  closed_ /= 2;
  width_ *= 2;
}

StateMipmap MipmapBuilder::freeze() const {
  StateMipmap m;
  if (width_ == 0 || closed_ == 0) return m;
  m.origin = origin_;
  m.width0 = width_;
  for (const auto& l : levels_)  // up to the last with a closed bin
    if (!l.empty()) m.levels.push_back(l.freeze());
  return m;
}

}  // namespace xab::view
