// reader_thread.cpp -- the loader's reader thread (trace_loader.h): reads
// the input and decides when the snapshot thread gets a trace, on the time
// base asked for (live_time_base.h).
#include "live_time_base.h"
#include "trace_loader.h"

namespace xab::view {
namespace {

// A followed file read to its current end is read again after this long,
// and a pipe that stayed quiet this long counts as caught up (a live
// picture is 100 ms old at most).
constexpr int kWaitMs = 40;
// Once the input pauses (caught up, no new record for kPauseSeconds) and
// at its end, a picture whose clocks move is put on global time
// (live_time_base.h).
constexpr double kPauseSeconds = 0.5;
// The budget's window, in records: what the viewer costs beyond its fixed
// part (Qt, fonts, the window: ~40 MB offscreen) divided by what a record
// of the window costs at the peak, all told: the trace's store, the
// arrival order, the spans, the analysis (two while a new one is made),
// the old window still shown while a cut makes the new one.
// bench/xabview_live.sh and tests/memory check peaks against budgets.
constexpr std::uint64_t kFixedBytes = std::uint64_t{64} << 20;
constexpr std::uint64_t kBytesPerRecord = 112;
constexpr std::uint64_t kLeastWindow = 1 << 16;

std::uint64_t windowRecords(std::uint64_t budget) {
  if (budget == 0) return 0;
  return std::max(kLeastWindow, (budget > kFixedBytes ? budget - kFixedBytes : 0) / kBytesPerRecord);
}

}  // namespace

// The reader thread: the model's TraceSource reads (and follows, by its
// one rule); this loop only decides when the snapshot thread gets a trace.
void TraceLoader::run() {
  try {
    SourceOptions options;
    options.follow = options_.follow;
    options.waitMs = kWaitMs;
    options.maxRecords = windowRecords(options_.budget);
    options.cutAside = true;  // the picture goes on while a cut is made
    auto shared = std::make_shared<TraceSource>(options_.path.toStdString(), options);
    TraceSource& source = *shared;
    if (options.maxRecords) {
      std::lock_guard lock(mutex_);
      source_ = shared;
      windowRecords_ = options.maxRecords;
    }
    if (!source.error().empty()) {
      QString msg = QString::fromStdString(source.error());
      fail(msg);
      return;
    }
    if (source.isFile() && readForeign()) return;
    TraceReader& reader = source.reader();
    std::uint64_t postedEvents = UINT64_MAX, postedErrors = 0;
    LiveTimeBase timeBase;
    bool ended = false, reportedEnd = false, postedCaughtUp = false;

    bool reachedEnd = false;   // caught up since the last post
    auto paused = [&] { return source.caughtUp() && source.quietSeconds() >= kPauseSeconds; };
    // At the input's end the reader's trace is taken, and kept: a change of
    // time base afterwards re-times it again.
    std::shared_ptr<const Trace> whole;
    auto readSoFar = [&] {
      if (!ended) return reader.snapshot();
      if (!whole) whole = reader.take();
      return whole;
    };

    // rebased: the time base was changed (setTimeBase): a new picture.
    auto postNow = [&](bool caughtUp, bool rebased) {
      Raw raw;
      retiming_ = true;
      LiveTimeBase::Picture p = timeBase.apply(readSoFar(), rawTime_, compensate_, options_.record.get(),
                                               ended || paused(), rebased);
      retiming_ = false;
      raw.globalOwed = !rawTime_ && timeBase.owesGlobal();
      raw.trace = std::move(p.trace);
      raw.timeNote = std::move(p.note);
      raw.retimed = p.retimed;
      raw.newTimeBase = p.newTimeBase;
      raw.errors = reader.errors();
      raw.errorCount = reader.errorCount();
      raw.fatal = reader.fatal();
      raw.bytes = reader.byteCount();
      raw.ended = ended;
      raw.caughtUp = caughtUp || ended;
      raw.regular = source.isFile();
      raw.reachedEnd = reachedEnd || raw.caughtUp;
      reachedEnd = false;
      postedCaughtUp = raw.caughtUp;
      postedEvents = raw.trace->eventCount();
      postedErrors = raw.errorCount;
      post(std::move(raw));
    };

    while (!stopping_ && !ended) {
      const SourceStep step = source.next();
      recordsRead_.store(reader.runRecords(), std::memory_order_relaxed);
      ended = step == SourceStep::Ended;
      // A followed file at its current end.
      const bool atEnd = step == SourceStep::Waiting && source.following();
      // Nothing more to read right now (that, or a pipe quiet for kWaitMs):
      // the hang panel waits for this before it calls a silence a hang (a
      // big backlog being read is no silence).
      const bool caughtUp = source.caughtUp();
      reachedEnd = reachedEnd || caughtUp;
      const bool changed = reader.eventCount() != postedEvents || reader.errorCount() != postedErrors ||
                           caughtUp != postedCaughtUp;
      // The snapshot thread asks for a trace when it is ready for one; the
      // end of the input, and reaching it, are told at once.
      // Paused with clocks that move: the picture goes on global time.
      const bool settle = !rawTime_ && timeBase.owesGlobal() && paused();
      // A new time base (the View menu) is shown at once.
      const bool rebased = timeBaseChanged_.exchange(false);
      if (ended || rebased || (atEnd && !reportedEnd) || ((changed || settle) && wanted_)) postNow(caughtUp, rebased);
      if (atEnd) reportedEnd = true;
      if (step == SourceStep::Read && source.isFile()) reportedEnd = false;
    }
    // The reader refused the input (a newer format version) while a pipe
    // still runs: read it to its end, keeping nothing, so that the programs
    // writing it (tee, abmon) are not blocked while the window shows why.
    if (ended && reader.stoppedReading() && !source.isFile() && !stopping_)
      readPieces(options_.path.toStdString(), {}, [this](std::string_view) { return !stopping_.load(); });
    // After the end, the whole trace stays on offer: each change of time
    // base re-times it and posts it again.
    while (ended && !stopping_) {
      {
        std::unique_lock lock(mutex_);
        // A timeout too: stop() sets stopping_ without the lock.
        wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stopping_ || timeBaseChanged_; });
      }
      if (!stopping_ && timeBaseChanged_.exchange(false)) postNow(true, true);
    }
  } catch (const std::exception& e) {
    QString msg = QString("reader thread: ") + e.what();
    fail(msg);
  }
}

}  // namespace xab::view
