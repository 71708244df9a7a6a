// xab/translators/io.h -- what every translator does around its format:
// read an xab trace (through the model's TraceSource: progress line,
// "FILE:LINE: reason" errors) and write its output fast through a buffer.
#pragma once

#include <xab/model/source.h>

#include <cstring>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace xab::tr {

// Exit statuses of every translator (docs/translators.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 1,     // bad command line, unreadable input, unwritable output
  kExitBadInput = 2,  // a malformed line (file:line: reason on stderr)
};

// A buffered writer on a file descriptor.  Errors are sticky: check ok()
// (or the result of close()) once at the end, not after every append.
class Sink {
 public:
  Sink() = default;  // writes nowhere until open()
  ~Sink();
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  // "" or "-" is standard output.  Returns "" or the reason it failed.
  std::string open(const std::string& path);
  // Writes to standard error (never truncated, never closed).
  void openStderr() { fd_ = 2; path_ = "<stderr>"; }
  // Writes into a string instead of a file (tests).
  void captureTo(std::string* out) {
    capture_ = out;
    base_ = out->size();
  }

  // A piece of kDirect bytes or more goes out as it is, after what is
  // buffered: copying it into the buffer first would be one more pass over
  // the output (a TextWriter hands over its records 64 KiB at a time).
  void put(std::string_view s) {
    if (s.size() >= kDirect) {
      drain();
      return writeAll(s);
    }
    if (s.size() > kCap - used_) drain();
    std::memcpy(buf_.get() + used_, s.data(), s.size());
    used_ += s.size();
  }
  void put(char c) {
    if (used_ == kCap) drain();
    buf_[used_++] = c;
  }
  void putInt(std::int64_t v);
  // Non-negative nanoseconds as seconds with `decimals` digits (truncated).
  void putSeconds(std::int64_t ns, int decimals);
  // A tid as formatTid writes it ("t40002", "any", "-31"), without its
  // allocation: translators write millions.
  void putTid(std::int32_t tid);

  // Overwrites bytes already put, `at` bytes from the start of this
  // Sink's output (a header whose sizes were unknown when it was written).
  // Works on a captured string and on a regular file not opened for
  // appending; false (nothing done) on a pipe or terminal.
  bool patch(std::uint64_t at, std::string_view bytes);

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::uint64_t written() const { return written_ + used_; }
  bool isTerminal() const;
  // Writes what is buffered; "" or the error.  The descriptor stays open
  // until the Sink is destroyed (stdout is never closed).
  std::string finish();

 private:
  static constexpr std::size_t kCap = 1 << 20;
  static constexpr std::size_t kDirect = 64 << 10;
  void drain();
  void writeAll(std::string_view s);
  std::unique_ptr<char[]> buf_{new char[kCap]};
  std::size_t used_ = 0;
  std::uint64_t written_ = 0;
  std::uint64_t base_ = 0;  // file offset (or captured size) where this output starts
  int fd_ = -1;
  bool ownFd_ = false;
  std::string* capture_ = nullptr;
  std::string path_;
  std::string error_;
};

struct InputOptions {
  std::string path = "-";   // "-" is standard input
  std::string program;      // for messages: "ab2picl"
  bool lenient = false;     // skip malformed lines (warn) instead of stopping
  bool progress = true;     // on a terminal only
  // Global time (docs/global-time.md): readTrace fits every task's clock
  // and corrects causality; streamInput fits (a file is read twice: the
  // clock records first), standard input stays as recorded.  Said once on
  // stderr.  false: --raw-time.
  bool globalTime = true;
  // xab's measured cost taken out of the times (--compensate,
  // docs/global-time.md); said on stderr.  It needs the whole trace
  // (compensate() walks every task's history from its start, and a
  // receive's send may be read long after it): streamInput then reads the
  // whole trace first, as readTrace does, and streams it from memory.
  bool compensate = false;
  // The trace is of a replay of the record in this directory; its dates
  // are corrected back to the recorded run's (--replay-of,
  // docs/replay.md), after the above; said on stderr.  Like compensate, it
  // needs the whole trace: streamInput then reads it first.
  std::string replayOf;
};

struct Input {
  std::shared_ptr<const Trace> trace;  // null when exitCode != 0
  int exitCode = kExitOk;
  std::uint64_t bytes = 0;
  std::uint64_t skipped = 0;           // malformed lines skipped (lenient)
};

// Reads a whole xab trace.  Malformed input is reported on stderr as
// "FILE:LINE: reason" (FILE is "<stdin>" for "-").
Input readTrace(const InputOptions& o);

// Reads INPUT through a TraceReader (stopping at the first malformed line
// unless lenient), calling eachPiece(reader) after each piece it accepted
// and atEnd(reader) after the end of input when all went well.  Errors go
// to stderr: "FILE:LINE: reason" (FILE is "<stdin>" for "-").  Returns
// kExitOk, kExitUsage (I/O) or kExitBadInput (a malformed line, or an
// input with neither a header nor a record: empty, or every line
// malformed).
int readThrough(const InputOptions& o, const std::function<void(TraceReader&)>& eachPiece,
                const std::function<void(TraceReader&)>& atEnd);

// Reads a whole file (or standard input) into memory, with the progress
// line; "" or the I/O error.
std::string slurp(const std::string& path, std::string_view program, bool progress,
                  std::string& out);

// "<stdin>" for "-", else the path (the model's rule).
using xab::displayName;

}  // namespace xab::tr
