// row_set.h -- the rows of a filtered record list: the positions (in
// arrival order) a filter keeps, of the first n.
//
// Kept as the shorter of two sorted lists, 4 bytes an entry: the positions
// kept, or those dropped.  A filter that drops little (the default one
// leaves out only libab's own records) costs next to nothing; one that
// keeps little (one task of many), its rows.  The list switches sides
// when it grows past two thirds of the positions (so a filter near half
// does not switch back and forth).
//
// A budget's later window (ViewSnapshot::Shift) moves the rows rather than
// make them again: the list's entries are positions plus a bias (modulo
// 2^32, a window being shorter than that), so moving every position back
// is a change of the bias, and the entries before the kept ones are
// skipped, not erased (their room is taken back when the list would
// otherwise grow, or for the carried records' entries in front).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace xab::view {

class RowSet {
 public:
  void clear() {
    list_ = {};
    head_ = 0;
    bias_ = 0;
    listKept_ = true;
    covered_ = 0;
  }
  // Positions covered so far: [0, covered()).
  std::size_t covered() const { return covered_; }
  std::size_t size() const { return listKept_ ? entries() : covered_ - entries(); }
  // The next keep.size() positions, from covered(): keep[i] says whether
  // position covered() + i is a row.
  void append(const std::vector<bool>& keep) {
    for (std::size_t i = 0; i < keep.size(); ++i)
      if (keep[i] == listKept_) push(covered_ + i);
    covered_ += keep.size();
    if (entries() * 3 > covered_ * 2) switchSides();
  }
  // The same positions in a later window: those before `firstKept` gone,
  // the others moved back by `shift` (position p is p - shift), and in
  // front the new window's first front.size() positions (front[i]: whether
  // position i is a row), which must end where the moved ones begin
  // (shift <= firstKept <= covered(), front.size() == firstKept - shift).
  // Costs the front and the logarithm of the list, not the positions moved.
  void shift(std::size_t firstKept, std::size_t shift, const std::vector<bool>& front) {
    head_ = lowerBound(firstKept);
    bias_ += static_cast<std::uint32_t>(shift);  // entry - bias_ is its position less shift
    covered_ -= shift;
    std::size_t add = 0;
    for (bool k : front) add += k == listKept_;
    if (add > head_) compact(add);
    for (std::size_t i = front.size(); i-- > 0;)
      if (front[i] == listKept_) list_[--head_] = static_cast<std::uint32_t>(i) + bias_;
    if (entries() * 3 > covered_ * 2) switchSides();
  }
  // The position of row r (r < size()).
  std::size_t positionOf(std::size_t r) const {
    if (listKept_) return at(r);
    // Rows before dropped entry k: at(k) - k, rising with k.
    std::size_t lo = 0, hi = entries();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (at(mid) - mid <= r) lo = mid + 1;
      else hi = mid;
    }
    return r + lo;
  }
  // Rows at positions before p.
  std::size_t rowsBefore(std::size_t p) const {
    const std::size_t below = lowerBound(p) - head_;
    return listKept_ ? below : std::min(p, covered_) - below;
  }
  // Whether position p is a row.
  bool contains(std::size_t p) const {
    if (p >= covered_) return false;
    const std::size_t i = lowerBound(p);
    return (i < list_.size() && at(i - head_) == p) == listKept_;
  }
  std::size_t memoryBytes() const { return list_.capacity() * sizeof(std::uint32_t); }

 private:
  std::size_t entries() const { return list_.size() - head_; }
  // The position of entry i (from head_).
  std::size_t at(std::size_t i) const { return static_cast<std::uint32_t>(list_[head_ + i] - bias_); }
  // The index in list_ of the first entry at or after position p.
  std::size_t lowerBound(std::size_t p) const {
    const auto it = std::partition_point(list_.begin() + static_cast<std::ptrdiff_t>(head_), list_.end(),
                                         [&](std::uint32_t v) { return static_cast<std::uint32_t>(v - bias_) < p; });
    return static_cast<std::size_t>(it - list_.begin());
  }
  void push(std::size_t p) {
    // The skipped entries' room is taken back where the list would grow
    // anyway (the same copy).
    if (head_ > 0 && list_.size() == list_.capacity()) compact(0);
    list_.push_back(static_cast<std::uint32_t>(p) + bias_);
  }
  // The entries copied to a list of their own with `room` free entries
  // before them, and as many again after them as they are.
  void compact(std::size_t room) {
    std::vector<std::uint32_t> moved;
    moved.reserve(room + 2 * entries() + 64);
    moved.resize(room);
    moved.insert(moved.end(), list_.begin() + static_cast<std::ptrdiff_t>(head_), list_.end());
    list_ = std::move(moved);
    head_ = room;
  }
  void switchSides() {
    std::vector<std::uint32_t> other;
    other.reserve(covered_ - entries());
    std::size_t k = 0;
    const std::size_t n = entries();
    for (std::size_t p = 0; p < covered_; ++p) {
      if (k < n && at(k) == p) ++k;
      else other.push_back(static_cast<std::uint32_t>(p));
    }
    list_ = std::move(other);
    head_ = 0;
    bias_ = 0;
    listKept_ = !listKept_;
  }

  std::vector<std::uint32_t> list_;  // from head_: position + bias_ (mod 2^32), rising
  std::size_t head_ = 0;             // entries before it are of positions moved out
  std::uint32_t bias_ = 0;
  bool listKept_ = true;  // the list holds the positions kept, else those dropped
  std::size_t covered_ = 0;
};

}  // namespace xab::view
