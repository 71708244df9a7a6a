#include "trace_loader.h"

#include <xab/model/clock.h>
#include <xab/model/compensate.h>
#include <xab/model/replay_correct.h>
#include <xab/translators/picl.h>

#include <chrono>
#include <deque>
#include <future>
#include <sys/resource.h>
#include <unistd.h>

namespace xab::view {
namespace {

using Clock = std::chrono::steady_clock;

// While records flow, an analysis starts only after kAnalysisRest times its
// last duration of rest (at most a third of the time), at the nice value
// kAnalysisNice (its threads inherit it).
constexpr double kAnalysisRest = 2.0;
constexpr int kAnalysisNice = 10;
// A followed file read to its current end is read again after this long,
// and a pipe that stayed quiet this long counts as caught up (a live
// picture is 100 ms old at most).
constexpr int kWaitMs = 40;
// Global time while records flow: re-timing copies the whole trace and
// rebuilds the picture from scratch (seconds at millions of records, and a
// loaded machine's fits "move" tasks on abmon's own host by milliseconds to
// hundreds of ms: noise, every task there reads abmon's clock).  So live
// pictures keep the task clocks while records flow; once the input pauses
// (caught up, no new record for kPauseSeconds) and at its end, the picture
// is put on global time.
constexpr double kPauseSeconds = 0.5;

}  // namespace

TraceLoader::TraceLoader(Options options, QObject* parent)
    : QObject(parent), options_(std::move(options)), rawTime_(options_.rawTime), compensate_(options_.compensate) {}

TraceLoader::~TraceLoader() { stop(); }

QString TraceLoader::sourceName() const {
  return options_.path.isEmpty() || options_.path == "-" ? QStringLiteral("stdin") : options_.path;
}

void TraceLoader::setTimeBase(bool rawTime, bool compensate) {
  {
    std::lock_guard lock(mutex_);
    rawTime_ = rawTime;
    compensate_ = compensate;
    timeBaseChanged_ = true;
  }
  wake_.notify_all();
}

void TraceLoader::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  readerDone_ = false;
  thread_ = std::thread([this] {
    run();
    std::lock_guard lock(mutex_);
    readerDone_ = true;
    wake_.notify_all();
  });
  snapshots_ = std::thread([this] { snapshotLoop(); });
}

void TraceLoader::stop() {
  stopping_ = true;
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (snapshots_.joinable()) snapshots_.join();
}

void TraceLoader::post(Raw raw) {
  std::lock_guard lock(mutex_);
  wanted_ = false;
  pending_ = std::move(raw);
  wake_.notify_all();
}

// The snapshot thread: every minIntervalMs, the reader's newest trace made
// a snapshot (the new records only), with the newest finished analysis.
// An analysis runs on its own thread; while records flow the next starts
// when the last is done and twice as long again has passed (it costs the
// whole trace: at most a third of the time), never on a file's backlog;
// once the input pauses, at once.  The last snapshot, at the end of the
// input, waits for a complete analysis.
void TraceLoader::snapshotLoop() {
  try {
    SnapshotBuilder builder;
    AnalysisPtr analysis = std::make_shared<Analysis>();
    std::future<AnalysisPtr> running;
    std::shared_ptr<const ViewSnapshot> last;
    std::deque<std::shared_ptr<const ViewSnapshot>> retired;
    auto analysisDone = Clock::now();
    double analysisMs = 0;
    // A re-timed trace (another time base) makes every analysis of the old
    // times stale: its lines and mipmaps would be drawn at the old dates.
    // Each time base is an epoch; an analysis of an older one is dropped.
    unsigned epoch = 0, runningEpoch = 0;
    bool lastCaughtUp = false, lastRegular = false, lastReachedEnd = false;
    // Ticks on a fixed schedule (each interval after the last tick, not
    // after the moment it was served), so that late wake-ups on a busy core
    // do not add up to fewer than 1000 / minIntervalMs pictures a second.
    // A tick with no trace from the reader yet is overdue: the reader's next
    // trace is taken when it comes, not a whole interval later.
    const auto interval = std::chrono::milliseconds(options_.minIntervalMs);
    auto nextTick = Clock::now();
    bool overdue = false;
    while (!stopping_) {
      std::optional<Raw> raw;
      bool done = false;
      {
        std::unique_lock lock(mutex_);
        auto takeNow = [&] { return readerDone_ || (pending_ && (pending_->ended || overdue)); };
        wake_.wait_until(lock, nextTick, [&] { return stopping_ || takeNow(); });
        if (Clock::now() >= nextTick || takeNow()) {
          raw = std::move(pending_);
          pending_.reset();
          done = readerDone_ && !raw;
          wanted_ = true;
        }
      }
      if (stopping_ || done) break;
      if (const auto now = Clock::now(); now >= nextTick) {
        overdue = !raw;
        nextTick += interval;
        if (nextTick <= now) nextTick = now + interval;  // fell behind: no burst to catch up
      } else if (raw) {
        overdue = false;
      }
      bool analysed = running.valid() && running.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
      if (analysed) {
        AnalysisPtr done = running.get();
        analysisMs = done->buildMs;
        analysisDone = Clock::now();
        if (runningEpoch == epoch) analysis = std::move(done);
      }
      if (raw && raw->newTimeBase) {
        ++epoch;
        analysis = std::make_shared<Analysis>();
      }
      if (raw || (analysed && last)) {
        std::shared_ptr<ViewSnapshot> s;
        if (raw) {
          if (raw->retimed) builder = SnapshotBuilder();
          s = builder.update(raw->trace);
          s->timeNote = raw->timeNote;
          s->errors = std::move(raw->errors);
          s->errorCount = raw->errorCount;
          s->fatal = std::move(raw->fatal);
          s->source = sourceName().toStdString();
          s->bytes = raw->bytes;
          s->inputEnded = raw->ended;
          s->caughtUp = raw->caughtUp || raw->ended;
          lastCaughtUp = s->caughtUp;
          lastRegular = raw->regular;
          lastReachedEnd = raw->reachedEnd;
        } else {  // a new analysis of the same records
          s = std::make_shared<ViewSnapshot>(*last);
        }
        s->followingFile = options_.follow && !options_.path.isEmpty() && options_.path != "-";
        if (s->inputEnded && analysis->records != s->trace->eventCount()) {  // the last one is complete
          if (running.valid()) running.wait();
          running = {};
          analysis = analyseSnapshot(*s);
        }
        s->analysis = analysis;
        last = s;
        // The last one stays referenced here a moment longer, so that the
        // GUI thread, done with it, is rarely the one that frees it (a big
        // trace's analysis takes tens of ms to free).
        retired.push_back(s);
        if (retired.size() > 1) retired.pop_front();
        publish(std::move(s));
      }
      if (!last || running.valid() || analysis->records == last->trace->eventCount()) continue;
      const bool rested =
          Clock::now() - analysisDone >= std::chrono::duration<double, std::milli>(kAnalysisRest * analysisMs);
      // A file's backlog is read in moments: an analysis of part of it would
      // be stale at once (and cost the memory of a second one).  Once the
      // input pauses (caught up, nothing new for a tick) the analysis
      // catches up at once: the hang panel waits for a complete one.
      const bool backlog = lastRegular && !lastCaughtUp && !lastReachedEnd;
      const bool paused = lastCaughtUp && !raw;
      if ((rested && !backlog) || paused) {
        runningEpoch = epoch;
        running = std::async(std::launch::async, [frozen = last] {
          // Below the GUI and the reader: on a busy machine the picture and
          // the input come first, the whole-trace figures after.
          ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kAnalysisNice);
          return analyseSnapshot(*frozen);
        });
      }
    }
    if (running.valid()) running.wait();
  } catch (const std::exception& e) {
    QString msg = QString("snapshot thread: ") + e.what();
    fail(msg);
  }
}

void TraceLoader::publish(std::shared_ptr<ViewSnapshot> s) {
  {
    std::lock_guard lock(publishedMutex_);
    published_.push_back(std::move(s));
  }
  // Runs in the GUI thread; dropped if this loader is gone by then.
  QMetaObject::invokeMethod(this, "deliverPublished", Qt::QueuedConnection);
}

void TraceLoader::fail(QString message) {
  {
    std::lock_guard lock(publishedMutex_);
    failures_.push_back(std::move(message));
  }
  QMetaObject::invokeMethod(this, "deliverPublished", Qt::QueuedConnection);
}

void TraceLoader::deliverPublished() {
  std::vector<SnapshotPtr> batch;
  std::vector<QString> failures;
  {
    std::lock_guard lock(publishedMutex_);
    batch.swap(published_);
    failures.swap(failures_);
  }
  for (const SnapshotPtr& s : batch) emit snapshotReady(s);
  for (const QString& m : failures) emit loadFailed(m);
}

// A finished file in a format the translators read (PICL): converted in
// one go on this thread.  False when the file is xab's own format.
bool TraceLoader::readForeign() {
  std::string path = options_.path.toStdString();
  std::string head;
  SourceOptions sniff;
  sniff.pieceBytes = 4096;
  readPieces(path, sniff, [&head](std::string_view piece) {
    head = piece;
    return false;  // the first piece is enough
  });
  if (head.empty() || !tr::looksLikePicl(head)) return false;
  LoadResult r = tr::loadPiclFile(path);
  if (!r.trace) {
    QString msg = QString::fromStdString(r.fatal);
    fail(msg);
    return true;
  }
  auto s = buildSnapshot(r.trace);
  s->errors = r.errors;
  s->errorCount = r.errorCount;
  s->fatal = r.fatal;
  s->source = path + " (PICL)";
  s->inputEnded = true;
  s->caughtUp = true;
  publish(std::move(s));
  return true;
}

// --compensate: the model's compensation of the whole trace so far (it
// needs every task's history from its start), so the picture starts again.
void TraceLoader::compensateTimes(Raw& raw) {
  CompensationReport report;
  raw.trace = compensate(std::move(raw.trace), report);
  if (!report.costRecords) {
    raw.timeNote += "; no cost records: not compensated";
    return;
  }
  raw.retimed = true;
  raw.timeNote += "; compensated (xab's cost taken out)";
}

// The reader thread: the model's TraceSource reads (and follows, by its
// one rule); this loop only decides when the snapshot thread gets a trace.
void TraceLoader::run() {
  try {
    SourceOptions options;
    options.follow = options_.follow;
    options.waitMs = kWaitMs;
    TraceSource source(options_.path.toStdString(), options);
    if (!source.error().empty()) {
      QString msg = QString::fromStdString(source.error());
      fail(msg);
      return;
    }
    if (source.isFile() && readForeign()) return;
    TraceReader& reader = source.reader();
    std::uint64_t postedEvents = UINT64_MAX, postedErrors = 0;
    LiveClockFit clockFit;
    bool ended = false, reportedEnd = false, postedCaughtUp = false;

    bool reachedEnd = false;   // caught up since the last post
    bool shownGlobal = false;  // the last picture was re-timed
    bool clocksMove = false;   // the last fit said re-timing would move some task
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
      const bool wasGlobal = shownGlobal;
      // Global time: the fit so far, refined as clock records arrive.  A
      // trace whose clocks all agree with abmon's within the fits' error
      // (one host, an idle machine) is on global time as recorded, and each
      // picture extends the last; otherwise (above) it is re-timed when the
      // input pauses or ends, and the picture starts again.
      if (!rawTime_) {
        auto trace = readSoFar();
        clocksMove = clockFit.update(*trace);
        const bool global = clocksMove && (ended || paused());
        raw.trace = std::move(trace);
        if (global) {
          ClockReport clock;
          raw.trace = toGlobalTime(std::move(raw.trace), clock);
          raw.timeNote = "global time";
        } else if (clocksMove) {
          raw.timeNote = "task clocks while records flow (global time when they pause)";
        } else {
          raw.timeNote = clockFit.anySamples() ? "global time (every clock agrees with abmon's)"
                                               : "task clocks (no clock records)";
        }
        raw.retimed = global || shownGlobal;  // another time base: the picture starts again
        shownGlobal = global;
      } else {
        raw.trace = readSoFar();
        raw.timeNote = "task clocks (--raw-time)";
        raw.retimed = shownGlobal;
        shownGlobal = false;
      }
      raw.newTimeBase = rebased || wasGlobal != shownGlobal;
      raw.retimed = raw.retimed || raw.newTimeBase;
      if (compensate_) compensateTimes(raw);
      correctToRecord(raw);
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
      recordsRead_.store(reader.eventCount(), std::memory_order_relaxed);
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
      const bool settle = !rawTime_ && clocksMove && !shownGlobal && paused();
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

// --replay-of: the picture on the recorded run's dates (docs/replay.md).
// Every snapshot is corrected whole: a correction moves every task.
void TraceLoader::correctToRecord(Raw& raw) const {
  if (!options_.record || !raw.trace) return;
  ReplayCorrectionReport rep;
  raw.trace = correctReplay(std::move(raw.trace), *options_.record, rep);
  raw.retimed = true;
  raw.timeNote += rep.tasksMatched ? ", replay on the record's dates" : ", not a replay of the record";
}

}  // namespace xab::view
