#include <xab/model/event_store.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace xab {
namespace {

// One event's bytes at most: its shape (escaped: 1 + kind + phase +
// present), time, arrival offset, arrival number, rc and six fields.
constexpr std::size_t kMaxEventBytes = 1 + 2 + 1 + 2 + 10 + 10 + 5 + 5 + 6 * 5;
constexpr std::size_t kFirstPage = 32;
constexpr std::size_t kMaxPage = 64 * 1024;
constexpr std::uint8_t kEscape = 255;  // a shape spelled out, the table being full
constexpr std::uint32_t kMaxShapes = 255;

// Block ids wrap after 2^32 blocks (137 G events); 0 is never given, so
// an empty cache entry matches nothing.
std::atomic<std::uint32_t> nextBlockId{1};
std::uint32_t newBlockId() {
  std::uint32_t id = nextBlockId.fetch_add(1, std::memory_order_relaxed);
  return id ? id : nextBlockId.fetch_add(1, std::memory_order_relaxed);
}

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t u) { return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1); }

std::uint8_t* put(std::uint8_t* p, std::uint64_t u) {
  while (u >= 0x80) {
    *p++ = static_cast<std::uint8_t>(u | 0x80);
    u >>= 7;
  }
  *p++ = static_cast<std::uint8_t>(u);
  return p;
}
std::uint64_t get(const std::uint8_t*& p) {
  std::uint64_t u = *p++;
  if (u < 0x80) return u;
  u &= 0x7f;
  for (int shift = 7;; shift += 7) {
    std::uint64_t b = *p++;
    u |= (b & 0x7f) << shift;
    if (b < 0x80) return u;
  }
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
void applyShape(std::uint32_t key, Event& e) {
  e.kind = static_cast<Kind>(key & 0xffff);
  e.phase = static_cast<Phase>(key >> 16 & 0xff);
  e.present = static_cast<std::uint8_t>(key >> 24);
}

// Decoded blocks of this thread, by block id.
struct CachedBlock {
  std::uint32_t id;
  std::uint32_t count;
  Event ev[EventStore::kBlock];
};
constexpr std::size_t kCacheWays = 16;
thread_local CachedBlock cache[kCacheWays];

}  // namespace

void EventStore::push_back(const Event& e) {
  const std::uint8_t shape = shapeOf(e);
  const bool first = open_.count == 0;  // a block's first event is taken from zero
  std::uint8_t buf[kMaxEventBytes];
  std::uint8_t* p = buf;
  *p++ = shape;
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
  reserve(n);
  if (first) {
    open_.bytes = end_;
    open_.id = newBlockId();
  }
  std::memcpy(end_, buf, n);
  end_ += n;
  room_ -= n;
  lastTime_ = e.time;
  lastOffset_ = offset;
  lastSeq_ = e.seq;
  if (++open_.count == kBlock) {
    blocks_.push_back(open_);
    open_ = Block{};
  }
}

std::uint8_t EventStore::shapeOf(const Event& e) {
  const std::uint32_t key = shapeKey(e);
  for (std::uint32_t i = 0; i < shapeCount_; ++i)
    if (shapes_[i] == key) return static_cast<std::uint8_t>(i);
  if (shapeCount_ == kMaxShapes) return kEscape;
  if (shapeCount_ == shapeRoom_) {
    std::uint32_t room = std::min(kMaxShapes, std::max<std::uint32_t>(2, shapeRoom_ * 2));
    auto bigger = std::make_shared_for_overwrite<std::uint32_t[]>(room);
    if (shapeCount_) std::memcpy(bigger.get(), shapes_.get(), shapeCount_ * sizeof(std::uint32_t));
    shapes_ = std::move(bigger);
    shapeRoom_ = room;
  }
  shapes_[shapeCount_] = key;
  return static_cast<std::uint8_t>(shapeCount_++);
}

void EventStore::reserve(std::size_t bytes) {
  if (room_ >= bytes) return;
  // The open block stays in one piece: its bytes so far move along to the
  // new page (a copy that shares the old page keeps reading them there).
  // Pages double, from a few events' worth (a task may make one call) to
  // kMaxPage.
  const std::size_t carried = open_.count ? static_cast<std::size_t>(end_ - open_.bytes) : 0;
  const std::size_t size = std::max(std::clamp(pageBytes_, kFirstPage, kMaxPage), carried + bytes);
  auto page = std::make_shared_for_overwrite<std::uint8_t[]>(size);
  if (carried) std::memcpy(page.get(), open_.bytes, carried);
  if (open_.count) open_.bytes = page.get();
  end_ = page.get() + carried;
  room_ = static_cast<std::uint32_t>(size - carried);
  pageBytes_ += size;
  pages_.push_back(std::move(page));
}

void EventStore::decode(const Block& b, std::uint32_t count, Event* out) const {
  const std::uint8_t* p = b.bytes;
  Event prev{};
  for (std::uint32_t k = 0; k < count; ++k) {
    Event e{};
    std::uint8_t shape = *p++;
    if (shape == kEscape) {
      e.kind = static_cast<Kind>(get(p));
      e.phase = static_cast<Phase>(get(p));
      e.present = static_cast<std::uint8_t>(get(p));
    } else {
      applyShape(shapes_[shape], e);
    }
    e.time = sum(prev.time, unzigzag(get(p)));
    e.recvTime = sum(e.time, sum(diff(prev.recvTime, prev.time), unzigzag(get(p))));
    e.seq = static_cast<std::uint32_t>(static_cast<std::int64_t>(prev.seq) + unzigzag(get(p)));
    if (e.hasRc()) e.rc = static_cast<std::int32_t>(unzigzag(get(p)));
    for (unsigned bits = e.present & 0x3f; bits; bits &= bits - 1)
      e.a[__builtin_ctz(bits)] = static_cast<std::int32_t>(unzigzag(get(p)));
    out[k] = e;
    prev = e;
  }
}

const Event* EventStore::decoded(const Block& b, std::uint32_t need) const {
  CachedBlock& c = cache[b.id % kCacheWays];
  if (c.id != b.id || c.count < need) {
    decode(b, b.count, c.ev);
    c.id = b.id;
    c.count = b.count;
  }
  return c.ev;
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
  out.shapes_ = shapes_;
  out.shapeCount_ = shapeCount_;
  out.shapeRoom_ = shapeRoom_;
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
