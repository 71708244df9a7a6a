// Input and output shared by the translators.
#include <xab/translators/io.h>
#include <xab/traceformat/write.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace xab::tr {

// ---- Sink -------------------------------------------------------------

Sink::~Sink() {
  if (ownFd_) ::close(fd_);
}

std::string Sink::open(const std::string& path) {
  path_ = path.empty() || path == "-" ? "<stdout>" : path;
  if (path.empty() || path == "-") {
    fd_ = 1;
    off_t here = ::lseek(fd_, 0, SEEK_CUR);  // stdout may be a file written before us
    base_ = here > 0 ? static_cast<std::uint64_t>(here) : 0;
    return {};
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) return error_ = path + ": " + std::strerror(errno);
  ownFd_ = true;
  return {};
}

bool Sink::isTerminal() const { return !capture_ && fd_ >= 0 && ::isatty(fd_); }

void Sink::writeAll(std::string_view s) {
  written_ += s.size();
  if (capture_) {
    capture_->append(s);
    return;
  }
  if (!error_.empty() || fd_ < 0) return;
  while (!s.empty()) {
    ssize_t n = ::write(fd_, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = path_ + ": " + std::strerror(errno);
      return;
    }
    s.remove_prefix(static_cast<std::size_t>(n));
  }
}

void Sink::drain() {
  std::size_t n = used_;
  used_ = 0;
  writeAll(std::string_view(buf_.get(), n));
}

// The values as the trace-format library spells them, written straight
// into the buffer.
void Sink::putInt(std::int64_t v) {
  if (kCap - used_ < text::kMaxNumberChars) drain();
  used_ = static_cast<std::size_t>(text::putInt(buf_.get() + used_, v) - buf_.get());
}

void Sink::putSeconds(std::int64_t ns, int decimals) {
  if (kCap - used_ < text::kMaxTimeChars) drain();
  used_ = static_cast<std::size_t>(text::putSeconds(buf_.get() + used_, ns, decimals) - buf_.get());
}

void Sink::putTid(std::int32_t tid) {
  if (kCap - used_ < text::kMaxNumberChars) drain();
  used_ = static_cast<std::size_t>(text::putTid(buf_.get() + used_, tid) - buf_.get());
}

bool Sink::patch(std::uint64_t at, std::string_view bytes) {
  if (at + bytes.size() > written()) return false;
  if (at >= written_) {  // still in the buffer
    std::memcpy(buf_.get() + (at - written_), bytes.data(), bytes.size());
    return true;
  }
  drain();
  if (capture_) {
    capture_->replace(base_ + at, bytes.size(), bytes);
    return true;
  }
  struct stat st{};
  int flags = fd_ >= 0 ? ::fcntl(fd_, F_GETFL) : -1;
  if (flags < 0 || (flags & O_APPEND) || ::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || !error_.empty())
    return false;
  auto n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(base_ + at));
  return n == static_cast<ssize_t>(bytes.size());
}

std::string Sink::finish() {
  drain();
  return error_;
}

// ---- Progress ---------------------------------------------------------

namespace {
constexpr std::uint64_t kWorthABar = 16u << 20;  // bytes
constexpr double kRedrawSeconds = 0.2;
}  // namespace

Progress::Progress(std::string_view program, std::uint64_t total, bool enabled)
    : program_(program), total_(total), on_(enabled && ::isatty(2) && total >= kWorthABar),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

Progress::~Progress() { done(); }

void Progress::update(std::uint64_t doneBytes) {
  if (!on_) return;
  auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() < kRedrawSeconds) return;
  last_ = now;
  shown_ = true;
  constexpr int kWidth = 30;
  double f = total_ ? std::min(1.0, static_cast<double>(doneBytes) / static_cast<double>(total_)) : 0;
  int fill = static_cast<int>(f * kWidth);
  double secs = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r%s: [%.*s%*s] %3d%% %.0f MB/s", program_.c_str(), fill,
               "##############################", kWidth - fill, "", static_cast<int>(f * 100),
               secs > 0 ? static_cast<double>(doneBytes) / 1e6 / secs : 0.0);
}

void Progress::done() {
  if (shown_) std::fputs("\r\033[K", stderr);
  shown_ = false;
  on_ = false;
}

// ---- Input ------------------------------------------------------------

std::string displayName(const std::string& path) { return path == "-" ? "<stdin>" : path; }

// Reads a descriptor in large pieces, calling eat(piece) for each.
std::string readInput(const std::string& path, std::string_view program, bool progress,
                      const std::function<bool(std::string_view)>& eat) {
  int fd = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return path + ": " + std::strerror(errno);
  struct stat st{};
  std::uint64_t total = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
  Progress bar(program, total, progress);
  constexpr std::size_t kPiece = 1 << 20;
  std::unique_ptr<char[]> buf(new char[kPiece]);
  std::uint64_t done = 0;
  std::string err;
  for (;;) {
    ssize_t n = ::read(fd, buf.get(), kPiece);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) { err = displayName(path) + ": " + std::strerror(errno); break; }
    if (n == 0) break;
    done += static_cast<std::uint64_t>(n);
    if (!eat(std::string_view(buf.get(), static_cast<std::size_t>(n)))) break;
    bar.update(done);
  }
  if (fd > 0) ::close(fd);
  return err;
}

std::string slurp(const std::string& path, std::string_view program, bool progress, std::string& out) {
  struct stat st{};
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    out.reserve(static_cast<std::size_t>(st.st_size));  // no copies while it grows
  return readInput(path, program, progress, [&](std::string_view piece) {
    out.append(piece);
    return true;
  });
}

namespace {

// After reader.finish(): "FILE:LINE: reason" on stderr for a reader that
// stopped (kExitBadInput), or each line skipped (lenient; kExitOk).
int reportReadErrors(const TraceReader& reader, const InputOptions& o) {
  const std::string name = displayName(o.path);
  if (reader.stoppedReading()) {
    // fatal() reads "line N: reason", the compiler-style FILE:LINE: follows.
    std::string why = reader.fatal();
    if (why.starts_with("line ")) why = why.substr(5);
    std::fprintf(stderr, "%s: %s:%s\n", o.program.c_str(), name.c_str(), why.c_str());
    return kExitBadInput;
  }
  for (const ReadError& e : reader.errors())
    std::fprintf(stderr, "%s: %s:%llu: %s (line skipped)\n", o.program.c_str(), name.c_str(),
                 static_cast<unsigned long long>(e.line), e.reason.c_str());
  if (reader.errorCount() > reader.errors().size())
    std::fprintf(stderr, "%s: %s: %llu malformed lines skipped in all\n", o.program.c_str(),
                 name.c_str(), static_cast<unsigned long long>(reader.errorCount()));
  return kExitOk;
}

}  // namespace

int readThrough(const InputOptions& o, const std::function<void(TraceReader&)>& eachPiece,
                const std::function<void(TraceReader&)>& atEnd) {
  ReadOptions ro;
  ro.stopOnError = !o.lenient;
  ro.keepErrors = 10;
  TraceReader reader(ro);
  // Whether anything of xab's format was read: a header or a record
  // (pieces are taken as they go).  Checked only until the first: while
  // there is none the snapshot is empty.  A header alone is a trace of
  // nothing (abmon watched no task), and translates to empty output.
  bool anyRecord = false;
  auto noteRecords = [&] {
    if (anyRecord) return;
    auto t = reader.snapshot();
    anyRecord = t->eventCount() > 0 || !t->monitorEvents().empty() || t->header().present;
  };
  std::string err = readInput(o.path, o.program, o.progress, [&](std::string_view piece) {
    bool more = reader.feed(piece);
    noteRecords();
    if (more) eachPiece(reader);
    return more;
  });
  if (!err.empty()) {
    std::fprintf(stderr, "%s: %s\n", o.program.c_str(), err.c_str());
    return kExitUsage;
  }
  reader.finish();
  noteRecords();
  if (int rc = reportReadErrors(reader, o); rc != kExitOk) return rc;
  if (!anyRecord) {  // not a trace: an empty translation would pass for a quiet program
    const std::string name = displayName(o.path);
    if (reader.byteCount() == 0)
      std::fprintf(stderr, "%s: %s: no records read (the input is empty)\n", o.program.c_str(), name.c_str());
    else
      std::fprintf(stderr, "%s: %s: no records read (%llu malformed line%s): is it an xab trace?\n",
                   o.program.c_str(), name.c_str(), static_cast<unsigned long long>(reader.errorCount()),
                   reader.errorCount() == 1 ? "" : "s");
    return kExitBadInput;
  }
  atEnd(reader);
  return kExitOk;
}

Input readTrace(const InputOptions& o) {
  Input in;
  in.exitCode = readThrough(o, [](TraceReader&) {}, [&](TraceReader& reader) {
    in.bytes = reader.byteCount();
    in.skipped = reader.errorCount();
    in.trace = reader.take();
  });
  return in;
}

}  // namespace xab::tr
