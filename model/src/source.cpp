// TraceSource: opening a trace and reading it in pieces, following a
// growing file (xab/model/source.h).
#include <xab/model/source.h>

#include "decode.h"
#include "history.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <optional>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <string>
#include <thread>
#include <unistd.h>

namespace xab {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// An opened input: a descriptor (a file, a pipe, a terminal) or text in
// memory.  The one place a trace's bytes are read.
class Input {
 public:
  enum class Got { Piece, Nothing, End, Error };

  Input() = default;
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  ~Input() {
    if (owned_) ::close(fd_);
    if (notify_ >= 0) ::close(notify_);
  }

  // "" or "PATH: reason".
  std::string open(const std::string& path) {
    if (path.empty() || path == "-") {
      fd_ = 0;
    } else {
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) return path + ": " + std::strerror(errno);
      owned_ = true;
    }
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
      regular_ = true;
      size_ = static_cast<std::uint64_t>(st.st_size);
    }
    return {};
  }

  void useText(std::string_view text) {
    text_ = text;
    inMemory_ = true;
    size_ = text.size();
  }

  bool regularFile() const { return regular_; }
  std::uint64_t size() const { return size_; }  // a regular file's at opening, or the text's

  // One piece of at most `cap` bytes.  A pipe or terminal is polled for
  // up to waitMs (-1: until something comes); a file never waits: its end
  // is End (the caller decides whether to wait for more).
  //
  // Compressed input (zstd, gzip: decode.h) is decoded on the way: a
  // piece is text either way.  Invalid data is an Error with error 0
  // (decodeError() says why).
  Got read(std::size_t cap, int waitMs, std::string_view& piece, int& error) {
    for (;;) {
      if (decoder_.format() != Decoder::Format::Plain || !decoder_.error().empty() || pendingPlain_) {
        pendingPlain_ = false;
        if (!decoder_.give(cap, piece)) return error = 0, Got::Error;
        if (!piece.empty()) return Got::Piece;
      }
      Got got = readRaw(cap, waitMs, piece, error);
      if (got != Got::Piece) return got;
      raw_ += piece.size();
      if (decoder_.format() == Decoder::Format::Plain) return got;
      decoder_.take(piece);
      pendingPlain_ = decoder_.format() == Decoder::Format::Plain;  // the bytes held while deciding
    }
  }

  // The input has ended for good: "" or why its compressed data is cut
  // short; a few plain bytes held back while deciding come by read().
  std::string finish() {
    std::string why = decoder_.end();
    pendingPlain_ = decoder_.format() == Decoder::Format::Plain;
    return why;
  }

  const std::string& decodeError() const { return decoder_.error(); }
  bool insideFrame() const { return decoder_.insideFrame(); }
  bool compressed() const { return decoder_.compressed(); }
  bool inMemory() const { return inMemory_; }
  // A descriptor of the same open file, for reading it again (-1: none).
  int duplicate() const { return inMemory_ ? -1 : ::fcntl(fd_, F_DUPFD_CLOEXEC, 0); }
  std::uint64_t rawBytes() const { return raw_; }

 private:
  Got readRaw(std::size_t cap, int waitMs, std::string_view& piece, int& error) {
    if (inMemory_) {
      if (text_.empty()) return Got::End;
      piece = text_.substr(0, cap);
      text_.remove_prefix(piece.size());
      return Got::Piece;
    }
    if (!regular_) {
      pollfd p{fd_, POLLIN, 0};
      int ready = ::poll(&p, 1, waitMs);
      if (ready == 0 || (ready < 0 && errno == EINTR)) return Got::Nothing;
      if (ready < 0) return error = errno, Got::Error;
    }
    if (capacity_ < cap) {
      buffer_.reset(new char[cap]);
      capacity_ = cap;
    }
    for (;;) {
      ssize_t n = ::read(fd_, buffer_.get(), cap);
      if (n > 0) {
        piece = std::string_view(buffer_.get(), static_cast<std::size_t>(n));
        return Got::Piece;
      }
      if (n == 0) return Got::End;
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return Got::Nothing;  // a non-blocking descriptor we were given
      return error = errno, Got::Error;
    }
  }

 public:
  // A regular file at its end: waits up to `ms` for its writer to write.
  // True when it did (or may have: look again now), false after `ms`.
  // inotify wakes the reader at the writer's write, not at the next poll
  // (a followed file would lag a pipe by the poll period); without
  // inotify, a plain sleep.  The watch is made at the first wait, which
  // then says "look again": a write just before it is not missed.
  bool waitForGrowth(int ms) {
    if (!notifyTried_) {
      notifyTried_ = true;
      notify_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
      // Through /proc: the same file for a path and for standard input.
      const std::string self = "/proc/self/fd/" + std::to_string(fd_);
      if (notify_ >= 0 && ::inotify_add_watch(notify_, self.c_str(), IN_MODIFY | IN_CLOSE_WRITE) < 0) {
        ::close(notify_);
        notify_ = -1;
      }
      if (notify_ >= 0) return true;
    }
    if (notify_ < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      return false;
    }
    pollfd p{notify_, POLLIN, 0};
    if (::poll(&p, 1, ms) <= 0) return false;
    alignas(inotify_event) char events[4096];
    while (::read(notify_, events, sizeof events) > 0) {
    }  // every write so far: one look at the file reads them all
    return true;
  }

 private:
  Decoder decoder_;
  bool pendingPlain_ = false;  // plain bytes held by the decoder to hand on
  std::uint64_t raw_ = 0;      // bytes read (compressed, if it is)
  int fd_ = -1;
  int notify_ = -1;  // inotify watching a followed file (waitForGrowth)
  bool notifyTried_ = false;
  bool owned_ = false;
  bool regular_ = false;
  bool inMemory_ = false;
  std::uint64_t size_ = 0;
  std::string_view text_;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
};

}  // namespace

std::string displayName(const std::string& path) { return path.empty() || path == "-" ? "<stdin>" : path; }

struct TraceSource::Impl {
  explicit Impl(SourceOptions o) : options(std::move(o)), reader(options.read) {
    if (options.pieceBytes == 0) options.pieceBytes = 1;
  }

  SourceOptions options;
  Input input;
  std::string name;
  std::string error;
  std::string spillError;  // the spill file could not be made (reading goes on)
  TraceReader reader;
  std::unique_ptr<ProgressLine> line;
  Clock::time_point started = Clock::now();
  Clock::time_point lastNews = started;  // a piece added a record
  std::atomic<bool> stopAsked{false};
  bool ended = false;
  bool caughtUp = false;
  bool sawTrace = false;
  std::optional<Clock::time_point> frameEndDue;  // following: when to stop waiting for the last frame's end
  static constexpr std::chrono::seconds kFrameEndWait{2};
  std::uint64_t linesChecked = 0;
  History history;
  std::atomic<std::uint64_t> cuts{0};

  bool following() const { return options.follow && input.regularFile(); }

  void startProgress() {
    if (options.progress && !following()) line = std::make_unique<ProgressLine>(*options.progress);
  }

  ReadProgress progress() const {
    ReadProgress p;
    p.bytes = input.compressed() ? input.rawBytes() : reader.byteCount();  // of p.total
    p.total = following() ? 0 : input.size();
    p.events = reader.eventCount();
    p.seconds = secondsSince(started);
    return p;
  }

  // Whether a header or a record was read; checked only until the first
  // (a snapshot, and only when new lines came: cheap), so that it holds
  // even if the caller takes the trace away after each piece.
  void noteTrace() {
    if (sawTrace) return;
    if (reader.eventCount() > 0) {
      sawTrace = true;
      return;
    }
    if (reader.lineCount() == linesChecked) return;
    linesChecked = reader.lineCount();
    auto t = reader.snapshot();
    sawTrace = !t->monitorEvents().empty() || t->header().present;
  }

  SourceStep fed(std::string_view piece) {
    // A piece shorter than asked for is all the input held: caught up, even
    // while abmon's own records (its samples, every 100 ms) keep coming
    // more often than waitMs.
    caughtUp = piece.size() < options.pieceBytes;
    std::uint64_t before = reader.eventCount();
    bool more = reader.feed(piece);
    remember(piece);
    noteTrace();
    if (reader.eventCount() != before) lastNews = Clock::now();
    if (line) line->update(progress());
    return more ? SourceStep::Read : end();
  }

  // The time index, the spill file and the window, after a piece read.
  void remember(std::string_view piece) {
    if (!history.started()) {
      const bool plainFile = input.regularFile() && !input.compressed() && !input.inMemory();
      const bool spill = !plainFile && !input.inMemory() &&
                         (options.spill == SourceOptions::Spill::Always ||
                          (options.spill == SourceOptions::Spill::Auto && options.maxRecords > 0));
      std::uint64_t every = options.indexEvery;
      if (options.maxRecords > 0) every = std::min(every, std::max<std::uint64_t>(options.maxRecords / 4, 1024));
      if (std::string why = history.start(plainFile ? input.duplicate() : -1, spill, every); !why.empty())
        spillError = name + ": no spill file: " + why;
    }
    history.piece(piece, reader);
    if (options.maxRecords == 0) return;
    const double share = std::clamp(options.keepShare, 0.0, 1.0);
    const auto keep = static_cast<std::uint64_t>(static_cast<double>(options.maxRecords) * share);
    // A cut made aside is put in place once made, or waited for when the
    // window has grown by half what a cut drops.
    if (reader.cutPending()) {
      if (reader.finishCut(reader.heldRecords() >= options.maxRecords + (options.maxRecords - keep) / 2)) cutMade();
      return;
    }
    // abmon's own records count too: a hung program's samples go on for hours.
    if (reader.heldRecords() < options.maxRecords) return;
    const std::uint64_t now = reader.runRecords();
    if (options.cutAside) return reader.cutAside(now - std::min(now, keep));
    reader.cut(now - std::min(now, keep));
    cutMade();
  }

  void cutMade() {
    cuts.fetch_add(1, std::memory_order_relaxed);
    history.publishTable(reader);
  }

  SourceStep end() {
    if (reader.finishCut(true)) cutMade();
    reader.finish();
    if (history.started()) history.finish(reader);
    noteTrace();
    ended = true;
    caughtUp = true;
    if (line) line->clear();
    return SourceStep::Ended;
  }

  // A followed file at its end: wait for its writer (read again as soon as
  // it writes), but hear stop() soon.
  void pause() {
    using std::chrono::milliseconds;
    auto until = Clock::now() + milliseconds(options.waitMs);
    for (auto now = Clock::now(); !stopAsked.load(std::memory_order_relaxed) && now < until; now = Clock::now()) {
      auto slice = std::min<Clock::duration>(milliseconds(50), until - now);
      int ms = static_cast<int>(std::chrono::ceil<milliseconds>(slice).count());
      if (input.waitForGrowth(ms)) return;
    }
  }

  SourceStep next() {
    if (ended) return SourceStep::Ended;
    if (stopAsked.load(std::memory_order_relaxed) || !error.empty() || reader.stoppedReading()) return end();
    std::string_view piece;
    int why = 0;
    switch (input.read(options.pieceBytes, options.waitMs, piece, why)) {
      case Input::Got::Piece:
        return fed(piece);
      case Input::Got::Nothing:
        caughtUp = true;
        if (reader.finishCut(false)) cutMade();  // a quiet input need not wait for the next piece
        return SourceStep::Waiting;
      case Input::Got::End:
        // abmon's stop can be read from a frame whose end its writer has not
        // written yet: following, wait for that end (kFrameEndWait at most)
        // rather than call a whole trace cut short.
        if (following() && reader.monitorStopped() && input.insideFrame()) {
          if (!frameEndDue) frameEndDue = Clock::now() + kFrameEndWait;
          if (Clock::now() < *frameEndDue) {
            caughtUp = true;
            pause();
            return SourceStep::Waiting;
          }
        }
        if (!following() || reader.monitorStopped()) return inputEnded();
        caughtUp = true;
        pause();
        return SourceStep::Waiting;
      case Input::Got::Error:
        break;
    }
    error = name + ": " + (why ? std::strerror(why) : input.decodeError());
    if (!why) reader.cutShort({});  // a partial record before the invalid data
    return end();
  }

  // The input's end: what the decoder held back is read, and compressed
  // data cut inside a frame is read to its last whole record and said so.
  SourceStep inputEnded() {
    std::string cut = input.finish();
    std::string_view rest;
    int why = 0;
    if (input.read(options.pieceBytes, 0, rest, why) == Input::Got::Piece) {
      reader.feed(rest);
      remember(rest);
    }
    if (!cut.empty()) reader.cutShort(cut + ": read to the last whole record");
    return end();
  }
};

TraceSource::TraceSource() = default;

TraceSource::TraceSource(const std::string& path, SourceOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->name = displayName(path);
  impl_->error = impl_->input.open(path);
  if (!impl_->error.empty()) {
    impl_->reader.finish();
    impl_->ended = true;
    return;
  }
  impl_->startProgress();
}

TraceSource TraceSource::fromText(std::string_view text, SourceOptions options) {
  TraceSource s;
  s.impl_ = std::make_unique<Impl>(std::move(options));
  s.impl_->name = "<text>";
  s.impl_->input.useText(text);
  return s;
}

TraceSource::~TraceSource() = default;
TraceSource::TraceSource(TraceSource&&) noexcept = default;
TraceSource& TraceSource::operator=(TraceSource&&) noexcept = default;

const std::string& TraceSource::error() const { return impl_->error; }
const std::string& TraceSource::name() const { return impl_->name; }
bool TraceSource::isFile() const { return impl_->input.regularFile(); }
bool TraceSource::following() const { return impl_->following(); }
SourceStep TraceSource::next() { return impl_->next(); }
void TraceSource::stop() { impl_->stopAsked.store(true, std::memory_order_relaxed); }
bool TraceSource::ended() const { return impl_->ended; }
bool TraceSource::caughtUp() const { return impl_->caughtUp; }
double TraceSource::quietSeconds() const { return secondsSince(impl_->lastNews); }
bool TraceSource::sawTrace() const { return impl_->sawTrace; }
ReadProgress TraceSource::progress() const { return impl_->progress(); }
void TraceSource::setMaxRecords(std::uint64_t maxRecords) { impl_->options.maxRecords = maxRecords; }
std::uint64_t TraceSource::cuts() const { return impl_->cuts.load(std::memory_order_relaxed); }
std::vector<IndexEntry> TraceSource::index() const { return impl_->history.index(); }
bool TraceSource::canReadRange() const { return impl_->history.canRead(); }
std::uint64_t TraceSource::spillBytes() const { return impl_->history.spillBytes(); }
std::shared_ptr<const Trace> TraceSource::readRange(std::uint64_t from, std::uint64_t to, std::string* error) const {
  return impl_->history.read(from, to, error);
}
TraceReader& TraceSource::reader() { return impl_->reader; }
const TraceReader& TraceSource::reader() const { return impl_->reader; }

void TraceSource::readToEnd(const std::function<void(TraceReader&)>& eachPiece) {
  for (SourceStep s; (s = next()) != SourceStep::Ended;)
    if (s == SourceStep::Read && eachPiece) eachPiece(impl_->reader);
}

std::string TraceSource::notATrace() const {
  if (impl_->sawTrace) return {};
  const TraceReader& r = impl_->reader;
  if (r.byteCount() == 0) return name() + ": no records read (the input is empty)";
  return name() + ": no records read (" + std::to_string(r.errorCount()) + " malformed line" +
         (r.errorCount() == 1 ? "" : "s") + "): is it an xab trace?";
}

std::string TraceSource::describe(const ReadError& e) const {
  return name() + ":" + std::to_string(e.line) + ": " + e.reason;
}

std::string TraceSource::describeFatal() const {
  const std::string& why = impl_->reader.fatal();
  if (why.empty()) return {};
  // The reader says "line N: reason"; FILE:LINE: is the compiler's form.
  if (why.starts_with("line ")) return name() + ":" + why.substr(5);
  return name() + ": " + why;
}

std::string readPieces(const std::string& path, const SourceOptions& options,
                       const std::function<bool(std::string_view)>& eat) {
  Input input;
  if (std::string why = input.open(path); !why.empty()) return why;
  std::unique_ptr<ProgressLine> line;
  if (options.progress) line = std::make_unique<ProgressLine>(*options.progress);
  ReadProgress p;
  p.total = input.size();
  auto started = Clock::now();
  for (;;) {
    std::string_view piece;
    int why = 0;
    switch (input.read(std::max<std::size_t>(options.pieceBytes, 1), -1, piece, why)) {
      case Input::Got::Piece:
        p.bytes += piece.size();
        if (!eat(piece)) return {};
        p.seconds = secondsSince(started);
        if (line) line->update(p);
        continue;
      case Input::Got::Nothing:
        continue;
      case Input::Got::End:
        return {};
      case Input::Got::Error:
        return displayName(path) + ": " + (why ? std::strerror(why) : input.decodeError());
    }
  }
}

}  // namespace xab
