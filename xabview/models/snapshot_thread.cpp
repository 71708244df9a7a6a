// snapshot_thread.cpp -- the loader's snapshot thread (trace_loader.h):
// the reader's newest trace made a snapshot at a fixed cadence, and the
// whole-trace analyses run beside it.
#include "analysis_pace.h"
#include "trace_loader.h"

#include <chrono>
#include <deque>
#include <future>
#include <sys/resource.h>
#include <unistd.h>

namespace xab::view {
namespace {

using Clock = std::chrono::steady_clock;

// An analysis runs at the nice value kAnalysisNice (its threads inherit
// it); AnalysisPace says when the next starts while records flow.
constexpr int kAnalysisNice = 10;
// A file read to its end on task clocks that global time moves is put on
// global time once the input has paused (reader_thread.cpp): for so long
// after catching up, no analysis of the task clocks starts.
constexpr auto kGlobalWait = std::chrono::seconds(1);

}  // namespace

// The snapshot thread: every minIntervalMs, the reader's newest trace made
// a snapshot (the new records only), with the newest finished analysis.
// An analysis runs on its own thread; while records flow the next starts
// when the last is done and twice as long again has passed (it costs the
// whole trace: at most a third of the time), or at once after a cut
// (AnalysisPace), never on a file's backlog; once the input pauses, at
// once.  The last snapshot, at the end of the
// input, waits for a complete analysis.
void TraceLoader::snapshotLoop() {
  try {
    SnapshotBuilder builder;
    AnalysisPtr analysis = std::make_shared<Analysis>();
    std::future<AnalysisPtr> running;
    std::shared_ptr<const ViewSnapshot> last;
    std::deque<std::shared_ptr<const ViewSnapshot>> retired;
    AnalysisPace pace;
    // A re-timed trace (another time base) makes every analysis of the old
    // times stale: its lines and mipmaps would be drawn at the old dates.
    // Each time base is an epoch; an analysis of an older one is dropped.
    unsigned epoch = 0, runningEpoch = 0;
    std::uint64_t lastCut = 0;  // the window's start in the run (Trace::cut())
    bool lastCaughtUp = false, lastRegular = false, lastReachedEnd = false;
    // Since when the pictures are caught up and owe global time (their
    // first such one), when they are.
    bool owingCaughtUp = false;
    auto caughtUpAt = Clock::now();
    // Ticks on a fixed schedule (each interval after the last tick, not
    // after the moment it was served), so that late wake-ups on a busy core
    // do not add up to fewer than 1000 / minIntervalMs pictures a second.
    // The reader is asked for its trace at the tick (wanted_), not after the
    // last one was taken: a trace made then would wait an interval for the
    // tick, its records that much older when shown.  A tick with no trace
    // from the reader yet is overdue: the reader's next trace is taken when
    // it comes (one step of the reader's later).
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
          if (!raw) wanted_ = true;
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
        pace.finished(done->buildMs, Clock::now(), runningEpoch != epoch);
        if (runningEpoch == epoch) analysis = std::move(done);
      }
      // A budget's cut (a window further on) renumbers the records as a new
      // time base re-dates them: an analysis of the old window is stale.
      const bool cut = raw && raw->trace && raw->trace->cut().position != lastCut;
      if (raw && raw->trace) lastCut = raw->trace->cut().position;
      if (raw && (raw->newTimeBase || cut)) {
        ++epoch;
        analysis = std::make_shared<Analysis>();
        pace.restart();
      }
      if (raw || (analysed && last)) {
        std::shared_ptr<ViewSnapshot> s;
        if (raw) {
          // A re-timed trace (raw->retimed) holds the same records: the
          // order and the spans are of the records, whatever their times
          // (a span begins at its first record's time), so the builder
          // goes on from them rather than build a second set beside the
          // pictures that still show the first.  Its mipmaps are of times:
          // made again on a new time base, kept through the small moves of
          // global time's fit (as an analysis of an earlier picture is).
          s = builder.update(raw->trace, raw->newTimeBase);
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
          if (s->caughtUp && raw->globalOwed && !owingCaughtUp) caughtUpAt = Clock::now();
          owingCaughtUp = s->caughtUp && raw->globalOwed;
        } else {  // a new analysis of the same records
          s = std::make_shared<ViewSnapshot>(*last);
        }
        s->followingFile = options_.follow && !options_.path.isEmpty() && options_.path != "-";
        s->timeBase = epoch;
        if (s->inputEnded && analysis->records != s->trace->eventCount()) {  // the last one is complete
          // Shown at once as caught up, with the analysis there is, while
          // the complete one is made: the last records (the program's
          // exit, abmon's stop) are not held back by it.
          if (analysis->records > 0) {
            auto now = std::make_shared<ViewSnapshot>(*s);
            now->inputEnded = false;
            now->analysis = analysis;
            publish(std::move(now));
          }
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
      const bool rested = pace.rested(Clock::now());
      // A file's backlog is read in moments: an analysis of part of it would
      // be stale at once (and cost the memory of a second one).  Once the
      // input pauses (caught up, nothing new for a tick) the analysis
      // catches up at once: the hang panel waits for a complete one.
      const bool backlog = lastRegular && !lastCaughtUp && !lastReachedEnd;
      const bool paused = lastCaughtUp && !raw;
      // Global time is on its way (being made, or due once the input has
      // paused): the analysis waits for it, rather than be of the picture
      // it replaces and hold a message table beside the re-timing's.
      const bool globalDue =
          retiming_ || (owingCaughtUp && lastRegular && Clock::now() - caughtUpAt < kGlobalWait);
      if (((rested && !backlog) || paused) && !globalDue) {
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

}  // namespace xab::view
