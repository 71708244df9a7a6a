#include <xab/model/event_store.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

namespace xab {
namespace {

// One event's body at most (its shape byte is in the block's head): its
// shape spelled out when escaped (kind, phase, present), time, arrival
// offset, arrival number, rc and six fields.
constexpr std::size_t kMaxEventBytes = 3 * 9 + 3 * 9 + 7 * 9;
constexpr std::size_t kFirstPage = 32;
constexpr std::size_t kMaxPage = 64 * 1024;
constexpr std::uint32_t kMaxShapes = 255;  // 255 is kEscape

// Block ids wrap after 2^32 blocks (137 G events); 0 is never given, so
// an empty cache entry matches nothing.
std::atomic<std::uint32_t> nextBlockId{1};
std::uint32_t newBlockId() {
  std::uint32_t id = nextBlockId.fetch_add(1, std::memory_order_relaxed);
  return id ? id : nextBlockId.fetch_add(1, std::memory_order_relaxed);
}

// Re-datings are numbered from 1 (0: none), never reused.
std::atomic<std::uint64_t> nextRedateId{1};

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t u) { return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1); }

// Prefix varints: a value of at most 7n bits takes n bytes (n <= 8), the
// first byte's n-1 low bits zero and the next one set; a bigger value takes
// a zero byte and 8 bytes as they are.  The length is in the first byte,
// so reading one is a load, a count of trailing zeros and two shifts, with
// no branch a value's size decides (varints of LEB128 mispredict on every
// other byte).  The load may read kSlack bytes past a block's last event:
// a full block is followed by kSlack zero bytes, the open block of a
// frozen copy is a copy of its own with them, and every page ends with
// them; so no byte read ahead is one the writer may still write.
constexpr std::size_t kSlack = 8;

std::uint64_t load64(const std::uint8_t* p) {
  std::uint64_t x;
  std::memcpy(&x, p, sizeof x);
  return x;  // little-endian, as every machine PVM runs xab on here
}

std::uint8_t* put(std::uint8_t* p, std::uint64_t u) {
  const int bits = 64 - std::countl_zero(u | 1);
  const int n = (bits + 6) / 7;
  if (n > 8) {
    *p++ = 0;
    std::memcpy(p, &u, 8);
    return p + 8;
  }
  const std::uint64_t x = (u << n) | (std::uint64_t{1} << (n - 1));
  std::memcpy(p, &x, sizeof x);  // all 8: the bytes past n are overwritten or slack
  return p + n;
}
std::uint64_t get(const std::uint8_t*& p) {
  const std::uint64_t x = load64(p);
  if ((x & 0xff) == 0) [[unlikely]] {
    const std::uint64_t u = load64(p + 1);
    p += 9;
    return u;
  }
  const int n = std::countr_zero(x) + 1;
  p += n;
  return (x << (64 - 8 * n)) >> (64 - 7 * n);
}

// Differences wrap: a corrupt trace may hold times 290 years apart.
std::int64_t diff(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t sum(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

std::uint32_t shapeKey(const Event& e) {
  return static_cast<std::uint32_t>(e.kind) | static_cast<std::uint32_t>(e.phase) << 16 |
         static_cast<std::uint32_t>(e.present) << 24;
}

// Decoded blocks of this thread, by block id and re-dating.
struct CachedBlock {
  std::uint32_t id;
  std::uint32_t count;
  std::uint64_t redate;
  Event ev[EventStore::kBlock];
};
// 32 sets of two: the blocks a walk over several tasks at once reads.
constexpr std::size_t kCacheSets = 32;
thread_local CachedBlock cache[kCacheSets][2];
thread_local std::uint8_t cacheRecent[kCacheSets];  // the way read last, per set
thread_local std::uint64_t decodedCount = 0;

}  // namespace

void EventStore::push_back(const Event& e) {
  const std::uint8_t shape = shapeByte(e);
  const bool first = open_.count == 0;  // a block's first event is taken from zero
  std::uint8_t buf[kMaxEventBytes + 8];
  std::uint8_t* p = buf;
  if (shape == kEscape) {
    p = put(p, static_cast<std::uint64_t>(e.kind));
    p = put(p, static_cast<std::uint64_t>(e.phase));
    p = put(p, e.present);
  }
  const TimeNs offset = diff(e.recvTime, e.time);
  p = put(p, zigzag(diff(e.time, first ? 0 : lastTime_)));
  p = put(p, zigzag(diff(offset, first ? 0 : lastOffset_)));
  p = put(p, zigzag(static_cast<std::int64_t>(e.seq) - (first ? 0 : static_cast<std::int64_t>(lastSeq_))));
  if (e.hasRc()) p = put(p, zigzag(e.rc));
  for (unsigned bits = e.present & 0x3f; bits; bits &= bits - 1) p = put(p, zigzag(e.a[__builtin_ctz(bits)]));
  const auto n = static_cast<std::uint32_t>(p - buf);
  reserve(n + (first ? kBlock : 0) + kSlack);
  if (first) {  // the block's shape bytes, then its events' bodies
    open_.bytes = openHead_ = end_;
    open_.id = newBlockId();
    std::memset(end_, 0, kBlock);
    end_ += kBlock;
    room_ -= kBlock;
  }
  // The open block's bytes are the writer's own: a frozen copy reads a
  // copy of them (freeze()), so its shape byte is written in place.
  openHead_[open_.count] = shape;
  std::memcpy(end_, buf, n);
  end_ += n;
  room_ -= n;
  lastTime_ = e.time;
  lastOffset_ = offset;
  lastSeq_ = e.seq;
  if (++open_.count == kBlock) {
    blocks_.push_back(open_);
    open_ = Block{};
    std::memset(end_, 0, kSlack);
    end_ += kSlack;
    room_ -= kSlack;
  }
}

std::uint8_t EventStore::shapeByte(const Event& e) {
  const std::uint32_t key = shapeKey(e);
  // A task repeats its calls in a cycle and its shapes are numbered in the
  // order first used: the next shape is most often the one after the last.
  for (std::uint32_t k = 0, i = lastShape_ + 1; k < shapeCount_; ++k, ++i) {
    if (i >= shapeCount_) i = 0;
    if (shapes_[i] == key) return static_cast<std::uint8_t>(lastShape_ = i);
  }
  if (shapeCount_ == kMaxShapes) return kEscape;
  if (shapeCount_ == shapeRoom_) {
    std::uint32_t room = std::min(kMaxShapes, std::max<std::uint32_t>(2, shapeRoom_ * 2));
    auto bigger = std::make_shared_for_overwrite<std::uint32_t[]>(room);
    if (shapeCount_) std::memcpy(bigger.get(), shapes_.get(), shapeCount_ * sizeof(std::uint32_t));
    shapes_ = std::move(bigger);
    shapeRoom_ = room;
  }
  shapes_[shapeCount_] = key;
  lastShape_ = shapeCount_;
  return static_cast<std::uint8_t>(shapeCount_++);
}

void EventStore::reserve(std::size_t bytes) {
  if (room_ >= bytes) return;
  // The open block stays in one piece: its bytes so far move along to the
  // new page (a copy that shares the old page keeps reading them there).
  // Pages double, from a few events' worth (a task may make one call) to
  // kMaxPage.
  const std::size_t carried = open_.count ? static_cast<std::size_t>(end_ - open_.bytes) : 0;
  const std::size_t size = std::max(std::clamp(pageBytes_, kFirstPage, kMaxPage), carried + bytes + kSlack);
  auto page = std::make_shared_for_overwrite<std::uint8_t[]>(size);
  std::memset(page.get() + size - kSlack, 0, kSlack);
  if (carried) std::memcpy(page.get(), open_.bytes, carried);
  if (open_.count) open_.bytes = openHead_ = page.get();
  end_ = page.get() + carried;
  room_ = static_cast<std::uint32_t>(size - carried - kSlack);
  pageBytes_ += size;
  pages_.push_back(std::move(page));
}

std::uint64_t EventStore::blocksDecoded() { return decodedCount; }

void EventStore::decode(const Block& b, std::size_t index, std::uint32_t count, Event* out) const {
  ++decodedCount;
  const std::uint8_t* p = b.bytes + kBlock;
  const std::uint32_t* const shapes = shapes_.get();
  Event prev{};
  for (std::uint32_t k = 0; k < count; ++k) {
    Event& e = out[k];
    std::memset(e.a, 0, sizeof e.a);
    e.rc = 0;
    const std::uint8_t shape = b.bytes[k];
    if (shape == kEscape) {
      e.kind = static_cast<Kind>(get(p));
      e.phase = static_cast<Phase>(get(p));
      e.present = static_cast<std::uint8_t>(get(p));
    } else {
      const Shape sh = shapeOf(shapes[shape]);
      e.kind = sh.kind;
      e.phase = sh.phase;
      e.present = sh.present;
    }
    e.time = sum(prev.time, unzigzag(get(p)));
    e.recvTime = sum(e.time, sum(diff(prev.recvTime, prev.time), unzigzag(get(p))));
    e.seq = static_cast<std::uint32_t>(static_cast<std::int64_t>(prev.seq) + unzigzag(get(p)));
    if (e.hasRc()) e.rc = static_cast<std::int32_t>(unzigzag(get(p)));
    for (unsigned bits = e.present & 0x3f; bits; bits &= bits - 1)
      e.a[__builtin_ctz(bits)] = static_cast<std::int32_t>(unzigzag(get(p)));
    prev.time = e.time;
    prev.recvTime = e.recvTime;
    prev.seq = e.seq;
  }
  if (redate_) redate_->f(out, index * kBlock, count);
}

const Event* EventStore::decoded(const Block& b, std::size_t index, std::uint32_t need) const {
  const std::size_t set = (b.id * 0x9E3779B1u) >> 27;  // Fibonacci hashing: a task's blocks spread over the sets
  CachedBlock* ways = cache[set];
  const std::uint64_t redateId = redate_ ? redate_->id : 0;
  for (std::uint8_t w = 0; w < 2; ++w)
    if (ways[w].id == b.id && ways[w].redate == redateId && ways[w].count >= need) {
      cacheRecent[set] = w;
      return ways[w].ev;
    }
  const std::uint8_t w = cacheRecent[set] ^ 1;
  decode(b, index, b.count, ways[w].ev);
  ways[w].id = b.id;
  ways[w].redate = redateId;
  ways[w].count = b.count;
  cacheRecent[set] = w;
  return ways[w].ev;
}

EventStore EventStore::freeze() const {
  EventStore out;
  out.blocks_ = blocks_.freeze();
  out.open_ = open_;
  out.lastTime_ = lastTime_;
  out.lastOffset_ = lastOffset_;
  out.lastSeq_ = lastSeq_;
  out.pages_ = pages_;
  out.pageBytes_ = pageBytes_;
  if (open_.count && end_) {
    // The writer goes on writing right after the open block's bytes (a
    // frozen copy, which has no end_, is read only: its own are shared).
    const auto n = static_cast<std::size_t>(end_ - open_.bytes);
    auto own = std::make_shared_for_overwrite<std::uint8_t[]>(n + kSlack);
    std::memcpy(own.get(), open_.bytes, n);
    std::memset(own.get() + n, 0, kSlack);
    out.open_.bytes = own.get();
    out.pages_.push_back(std::move(own));
    out.pageBytes_ += n + kSlack;
  }
  out.shapes_ = shapes_;
  out.shapeCount_ = shapeCount_;
  out.shapeRoom_ = shapeRoom_;
  out.redate_ = redate_;
  return out;
}

EventStore EventStore::redated(Redate f) const {
  EventStore out = freeze();
  if (redate_)  // this store's re-dating first, then f
    f = [first = redate_, then = std::move(f)](Event* ev, std::size_t index, std::uint32_t count) {
      first->f(ev, index, count);
      then(ev, index, count);
    };
  out.redate_ = std::make_shared<const Redating>(Redating{std::move(f), nextRedateId.fetch_add(1, std::memory_order_relaxed)});
  return out;
}

std::size_t EventStore::capacityBytes() const {
  return pageBytes_ + blocks_.capacityBytes() + pages_.capacity() * sizeof(pages_[0]) +
         shapeRoom_ * sizeof(std::uint32_t);
}

bool EventStore::sole() const {
  if (!blocks_.sole()) return false;
  for (const auto& p : pages_)
    if (p.use_count() != 1) return false;
  return true;
}

}  // namespace xab
