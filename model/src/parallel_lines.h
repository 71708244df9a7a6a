// The reader's second core: the whole lines of a large piece of trace text
// tokenized by this thread and a worker together, handed to the builder
// in order by this thread alone.
//
// Tokenizing (text::LineReader) is about two thirds of reading a trace and
// needs nothing of what came before once the header is read; building
// (interning, encoding into the event store) must see the records in
// order.  The piece's lines are cut into batches that either thread claims
// (an atomic counter), and each is tokenized into its slot; this thread
// hands the slots on in order, and while the next slot is still being
// tokenized by the worker it tokenizes a later batch itself, so the two
// share the work whatever its balance.  A record whose strings or lists
// live in the tokenizer's scratch space is copied out with them; anything
// that is not a plain record (a comment, a malformed or over-long line) is
// handed back as its line, for the reader's own path: errors are counted
// and numbered in order, as the one-thread reading does.
#pragma once

#include <xab/traceformat/record.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace xab {

class ParallelLines {
 public:
  ParallelLines();
  ~ParallelLines();
  ParallelLines(const ParallelLines&) = delete;
  ParallelLines& operator=(const ParallelLines&) = delete;

  // What is worth the handshake: pieces with fewer lines go one thread.
  static constexpr std::size_t kMinLines = 2048;

  // Each of `lines` (whole lines without their '\n', inside a piece that
  // outlives the call) in order: record(r) for a plain record, line(s) for
  // any other.  Either returning false stops the walk (the reader stopped).
  void run(std::span<const std::string_view> lines, const std::function<bool(const text::Record&)>& record,
           const std::function<bool(std::string_view)>& line);

 private:
  static constexpr std::size_t kBatch = 256;  // lines

  struct Slot {
    text::Record record;
    bool plain = false;  // else the line goes to the reader's own path
  };
  // A batch's records, tokenized, with the strings and lists they own.
  struct Batch {
    std::vector<Slot> slots = std::vector<Slot>(kBatch);  // made by run(): a failed tokenizing marks them without allocating
    std::deque<std::string> strings;
    std::deque<std::vector<std::int32_t>> lists;
    std::atomic<bool> ready{false};
  };

  void work();
  // Tokenizes batch b of the current piece into batches_[b] and marks it
  // ready, whatever happens.
  void tokenize(std::size_t b, text::LineReader& reader);
  void tokenizeInto(Batch& batch, std::span<const std::string_view> lines, text::LineReader& reader);
  // This thread claims and tokenizes the next batch nobody has; false when
  // none is left.
  bool claim();

  std::vector<std::unique_ptr<Batch>> batches_;  // kept between pieces, reused
  // Under mutex_: the piece's lines, its batches and the next to claim
  // (the worker reads lines_ only for a batch it claimed, and run() hands
  // the piece back only when every claimed batch is tokenized).
  std::mutex mutex_;
  std::condition_variable wake_;
  std::span<const std::string_view> lines_;
  std::size_t batchCount_ = 0;
  std::size_t next_ = 0;
  bool quit_ = false;
  text::LineReader reader_;  // this thread's
  // Started last (it reads the members above), on a stack of kStack:
  // the default 8 MiB of address space would be most of a small reader's.
  static constexpr std::size_t kStack = std::size_t{1} << 20;
  pthread_t worker_;
};

}  // namespace xab
