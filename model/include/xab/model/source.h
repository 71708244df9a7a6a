// xab/model/source.h -- the one way to open and read a trace: a file, "-"
// (standard input), a pipe or FIFO, or a file that is still growing, read
// in pieces into a TraceReader.  loadTraceFile, abstat, the translators and
// the fuzz target read through it (docs/model.md, "Reading").
//
// The following rule (the only one): a regular file opened with
// `follow` is read to its end and then waited on (read again as soon as
// its writer writes: inotify; where that is missing, polled every `waitMs`)
// until it holds abmon's last record (`abmon.stop`), the reader stops (a
// newer format version, or an error with stopOnError) or the caller calls
// stop().  Anything else ends at its end: a pipe when its writer closes
// it, a file read once.  After the reader stops, the rest of the input is
// not read.
//
// Threading: a TraceSource belongs to one thread (the reader thread), like
// its TraceReader; only stop(), cuts(), index(), canReadRange(),
// readRange() and spillBytes() may be called from any thread.  Take
// snapshots with reader().snapshot() between steps.
#pragma once

#include <xab/model/progress.h>
#include <xab/model/reader.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xab {

struct SourceOptions {
  ReadOptions read;                      // for the TraceReader
  bool follow = false;                   // a regular file: wait for more at its end (the rule above)
  int waitMs = 200;                      // the longest one next() waits when nothing is there
  std::size_t pieceBytes = 1 << 20;      // the most one read takes
  std::optional<ProgressOptions> progress;  // a progress line (a terminal only; never while following)
  // The window (docs/model.md, "A run of any length"): a reader holding
  // maxRecords records cuts itself (TraceReader::cut), keeping the newest
  // keepShare of them.  0: no window, the whole input is held.  A caller
  // with a byte budget divides it by its own measured cost per record
  // (Trace::memoryBytes() / eventCount() for the records alone).
  std::uint64_t maxRecords = 0;
  double keepShare = 0.5;
  // Cuts made aside (TraceReader::cutAside): reading goes on while a cut
  // is made, the window growing meanwhile (by at most half what a cut
  // drops, then the reader waits for it).  When a cut is put in place
  // then depends on the threads' pace: for a live view, not for a reading
  // that must cut at the same records each time.
  bool cutAside = false;
  // The time index: an entry about every indexEvery records (fewer when
  // the window is small: at most a quarter of it).
  std::uint64_t indexEvery = 1 << 20;
  // Spill what is read to a temporary file (zstd, in TMPDIR, unlinked at
  // once) so that readRange reaches the history of an input that cannot
  // be read again (a pipe, standard input, a compressed file).  Auto: when
  // a window is set.
  enum class Spill { Auto, Never, Always } spill = Spill::Auto;
};

// One entry of the time index: the records of the whole run from
// `position` to the next entry's.
struct IndexEntry {
  std::uint64_t position = 0;  // the whole run's arrival position of its first record
  std::uint64_t records = 0;   // records in it (so far, for the last entry)
  TimeNs first = 0;            // the least and greatest task time of its records
  TimeNs last = 0;
  std::uint64_t offset = 0;    // where it starts: a byte of the file, or of the spill file
};

enum class SourceStep {
  Read,     // a piece was read into the reader
  Waiting,  // nothing to read now (a quiet pipe, a followed file at its end): caught up
  Ended,    // no more input: the reader is finished (see the rule above, and error())
};

// "<stdin>" for "-" (and ""), else the path: FILE in "FILE:LINE: reason".
std::string displayName(const std::string& path);

class TraceSource {
 public:
  // Opens `path`: "-" or "" is standard input, anything else a path (a
  // file, a FIFO, /dev/stdin).  Check error() before reading.
  explicit TraceSource(const std::string& path, SourceOptions options = {});
  // Text in memory, read in pieces of options.pieceBytes (tests, fuzzing).
  // The text must outlive the source.
  static TraceSource fromText(std::string_view text, SourceOptions options = {});
  ~TraceSource();
  TraceSource(TraceSource&&) noexcept;
  TraceSource& operator=(TraceSource&&) noexcept;

  // "" or why it could not be opened or read: "run.trace: No such file or
  // directory", "<stdin>: Input/output error".  Reading ends at an error.
  const std::string& error() const;
  const std::string& name() const;  // displayName(path)
  bool isFile() const;              // a regular file (its size is known; it may grow)
  bool following() const;           // a regular file opened with follow

  // One step: reads at most one piece, waiting up to waitMs for it.
  SourceStep next();
  // next() until Ended; eachPiece(reader) after each piece read.
  void readToEnd(const std::function<void(TraceReader&)>& eachPiece = {});
  // Ends the input at the next step (finishing the reader: a last line
  // without '\n' is read); a step waiting at a followed file's end
  // returns within 50 ms.  Any thread; async-signal-safe.
  void stop();
  bool ended() const;
  // The last step found nothing more to read at that moment (or ended).
  bool caughtUp() const;
  // Seconds since a piece last added a record (or since opening): how
  // long the writer has been silent, for a stall or hang report.
  double quietSeconds() const;

  // Whether a header or a record was read.  At the end, false means the
  // input was empty or not an xab trace at all (every line malformed).
  bool sawTrace() const;
  // "" if sawTrace(); else "NAME: no records read (the input is empty)" or
  // "NAME: no records read (N malformed lines): is it an xab trace?".
  std::string notATrace() const;
  // A malformed line: "NAME:LINE: reason".
  std::string describe(const ReadError& e) const;
  // Why the reader stopped, as "NAME:LINE: reason"; "" if it did not.
  std::string describeFatal() const;

  ReadProgress progress() const;

  // The window: cuts made so far (SourceOptions::maxRecords).
  std::uint64_t cuts() const;
  // A new limit (a caller that measured its cost per record as it read);
  // the reader thread only.  The next piece cuts if it is reached.
  void setMaxRecords(std::uint64_t maxRecords);
  // The time index of the whole run read so far, built as it is read (a
  // copy; any thread).
  std::vector<IndexEntry> index() const;
  // Whether readRange can read history again: a regular plain file, or an
  // input spilled (SourceOptions::spill).
  bool canReadRange() const;
  // The records of whole-run positions [from, to) read again from the file
  // or the spill file, from the index entry at or before `from`, through
  // a reader of their own: a trace with the run's task table whose cut()
  // says where it starts.  Null when it cannot (error says why: no file to
  // read again, a range not read yet).  Any thread, while next() reads on.
  std::shared_ptr<const Trace> readRange(std::uint64_t from, std::uint64_t to, std::string* error = nullptr) const;
  // Compressed bytes written to the spill file so far (0: none).
  std::uint64_t spillBytes() const;

  TraceReader& reader();
  const TraceReader& reader() const;

 private:
  TraceSource();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Raw bytes of a path or "-" (a foreign format, e.g. PICL), in pieces of
// options.pieceBytes: eat(piece) until it returns false or the input ends
// (follow and read are ignored).  "" or the error, as TraceSource::error().
std::string readPieces(const std::string& path, const SourceOptions& options,
                       const std::function<bool(std::string_view)>& eat);

}  // namespace xab
