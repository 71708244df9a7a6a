#include "call_counts.h"

#include <algorithm>

namespace xab::view {

void CallCounts::clear() {
  total_.fill(0);
  blocks_.clear();
  firstBlock_ = 0;
  counted_ = 0;
  carried_ = 0;
  start_ = 0;
  fromHistory_ = false;
  any_ = false;
}

bool CallCounts::update(const ViewSnapshot* s) {
  if (!s || !s->trace) {
    const bool had = any_;
    clear();
    return had;
  }
  const std::uint64_t start = s->windowStart();
  const bool changed = !any_ || start != start_ || s->fromHistory != fromHistory_ || s->size() < counted_;
  if (changed) {
    const auto shift = any_ ? s->shiftFrom(start_, counted_, fromHistory_) : std::nullopt;
    if (shift && s->size() + shift->shift >= counted_) {
      move(*s, *shift);
    } else {
      clear();
      carried_ = s->trace->cut().cut ? s->trace->cut().carried : 0;
    }
    start_ = start;
    fromHistory_ = s->fromHistory;
    any_ = true;
  }
  const std::size_t from = counted_;
  count(*s, counted_, s->size());
  return changed || s->size() > from;
}

void CallCounts::move(const ViewSnapshot& s, const ViewSnapshot::Shift& shift) {
  // What the window keeps begins at run position `kept`: the blocks wholly
  // before it go, the one it falls in keeps only what is at or after it.
  const std::uint64_t start = s.windowStart();
  const std::uint64_t kept = start + shift.carried;
  while (!blocks_.empty() && (firstBlock_ + 1) * kBlock <= kept) {
    blocks_.pop_front();
    ++firstBlock_;
  }
  if (blocks_.empty()) firstBlock_ = kept / kBlock;
  counted_ -= static_cast<std::size_t>(shift.shift);
  carried_ = static_cast<std::size_t>(shift.carried);
  if (!blocks_.empty() && firstBlock_ * kBlock < kept) {
    blocks_.front().fill(0);
    const auto end = std::min<std::uint64_t>((firstBlock_ + 1) * kBlock - start, counted_);
    s.forEachRecord(carried_, static_cast<std::size_t>(end), [&](std::size_t, const OrderEntry&, const RecordRef& r) {
      ++blocks_.front()[static_cast<std::size_t>(r.shape().kind)];
    });
    read_ += end > carried_ ? end - carried_ : 0;
  }
  total_.fill(0);
  for (const Counts& b : blocks_)
    for (std::size_t k = 0; k < b.size(); ++k) total_[k] += b[k];
  // The carried records, new in front.
  s.forEachRecord(0, carried_, [&](std::size_t, const OrderEntry&, const RecordRef& r) {
    ++total_[static_cast<std::size_t>(r.shape().kind)];
  });
  read_ += carried_;
}

CallCounts::Counts& CallCounts::blockOf(std::uint64_t run) {
  const std::uint64_t b = run / kBlock;
  if (blocks_.empty()) firstBlock_ = b;
  while (firstBlock_ + blocks_.size() <= b) blocks_.emplace_back().fill(0);
  return blocks_[static_cast<std::size_t>(b - firstBlock_)];
}

void CallCounts::count(const ViewSnapshot& s, std::size_t from, std::size_t to) {
  if (from >= to) return;
  // The block changes every kBlock positions: looked up at each boundary.
  Counts* block = nullptr;
  std::uint64_t blockEnd = 0;
  s.forEachRecord(from, to, [&](std::size_t p, const OrderEntry&, const RecordRef& r) {
    const auto k = static_cast<std::size_t>(r.shape().kind);
    ++total_[k];
    if (p < carried_) return;  // carried: in no block of the run's positions
    const std::uint64_t run = start_ + p;
    if (!block || run >= blockEnd) {
      block = &blockOf(run);
      blockEnd = (run / kBlock + 1) * kBlock;
    }
    ++(*block)[k];
  });
  read_ += to - from;
  counted_ = to;
}

}  // namespace xab::view
