// xab/model/event_store.h -- one task's events, stored compactly.
//
// A trace of a busy hour holds billions of records; at 56 bytes an Event
// the store would not fit.  Here a task's events are kept as bytes, in
// blocks of kBlock events: a block's head holds a byte per event naming
// its shape (kind, phase and which fields it has) in the task's shape
// table; then each event's time, arrival time (as its offset from the
// time) and arrival number as a difference from the event before it, its
// rc and the fields it has, all as variable-length integers (a zigzag
// value, its length in the first byte).  A ring of 16
// tasks sending, receiving, packing and synchronizing clocks takes about
// 12 bytes an event (docs/model-memory.md, "The event store").
//
// Reading is by value: operator[] decodes the event's block into a small
// per-thread cache of decoded blocks, so a walk in order decodes each block
// once; forEach() decodes as it goes and is the fastest walk; a Cursor holds
// the block it read last, for walks of several stores at once.  A block
// begins with its events' shape bytes, so Cursor::shape() tells an event's
// kind, phase and fields without decoding it (filters by call).
//
// Like ChunkedVector, the store is append-only and freeze() gives an
// independent copy that shares every byte written so far: bytes are never
// written twice and never move while a copy may read them, so the reader
// thread may keep appending while snapshots are read on other threads.
// Events change only through rewrite(), on a store that shares nothing
// (sole()): it encodes the changed events afresh.  A copy re-dated as it
// is read (redated(): global time beside the times as recorded) shares
// every byte and costs its re-dating's parameters only.
#pragma once

#include <xab/model/chunked_vector.h>
#include <xab/model/event.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace xab {

class EventStore {
 public:
  static constexpr std::uint32_t kBlock = 32;  // events per block

  std::size_t size() const { return blocks_.size() * kBlock + open_.count; }
  bool empty() const { return size() == 0; }

  Event operator[](std::size_t i) const {
    const std::size_t b = i / kBlock;
    const Block& block = b < blocks_.size() ? blocks_[b] : open_;
    return decoded(block, b, static_cast<std::uint32_t>(i % kBlock) + 1)[i % kBlock];
  }
  Event back() const { return (*this)[size() - 1]; }

  // Never on a frozen copy.
  void push_back(const Event& e);

  EventStore() = default;
  EventStore(EventStore&&) = default;
  EventStore& operator=(EventStore&&) = default;
  EventStore(const EventStore&) = delete;  // freeze() makes the copies
  EventStore& operator=(const EventStore&) = delete;

  // An independent copy that shares every byte written so far.
  EventStore freeze() const;

  // A re-dating of decoded events: f(events, index of the first, count)
  // changes their times (only their times) in place.
  using Redate = std::function<void(Event*, std::size_t, std::uint32_t)>;
  // A frozen copy whose events read as `f` re-dates them (after the
  // re-dating this store has, if any): sharing every byte, like freeze().
  EventStore redated(Redate f) const;

  // Bytes held (pages, block table, shape table): for the memory figures.
  std::size_t capacityBytes() const;

  // Blocks decoded (whole or their first events) on this thread so far, by
  // any store: what a walk costs (a walk in order decodes each block once;
  // reading shapes, none).
  static std::uint64_t blocksDecoded();

  // Whether no other store shares this one's bytes: then rewrite() may run.
  bool sole() const;

  // f(event, index) on every event, which it may change: only on a sole()
  // store.  The events are encoded again.
  template <class F>
  void rewrite(F&& f) {
    EventStore out;
    std::size_t i = 0;
    forEach([&](const Event& e) {
      Event c = e;
      f(c, i++);
      out.push_back(c);
    });
    *this = std::move(out);
  }

  // The number of leading events for which pred holds, pred being true for
  // a prefix (e.g. time <= t, the events being in time order): a binary
  // search over the blocks by their first event, then within one block,
  // so it decodes about log2(blocks) first events and one block.
  template <class Pred>
  std::size_t partitionPoint(Pred&& pred) const {
    const std::size_t blocks = blocks_.size() + (open_.count ? 1 : 0);
    std::size_t lo = 0, hi = blocks;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      Event first;
      decode(blockAt(mid), mid, 1, &first);
      if (pred(static_cast<const Event&>(first))) lo = mid + 1;
      else hi = mid;
    }
    if (lo == 0) return 0;
    const Block& b = blockAt(lo - 1);
    const Event* ev = decoded(b, lo - 1, b.count);
    std::uint32_t k = 1;
    while (k < b.count && pred(ev[k])) ++k;
    return (lo - 1) * kBlock + k;
  }

  // What an event is, apart from its times and values: its kind, phase
  // and which fields (and rc) it has, as in Event.
  struct Shape {
    Kind kind = Kind::OTHER;
    Phase phase = Phase::End;
    std::uint8_t present = 0;
    static Shape of(const Event& e) { return {e.kind, e.phase, e.present}; }
    bool has(int slot) const { return slotPresent(present, slot); }
  };

  // Reads one store's events by index, holding the block it read last
  // decoded: a walk in index order, forwards or backwards, decodes each
  // block once and asks no shared cache.  Several at once (one a task)
  // walk records of many tasks in their arrival order.  The store must
  // outlive it; events pushed since it read the open block are read anew.
  class Cursor {
   public:
    explicit Cursor(const EventStore& s) : store_(&s) {}
    const Event& operator[](std::size_t i) {
      const std::size_t b = i / kBlock;
      const auto k = static_cast<std::uint32_t>(i % kBlock);
      if (b != block_ || k >= count_) {
        const Block& blk = store_->blockAt(b);
        store_->decode(blk, b, blk.count, ev_);
        block_ = b;
        count_ = blk.count;
      }
      return ev_[k];
    }
    // Event i's shape, read from its block's shape bytes: the block is not
    // decoded (unless the shape is one spelled out in the event's body).
    Shape shape(std::size_t i) {
      const std::size_t b = i / kBlock;
      const auto k = static_cast<std::uint32_t>(i % kBlock);
      if (b != headBlock_ || k >= headCount_) {
        const Block& blk = store_->blockAt(b);
        head_ = blk.bytes;
        headBlock_ = b;
        headCount_ = blk.count;
      }
      const std::uint8_t s = head_[k];
      if (s != kEscape) [[likely]] return shapeOf(store_->shapes_[s]);
      const Event& e = (*this)[i];
      return Shape::of(e);
    }

   private:
    const EventStore* store_;
    std::size_t block_ = SIZE_MAX;
    std::uint32_t count_ = 0;
    std::uint32_t headCount_ = 0;
    std::size_t headBlock_ = SIZE_MAX;
    const std::uint8_t* head_ = nullptr;  // block headBlock_'s shape bytes
    Event ev_[kBlock];
  };

  // f(event) on every event in order.
  template <class F>
  void forEach(F&& f) const {
    Event buf[kBlock];
    std::size_t n = 0;
    auto each = [&](const Block& b) {
      decode(b, n++, b.count, buf);
      for (std::uint32_t k = 0; k < b.count; ++k) f(static_cast<const Event&>(buf[k]));
    };
    blocks_.forEach(each);
    if (open_.count) each(open_);
  }

 private:
  // A block's bytes: kBlock shape bytes (of its events so far, in order),
  // then its events' bodies.
  struct Block {
    const std::uint8_t* bytes = nullptr;  // its first shape byte, in one of pages_
    std::uint32_t id = 0;                 // the cache's key: unique among the first 2^32 blocks made
    std::uint32_t count = 0;              // events encoded so far (kBlock when full)
  };

  static constexpr std::uint8_t kEscape = 255;  // a shape byte: the shape is spelled out in the body
  static Shape shapeOf(std::uint32_t key) {  // a key of shapes_: kind | phase << 16 | present << 24
    return {static_cast<Kind>(key & 0xffff), static_cast<Phase>(key >> 16 & 0xff), static_cast<std::uint8_t>(key >> 24)};
  }
  const Block& blockAt(std::size_t b) const { return b < blocks_.size() ? blocks_[b] : open_; }
  // The first `count` events of block b (number `index`), re-dated.
  void decode(const Block& b, std::size_t index, std::uint32_t count, Event* out) const;
  // Block b (number `index`) decoded up to at least `need` events, from
  // this thread's cache.
  const Event* decoded(const Block& b, std::size_t index, std::uint32_t need) const;
  // Room for `bytes` more in the current page, moving the open block to a
  // new page when there is none.
  void reserve(std::size_t bytes);
  std::uint8_t shapeByte(const Event& e);

  ChunkedVector<Block, 0, 10> blocks_;  // full blocks
  Block open_;                          // the block being filled (count < kBlock)
  // The last event pushed, as far as the next one's differences need it.
  TimeNs lastTime_ = 0;
  TimeNs lastOffset_ = 0;  // its recvTime - time
  std::uint32_t lastSeq_ = 0;
  // The room left in the last page; the pages hold the bytes.
  std::uint32_t room_ = 0;
  std::uint8_t* end_ = nullptr;
  std::uint8_t* openHead_ = nullptr;  // open_.bytes, to write its shape bytes
  std::vector<std::shared_ptr<std::uint8_t[]>> pages_;
  std::size_t pageBytes_ = 0;  // sum of the pages' sizes
  // (kind, phase, present) of each shape, in order of first use: an
  // append-only table shared with the copies, replaced by a bigger copy
  // when full (a copy keeps the table it had).
  std::shared_ptr<std::uint32_t[]> shapes_;
  std::uint32_t shapeCount_ = 0;
  std::uint32_t shapeRoom_ = 0;
  std::uint32_t lastShape_ = 0;  // the shape of the last event pushed
  // The re-dating of a redated() copy (null: the times as stored), and its
  // number: the decode cache's key with the block's id (a copy's blocks
  // have the ids of the store's).
  struct Redating {
    Redate f;
    std::uint64_t id;
  };
  std::shared_ptr<const Redating> redate_;
};

}  // namespace xab
