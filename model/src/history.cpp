// History (history.h): the time index, the spill file, readRange.
#include "history.h"

#include "decode.h"

#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace xab {

// The text read, zstd-compressed into an unlinked temporary file: one
// frame an index entry (so reading an entry back decodes from its frame
// only), flushed after every piece (so all whole lines read are in the
// file).  Lines are written whole: a frame starts where a line does.
class SpillFile {
 public:
  ~SpillFile() {
    ZSTD_freeCCtx(cctx_);
    if (fd_ >= 0) ::close(fd_);
  }

  std::string open() {
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/xab-spill-XXXXXX";
    fd_ = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd_ < 0) return path + ": " + std::strerror(errno);
    ::unlink(path.c_str());  // gone with the descriptor, whatever ends the process
    cctx_ = ZSTD_createCCtx();
    if (!cctx_) return "zstd: out of memory";
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, 1);
    return {};
  }

  // Writes the whole lines of `text` (what follows its last '\n' waits).
  bool write(std::string_view text) {
    const std::size_t nl = text.rfind('\n');
    if (nl == std::string_view::npos) {
      tail_.append(text);
      return true;
    }
    bool ok = true;
    if (!tail_.empty()) {
      ok = compress(tail_, ZSTD_e_continue);
      tail_.clear();
    }
    ok = ok && compress(text.substr(0, nl + 1), ZSTD_e_flush);
    tail_.assign(text.substr(nl + 1));
    return ok;
  }
  // Ends the frame: what is written next starts one (at a line's start).
  bool endFrame() { return compress({}, ZSTD_e_end); }
  bool finish() {
    bool ok = compress(tail_, ZSTD_e_end);
    tail_.clear();
    return ok;
  }
  std::uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  int fd() const { return fd_; }

 private:
  bool compress(std::string_view in, ZSTD_EndDirective how) {
    ZSTD_inBuffer src{in.data(), in.size(), 0};
    out_.resize(ZSTD_CStreamOutSize());
    for (;;) {
      ZSTD_outBuffer dst{out_.data(), out_.size(), 0};
      const std::size_t left = ZSTD_compressStream2(cctx_, &dst, &src, how);
      if (ZSTD_isError(left)) return false;
      for (std::size_t done = 0; done < dst.pos;) {
        const ssize_t n = ::write(fd_, out_.data() + done, dst.pos - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
      }
      bytes_.fetch_add(dst.pos, std::memory_order_relaxed);
      if (how == ZSTD_e_continue ? src.pos == src.size : left == 0) return true;
    }
  }

  int fd_ = -1;
  ZSTD_CCtx* cctx_ = nullptr;
  std::string out_;
  std::string tail_;
  std::atomic<std::uint64_t> bytes_{0};
};

History::History() = default;
History::~History() {
  if (reread_ >= 0) ::close(reread_);
}

std::string History::start(int rereadFd, bool spill, std::uint64_t every) {
  started_ = true;
  every_ = std::max<std::uint64_t>(every, 1);
  std::string why;
  if (spill) {
    spill_ = std::make_unique<SpillFile>();
    why = spill_->open();
    if (!why.empty()) spill_.reset();
  }
  std::lock_guard<std::mutex> lock(mu_);
  reread_ = rereadFd;
  readFd_ = spill_ ? spill_->fd() : rereadFd;
  spilled_ = spill_ != nullptr;
  index_.push_back({});  // the first entry: position 0, offset 0
  return why;
}

// The spill file could not be written (a full disk): no history beyond
// the window from now on.
void History::spillFailed() {
  std::lock_guard<std::mutex> lock(mu_);
  readFd_ = -1;
}

void History::piece(std::string_view text, TraceReader& reader) {
  if (spill_ && readFd_ >= 0 && !spill_->write(text)) spillFailed();
  TimeNs first = 0, last = 0;
  const bool any = reader.takeTimeSpan(first, last);
  const std::uint64_t now = reader.runRecords();
  bool entry = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    IndexEntry& e = index_.back();
    if (any) {
      e.first = e.records ? std::min(e.first, first) : first;
      e.last = e.records ? std::max(e.last, last) : last;
    }
    e.records = now - e.position;
    readable_ = now;
    entry = e.records >= every_;
  }
  if (entry) newEntry(reader);
}

void History::newEntry(TraceReader& reader) {
  IndexEntry e;
  e.position = reader.runRecords();
  if (spill_) {
    if (!spill_->endFrame()) spillFailed();
    e.offset = spill_->bytes();
  } else {
    e.offset = reader.byteCount() - reader.pendingBytes();
  }
  auto table = reader.taskTable();
  std::lock_guard<std::mutex> lock(mu_);
  index_.push_back(e);
  table_ = std::move(table);
}

void History::finish(TraceReader& reader) {
  if (spill_ && !spill_->finish()) spillFailed();
  std::string_view none;
  piece(none, reader);
  publishTable(reader);
}

void History::publishTable(const TraceReader& reader) {
  auto table = reader.taskTable();
  std::lock_guard<std::mutex> lock(mu_);
  table_ = std::move(table);
}

std::vector<IndexEntry> History::index() const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_;
}

bool History::canRead() const {
  std::lock_guard<std::mutex> lock(mu_);
  return readFd_ >= 0;
}

std::uint64_t History::spillBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return spilled_ ? spill_->bytes() : 0;
}

std::shared_ptr<const Trace> History::read(std::uint64_t from, std::uint64_t to, std::string* error) const {
  auto fail = [error](std::string why) -> std::shared_ptr<const Trace> {
    if (error) *error = std::move(why);
    return nullptr;
  };
  IndexEntry at;
  int fd = -1;
  bool spilled = false;
  TimeNs before = 0;
  std::shared_ptr<const Trace> table;
  {
    std::lock_guard<std::mutex> lock(mu_);
    fd = readFd_, spilled = spilled_;
    if (fd < 0) return fail("no history: the input cannot be read again and was not spilled");
    to = std::min(to, readable_);
    if (from >= to) return fail("records " + std::to_string(from) + ".." + std::to_string(to) + " are not read yet");
    auto it = std::upper_bound(index_.begin(), index_.end(), from,
                               [](std::uint64_t p, const IndexEntry& e) { return p < e.position; });
    at = *std::prev(it);
    for (auto e = index_.begin(); e != std::prev(it); ++e)
      if (e->records) before = e == index_.begin() ? e->last : std::max(before, e->last);
    table = table_;
  }
  TraceReader reader;
  if (table) reader.continueRun(*table, at.position, before);
  Decoder decoder;
  std::string raw(1 << 20, '\0');
  std::uint64_t offset = at.offset;
  while (reader.runRecords() < to) {
    const ssize_t n = ::pread(fd, raw.data(), raw.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(std::string("reading history: ") + std::strerror(errno));
    if (n == 0) break;
    offset += static_cast<std::uint64_t>(n);
    if (!spilled) {
      reader.feed(std::string_view(raw.data(), static_cast<std::size_t>(n)));
      continue;
    }
    decoder.take(std::string_view(raw.data(), static_cast<std::size_t>(n)));
    for (std::string_view text; reader.runRecords() < to;) {
      if (!decoder.give(1 << 20, text)) return fail("reading the spill file: " + decoder.error());
      if (text.empty()) break;
      reader.feed(text);
    }
  }
  reader.cut(from, to);
  return reader.take();
}

}  // namespace xab
