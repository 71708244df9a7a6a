// xab/model/chunked_vector.h -- an append-only vector whose elements never
// move, and whose full chunks are shared (not copied) by snapshots.
//
// Why: a 10-million-event trace must not pay a std::vector's doubling (up to
// 2x memory, and a copy of everything), and the viewer wants a cheap
// immutable snapshot while the reader keeps appending.  Chunk k holds
// min(kMin << k, kMax) elements, and kMin is 1 by default, so a task with
// one event costs one slot and one with five costs at most eight: a trace
// that names 100,000 tasks once each must not cost 100,000 blocks.  A chunk that is full is never written
// again; freeze() shares it and copies only the last, partial chunk.
// Elements change only through rewrite(), on a vector that shares no chunk
// (sole()), so a shared chunk cannot change.
// Never push_back() on a frozen copy: its last chunk is exact-size.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <memory>
#include <vector>

namespace xab {

template <class T, std::size_t kMinLog2 = 0, std::size_t kMaxLog2 = 12>
class ChunkedVector {
 public:
  static constexpr std::size_t kMin = std::size_t{1} << kMinLog2;
  static constexpr std::size_t kMax = std::size_t{1} << kMaxLog2;
  static constexpr std::size_t kGrowing = kMaxLog2 - kMinLog2 + 1;  // chunks before size kMax
  static constexpr std::size_t kGrowingSize = kMin * ((std::size_t{1} << kGrowing) - 1);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  const T& operator[](std::size_t i) const {
    auto [c, o] = locate(i);
    return (*chunks_[c])[o];
  }
  const T& back() const { return (*this)[size_ - 1]; }

  void push_back(const T& v) {
    if (chunks_.empty() || chunks_.back()->size() == chunks_.back()->capacity()) grow();
    chunks_.back()->push_back(v);
    ++size_;
  }

  // Elements [from, other.size()) of `other` appended, a run of a chunk at
  // a time (a window's later part moved into a vector of its own).
  void append(const ChunkedVector& other, std::size_t from) {
    while (from < other.size_) {
      const auto [c, o] = locate(from);
      const std::vector<T>& src = *other.chunks_[c];
      if (chunks_.empty() || chunks_.back()->size() == chunks_.back()->capacity()) grow();
      std::vector<T>& dst = *chunks_.back();
      const std::size_t n = std::min(src.size() - o, dst.capacity() - dst.size());
      dst.insert(dst.end(), src.begin() + static_cast<std::ptrdiff_t>(o), src.begin() + static_cast<std::ptrdiff_t>(o + n));
      size_ += n;
      from += n;
    }
  }

  // An independent copy that shares every full chunk with this one.  Full
  // chunks are never written again, so both may be read from different
  // threads while this one keeps appending.
  ChunkedVector freeze() const {
    ChunkedVector out;
    out.chunks_.reserve(chunks_.size());
    for (const auto& c : chunks_) {
      if (c->size() == c->capacity()) {
        out.chunks_.push_back(c);
      } else {
        auto copy = std::make_shared<std::vector<T>>();
        copy->reserve(c->size());  // exact: a frozen copy never grows
        copy->assign(c->begin(), c->end());
        out.chunks_.push_back(std::move(copy));
      }
    }
    out.size_ = size_;
    return out;
  }

  // Bytes held by the chunks (capacity, not size): for the memory figures.
  std::size_t capacityBytes() const {
    std::size_t n = 0;
    for (const auto& c : chunks_) n += c->capacity() * sizeof(T);
    return n;
  }

  // Whether no other vector shares a chunk with this one (none was frozen
  // from it, nor it from another): then its elements may change in place.
  bool sole() const {
    for (const auto& c : chunks_)
      if (c.use_count() != 1) return false;
    return true;
  }
  // f(element, index) on every element, which it may change: only on a
  // sole() vector.
  template <class F>
  void rewrite(F&& f) {
    std::size_t i = 0;
    for (auto& c : chunks_)
      for (T& v : *c) f(v, i++);
  }

  template <class F>
  void forEach(F&& f) const {
    for (const auto& c : chunks_)
      for (const T& v : *c) f(v);
  }

 private:
  static std::size_t chunkCapacity(std::size_t k) {
    return k < kGrowing ? (kMin << k) : kMax;
  }
  static std::pair<std::size_t, std::size_t> locate(std::size_t i) {
    if (i < kGrowingSize) {
      std::size_t k = std::bit_width(i / kMin + 1) - 1;
      return {k, i - kMin * ((std::size_t{1} << k) - 1)};
    }
    std::size_t r = i - kGrowingSize;
    return {kGrowing + r / kMax, r % kMax};
  }
  void grow() {
    auto c = std::make_shared<std::vector<T>>();
    c->reserve(chunkCapacity(chunks_.size()));
    chunks_.push_back(std::move(c));
  }

  std::vector<std::shared_ptr<std::vector<T>>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace xab
