// Tokenizing a piece's lines on two threads (parallel_lines.h).
#include "parallel_lines.h"

#include <xab/model/reader.h>
#include <xab/traceformat/schema.h>

#include <cstdint>
#include <system_error>

namespace xab {

namespace {

// A view the record holds that is not inside [lo, hi) (the piece): the
// tokenizer's scratch, overwritten by its next line.  Copied to `strings`.
std::string_view own(std::string_view s, const char* lo, const char* hi, std::deque<std::string>& strings) {
  const auto at = reinterpret_cast<std::uintptr_t>(s.data());  // (views of other arrays: compared as addresses)
  if (s.empty() || (at >= reinterpret_cast<std::uintptr_t>(lo) && at + s.size() <= reinterpret_cast<std::uintptr_t>(hi)))
    return s;
  return strings.emplace_back(s);
}

}  // namespace

ParallelLines::ParallelLines() {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStack);
  const int failed = pthread_create(
      &worker_, &attr, [](void* self) -> void* {
        static_cast<ParallelLines*>(self)->work();
        return nullptr;
      },
      this);
  pthread_attr_destroy(&attr);
  if (failed) throw std::system_error(failed, std::generic_category(), "the reader's second thread");
}

ParallelLines::~ParallelLines() {
  {
    std::lock_guard<std::mutex> hold(mutex_);
    quit_ = true;
  }
  wake_.notify_one();
  pthread_join(worker_, nullptr);
}

void ParallelLines::work() {
  text::LineReader reader;
  std::unique_lock<std::mutex> hold(mutex_);
  for (;;) {
    wake_.wait(hold, [&] { return quit_ || next_ < batchCount_; });
    if (quit_) return;
    const std::size_t b = next_++;
    hold.unlock();
    tokenize(b, reader);
    hold.lock();
  }
}

bool ParallelLines::claim() {
  std::size_t b;
  {
    std::lock_guard<std::mutex> hold(mutex_);
    if (next_ >= batchCount_) return false;
    b = next_++;
  }
  tokenize(b, reader_);
  return true;
}

void ParallelLines::tokenize(std::size_t b, text::LineReader& reader) {
  Batch& batch = *batches_[b];
  const std::size_t first = b * kBatch;
  const std::size_t count = std::min(kBatch, lines_.size() - first);
  try {
    tokenizeInto(batch, lines_.subspan(first, count), reader);
  } catch (...) {  // (bad_alloc) the lines go the one-thread way, which says so
    for (std::size_t i = 0; i < count; ++i) batch.slots[i].plain = false;
  }
  batch.ready.store(true, std::memory_order_release);
  batch.ready.notify_one();
}

void ParallelLines::tokenizeInto(Batch& batch, std::span<const std::string_view> lines, text::LineReader& reader) {
  batch.strings.clear();
  batch.lists.clear();
  const char* lo = lines_.front().data();
  const char* hi = lines_.back().data() + lines_.back().size();
  std::string error;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    Slot& slot = batch.slots[i];
    const std::string_view line = lines[i];
    bool fatal = false;
    slot.plain = line.size() <= kMaxTraceLine &&
                 reader.read(line, false, error, fatal) == text::LineReader::Line::Record && error.empty() && !fatal;
    if (!slot.plain) continue;
    text::Record& r = slot.record;
    r = reader.record();
    if (r.kind == Kind::OTHER) {
      r.str[0] = own(r.str[0], lo, hi, batch.strings);
    } else {
      const auto& spec = schema::kSlots[static_cast<std::size_t>(r.kind)][r.phase == Phase::Begin ? 1 : 0];
      for (unsigned refs = r.present & spec.refMask; refs; refs &= refs - 1) {
        const int s = __builtin_ctz(refs);
        if (spec.items[static_cast<std::size_t>(s)].spelling == Spelling::String) {
          r.str[s] = own(r.str[s], lo, hi, batch.strings);
        } else {
          const auto& copy = batch.lists.emplace_back(r.list[s].begin(), r.list[s].end());
          r.list[s] = copy;
        }
      }
    }
    if (r.id.hasName) r.id.name = own(r.id.name, lo, hi, batch.strings);
    if (r.id.hasHost) r.id.host = own(r.id.host, lo, hi, batch.strings);
  }
}

void ParallelLines::run(std::span<const std::string_view> lines,
                        const std::function<bool(const text::Record&)>& record,
                        const std::function<bool(std::string_view)>& line) {
  if (lines.empty()) return;
  const std::size_t count = (lines.size() + kBatch - 1) / kBatch;
  while (batches_.size() < count) batches_.push_back(std::make_unique<Batch>());
  for (std::size_t b = 0; b < count; ++b) batches_[b]->ready.store(false, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> hold(mutex_);
    lines_ = lines;
    next_ = 0;
    batchCount_ = count;
  }
  wake_.notify_one();
  // However the walk ends (a stop, an exception from the builder), no
  // batch is claimed after it and those claimed are tokenized before the
  // piece is the caller's again.
  struct Close {
    ParallelLines& self;
    ~Close() {
      std::size_t claimed;
      {
        std::lock_guard<std::mutex> hold(self.mutex_);
        claimed = self.next_;
        self.batchCount_ = 0;
        self.next_ = 0;
      }
      for (std::size_t b = 0; b < claimed; ++b) self.batches_[b]->ready.wait(false, std::memory_order_acquire);
      std::lock_guard<std::mutex> hold(self.mutex_);
      self.lines_ = {};
    }
  } close{*this};
  bool going = true;
  for (std::size_t b = 0; b < count && going; ++b) {
    Batch& batch = *batches_[b];
    // While the worker tokenizes this batch, tokenize a later one.
    while (!batch.ready.load(std::memory_order_acquire))
      if (!claim()) batch.ready.wait(false, std::memory_order_acquire);
    const std::size_t first = b * kBatch;
    const std::size_t n = std::min(kBatch, lines.size() - first);
    for (std::size_t i = 0; i < n && going; ++i) {
      const Slot& slot = batch.slots[i];
      going = slot.plain ? record(slot.record) : line(lines[first + i]);
    }
  }
}

}  // namespace xab
