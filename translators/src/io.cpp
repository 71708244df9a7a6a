// Input and output shared by the translators.
#include <xab/translators/io.h>
#include <xab/model/time_base.h>
#include <xab/replay/correct.h>
#include <xab/traceformat/write.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <optional>
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

// ---- Input ------------------------------------------------------------

namespace {

SourceOptions sourceOptions(std::string_view program, bool progress) {
  SourceOptions so;
  if (progress) {
    so.progress.emplace();
    so.progress->label = program;
  }
  return so;
}

// After the end of input: "FILE:LINE: reason" on stderr for a reader that
// stopped (kExitBadInput), or each line skipped (lenient; kExitOk).
int reportReadErrors(const TraceSource& source, const InputOptions& o) {
  const TraceReader& reader = source.reader();
  if (reader.stoppedReading()) {
    std::fprintf(stderr, "%s: %s\n", o.program.c_str(), source.describeFatal().c_str());
    return kExitBadInput;
  }
  for (const ReadError& e : reader.errors())
    std::fprintf(stderr, "%s: %s (line skipped)\n", o.program.c_str(), source.describe(e).c_str());
  if (reader.errorCount() > reader.errors().size())
    std::fprintf(stderr, "%s: %s: %llu malformed lines skipped in all\n", o.program.c_str(),
                 source.name().c_str(), static_cast<unsigned long long>(reader.errorCount()));
  return kExitOk;
}

}  // namespace

std::string slurp(const std::string& path, std::string_view program, bool progress, std::string& out) {
  struct stat st{};
  if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    out.reserve(static_cast<std::size_t>(st.st_size));  // no copies while it grows
  return readPieces(path, sourceOptions(program, progress), [&](std::string_view piece) {
    out.append(piece);
    return true;
  });
}

int readThrough(const InputOptions& o, const std::function<void(TraceReader&)>& eachPiece,
                const std::function<void(TraceReader&)>& atEnd) {
  SourceOptions so = sourceOptions(o.program, o.progress);
  so.read.stopOnError = !o.lenient;
  so.read.keepErrors = 10;
  TraceSource source(o.path, so);
  source.readToEnd(eachPiece);
  if (!source.error().empty()) {
    std::fprintf(stderr, "%s: %s\n", o.program.c_str(), source.error().c_str());
    return kExitUsage;
  }
  if (int rc = reportReadErrors(source, o); rc != kExitOk) return rc;
  // Not a trace: an empty translation would pass for a quiet program.  A
  // header alone is a trace of nothing (abmon watched no task), and
  // translates to empty output.
  if (std::string why = source.notATrace(); !why.empty()) {
    std::fprintf(stderr, "%s: %s\n", o.program.c_str(), why.c_str());
    return kExitBadInput;
  }
  atEnd(source.reader());
  return kExitOk;
}

Input readTrace(const InputOptions& o) {
  Input in;
  in.exitCode = readThrough(o, [](TraceReader&) {}, [&](TraceReader& reader) {
    in.bytes = reader.byteCount();
    in.skipped = reader.errorCount();
    in.trace = reader.take();
  });
  if (!in.trace) return in;
  // The record is read first (prepare() corrects to it last); a record
  // that cannot be read is told after the other passes' notes.
  std::optional<replay::RecordSet> record;
  std::string recordError;
  if (!o.replayOf.empty()) try {
      record.emplace(replay::RecordSet::open(o.replayOf));  // a record directory or a full trace
    } catch (const std::exception& e) {
      recordError = e.what();
    }
  TimeBase base{.globalTime = o.globalTime, .compensate = o.compensate, .correct = {}};
  ReplayCorrectionReport replayReport;
  if (record) base.correct = replay::correctionTo(*record, replayReport);
  TimeBaseReport rep;
  in.trace = prepare(std::move(in.trace), base, rep);
  if (rep.global) {
    const ClockReport& clock = rep.clock;
    if (!clock.clockRecords)
      std::fprintf(stderr, "%s: %s\n", o.program.c_str(), clock.note.c_str());
    else
      std::fprintf(stderr, "%s: %s; receives before their sends: %llu as recorded, %llu after the fit, %llu after the correction\n",
                   o.program.c_str(), clock.note.c_str(), static_cast<unsigned long long>(clock.violationsRaw),
                   static_cast<unsigned long long>(clock.violationsFit),
                   static_cast<unsigned long long>(clock.violationsCorrected));
  }
  if (rep.compensated) std::fprintf(stderr, "%s: %s\n", o.program.c_str(), rep.compensation.note.c_str());
  if (rep.corrected) std::fprintf(stderr, "%s: %s\n", o.program.c_str(), replayReport.note.c_str());
  if (!recordError.empty()) {
    std::fprintf(stderr, "%s: %s\n", o.program.c_str(), recordError.c_str());
    in.trace = nullptr;
    in.exitCode = kExitUsage;
  }
  return in;
}

}  // namespace xab::tr
