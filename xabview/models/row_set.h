// row_set.h -- the rows of a filtered record list: the positions (in
// arrival order) a filter keeps, of the first n.
//
// Kept as the shorter of two sorted lists, 4 bytes an entry: the positions
// kept, or those dropped.  A filter that drops little (the default one
// leaves out only libab's own records) costs next to nothing; one that
// keeps little (one task of many), its rows.  The list switches sides
// when it grows past two thirds of the positions (so a filter near half
// does not switch back and forth).
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
    listKept_ = true;
    covered_ = 0;
  }
  // Positions covered so far: [0, covered()).
  std::size_t covered() const { return covered_; }
  std::size_t size() const { return listKept_ ? list_.size() : covered_ - list_.size(); }
  // The next keep.size() positions, from covered(): keep[i] says whether
  // position covered() + i is a row.
  void append(const std::vector<bool>& keep) {
    for (std::size_t i = 0; i < keep.size(); ++i)
      if (keep[i] == listKept_) list_.push_back(static_cast<std::uint32_t>(covered_ + i));
    covered_ += keep.size();
    if (list_.size() * 3 > covered_ * 2) switchSides();
  }
  // The position of row r (r < size()).
  std::size_t positionOf(std::size_t r) const {
    if (listKept_) return list_[r];
    // Rows before dropped entry k: list_[k] - k, rising with k.
    std::size_t lo = 0, hi = list_.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (list_[mid] - mid <= r) lo = mid + 1;
      else hi = mid;
    }
    return r + lo;
  }
  // Rows at positions before p.
  std::size_t rowsBefore(std::size_t p) const {
    const std::size_t below = static_cast<std::size_t>(std::lower_bound(list_.begin(), list_.end(), p) - list_.begin());
    return listKept_ ? below : std::min(p, covered_) - below;
  }
  // Whether position p is a row.
  bool contains(std::size_t p) const {
    if (p >= covered_) return false;
    return std::binary_search(list_.begin(), list_.end(), p) == listKept_;
  }
  std::size_t memoryBytes() const { return list_.capacity() * sizeof(std::uint32_t); }

 private:
  void switchSides() {
    std::vector<std::uint32_t> other;
    other.reserve(covered_ - list_.size());
    std::size_t k = 0;
    for (std::size_t p = 0; p < covered_; ++p) {
      if (k < list_.size() && list_[k] == p) ++k;
      else other.push_back(static_cast<std::uint32_t>(p));
    }
    list_ = std::move(other);
    listKept_ = !listKept_;
  }

  std::vector<std::uint32_t> list_;
  bool listKept_ = true;  // list_ holds the positions kept, else those dropped
  std::size_t covered_ = 0;
};

}  // namespace xab::view
