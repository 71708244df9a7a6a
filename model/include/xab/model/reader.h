// xab/model/reader.h -- streaming reader of the xab text trace
// (docs/trace-format.md).
//
// Feed it bytes in any pieces as they arrive (a pipe from abmon, a file that
// grows, a finished file): a partial line waits for the rest.  Take an
// immutable snapshot whenever you like.
//
// Threading contract: a TraceReader belongs to one thread (feed, finish,
// snapshot are not synchronised).  A snapshot is a `shared_ptr<const Trace>`
// that shares no mutable state with the reader: hand it to any thread, keep
// it as long as you like, read it from several threads at once.
#pragma once

#include <xab/model/trace.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace xab {

// kTraceFormatVersion: xab/traceformat/schema.h (through trace.h).

// The longest line a reader takes (bytes, without the '\n'); a longer one
// is skipped with an error, whatever pieces it arrived in (a file, a pipe,
// a socket: every input path measures the whole line).  16 MiB: a record
// with a mark of 5 MB of text fits even when every byte is %-escaped;
// the limit bounds what a stream without newlines can make a reader hold.
inline constexpr std::size_t kMaxTraceLine = std::size_t{16} << 20;

struct ReadError {
  std::uint64_t line = 0;  // 1-based line number in the input
  std::string reason;      // "bad task time: '17x'"
};

struct ReadOptions {
  bool stopOnError = false;        // stop at the first malformed line
  std::size_t keepErrors = 1000;   // errors kept in errors(); all are counted
};

class TraceReader {
 public:
  explicit TraceReader(ReadOptions options = {});
  ~TraceReader();
  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;

  // Consume bytes; complete lines become records at once.  Returns false
  // once the reader has stopped (a newer format version, or an error with
  // stopOnError); further input is ignored.
  bool feed(std::string_view bytes);
  // End of input: a last line without '\n' is read too.
  void finish();
  // The input ended short (compressed data cut inside a frame, or invalid
  // past some point): a partial last line is dropped, not read, and
  // `reason` (if any) is kept as an error at the line after the last.
  void cutShort(std::string reason);

  bool stoppedReading() const;            // refused version or stopOnError
  const std::string& fatal() const;       // why it stopped; "" if it did not
  const std::vector<ReadError>& errors() const;
  std::uint64_t errorCount() const;       // including those not kept
  std::uint64_t lineCount() const;        // complete lines seen
  std::uint64_t byteCount() const;        // bytes fed
  std::uint64_t eventCount() const;       // records stored so far
  bool monitorStopped() const;            // an abmon.stop record was read

  // The window: keeps the records of whole-run arrival positions [from, to)
  // and drops the rest, holding the run's whole task table (names, hosts,
  // parents, groups, exits; strings kept, tid lists of the kept records
  // only), each task's blocking calls open at `from` (carried: their begin
  // records) and abmon's start records; every seq is renumbered from 0 and
  // snapshots say where they start (Trace::cut()).  Snapshots taken before
  // are not changed.  Reading goes on after it (records numbered on).
  // O(records held): 20 M held cut to 10 M take 0.68 s of CPU.
  void cut(std::uint64_t from, std::uint64_t to = UINT64_MAX);
  // cut(from) made aside: the new window is made on a thread of its own
  // (at a lower priority) from a snapshot, while this reader goes on
  // reading; finishCut puts it in place with the records read since,
  // numbered on as they would be after cut(from).  One at a time: another
  // cut (or take()) first waits for this one.  A system that refuses the
  // thread gets cut(from).
  void cutAside(std::uint64_t from);
  bool cutPending() const;
  // Puts a cut made aside in place if it is ready (or, with wait, once it
  // is); returns whether one was put in place.  On the reader's thread.
  bool finishCut(bool wait);
  // Records of the whole run read so far: the arrival position of the next.
  std::uint64_t runRecords() const;
  // Records held: the tasks' and abmon's (its samples too), carried ones
  // included; what a window counts against SourceOptions::maxRecords.
  std::uint64_t heldRecords() const;
  // A reader of a run read from its middle (TraceSource::readRange): the
  // task table of `table` (a snapshot of the run's reader) and records
  // numbered from `position`; `before`: the latest task time before it
  // (TraceCut::time).  Before any feed().
  void continueRun(const Trace& table, std::uint64_t position, TimeNs before = 0);
  // The least and greatest task time of the records read since the last
  // call (false: none), for the source's time index.
  bool takeTimeSpan(TimeNs& first, TimeNs& last);
  // Bytes fed that are not yet a whole line (the start of the next line is
  // byteCount() - pendingBytes()).
  std::size_t pendingBytes() const;
  // The task table alone (no records): what a reader of a range needs.
  std::shared_ptr<const Trace> taskTable() const;

  // An immutable copy of what has been read; cheap: full chunks of events
  // are shared, only the last partial chunk of each task is copied.
  std::shared_ptr<const Trace> snapshot() const;
  // The trace itself, leaving the reader empty (end of a batch read).
  std::shared_ptr<const Trace> take();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct LoadResult {
  std::shared_ptr<const Trace> trace;  // null only if the file could not be opened
  std::vector<ReadError> errors;
  std::uint64_t errorCount = 0;
  std::string fatal;                   // refused version, I/O error, or stopOnError
};

// Read a whole file ("-" is standard input).
LoadResult loadTraceFile(const std::string& path, ReadOptions options = {});
// Read a trace held in memory (tests, fuzzing).
LoadResult loadTraceText(std::string_view text, ReadOptions options = {});
// The end of a reading fed by the caller: finish(), then the trace taken
// with the errors, as the two above give them.
LoadResult finishLoad(TraceReader& reader);

}  // namespace xab
