// trace_loader.h -- the reader thread.
//
// Reads a trace from a pipe (`abmon | tee evfile | xabview`), a finished
// file, or a file that is still growing, on a thread of its own, and
// parses it with xab::TraceReader; nothing else runs there, so the reader
// keeps up with the program.  A second thread, at a fixed cadence
// (Options::minIntervalMs), takes the reader's newest trace, extends the
// last ViewSnapshot by the new records (SnapshotBuilder: the cost of the
// new records only) and hands it to the GUI thread with snapshotReady().
// The whole-trace analyses run on a third thread (at a lower priority) at
// most a third of the time; each snapshot carries the newest that finished, and
// the last one (end of input) a complete one.  The GUI never parses and
// never waits, so neither a slow nor a fast producer can freeze it.
// Anything the parser throws becomes loadFailed(), not a crash.
#pragma once

#include "snapshot.h"

#include <xab/model/source.h>
#include <xab/replay/record_set.h>

#include <QObject>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace xab::view {

using SnapshotPtr = std::shared_ptr<const ViewSnapshot>;

class TraceLoader : public QObject {
  Q_OBJECT
 public:
  struct Options {
    QString path;              // "" or "-": standard input
    bool follow = true;        // keep reading a regular file as it grows
    int minIntervalMs = 100;   // at most one snapshot per interval (pipes)
    bool rawTime = false;      // task clocks as recorded; else global time (docs/global-time.md)
    bool compensate = false;   // xab's measured cost taken out of the times (--compensate): each
                               // picture re-times the whole trace (the model's prepareLive())
                               // Both are where the loader starts: setTimeBase changes them.
    // --replay-of: the record the trace is a replay of; its dates are
    // corrected to the recorded run's (docs/replay.md).  Null: none.
    std::shared_ptr<const replay::RecordSet> record = nullptr;
    // The memory the trace may take (0: none): the reader keeps a window of
    // the newest records that fits it (SourceOptions::maxRecords), and what
    // it drops becomes the snapshots' RunHistory.
    std::uint64_t budget = 0;
  };
  explicit TraceLoader(Options options, QObject* parent = nullptr);
  ~TraceLoader() override;

  void start();
  void stop();  // joins the thread
  QString sourceName() const;
  // The View menu's time base (any thread): the reader re-times the trace
  // it has read so far and posts it at once (a new picture), live or after
  // the input's end; later pictures follow the new choice.
  void setTimeBase(bool rawTime, bool compensate);
  // Records of the run the reader thread has read so far, abmon's own too
  // (any thread may ask; a budget's cuts do not lower it): the status
  // bar's arrival rate and lag compare it with ViewSnapshot::runRecords().
  std::uint64_t recordsRead() const { return recordsRead_.load(std::memory_order_relaxed); }
  // Under a memory budget, the records of the run around time t that the
  // window no longer holds, read again from the file (or the spill file of
  // a pipe) through the source's time index, on a thread of their own:
  // historyReady() hands their snapshot (complete, its analysis made, the
  // run's history attached, fromHistory set).  False: no budget's window
  // yet, or nothing read to index.  A request while one runs waits for it.
  bool readHistory(TimeNs t, std::shared_ptr<const RunHistory> history);

 signals:
  void snapshotReady(xab::view::SnapshotPtr snapshot);
  void loadFailed(QString message);
  void historyReady(xab::view::SnapshotPtr snapshot);

 private:
  // What the reader hands to the snapshot thread.
  struct Raw {
    std::shared_ptr<const Trace> trace;
    std::vector<ReadError> errors;
    std::uint64_t errorCount = 0, bytes = 0;
    std::string fatal;
    bool ended = false, caughtUp = false;
    bool regular = false;  // a regular file: a backlog is read at full speed
    // The reader reached the input's end since the last post: a live file
    // read as its writer writes (woken at each write, so rarely at its end
    // at the moment of a post), not a backlog.
    bool reachedEnd = false;
    bool retimed = false;  // on another time base: a new trace (the same records, other times)
    bool newTimeBase = false;  // times changed base (global on/off, setTimeBase): older analyses are stale
    bool globalOwed = false;   // on task clocks global time would move: re-timed once the input pauses
    std::string timeNote;  // what the status bar says of the times
  };
  void run();           // reader_thread.cpp
  void snapshotLoop();  // snapshot_thread.cpp
  bool readForeign();  // foreign_import.cpp
  void publish(std::shared_ptr<ViewSnapshot> s);
  void fail(QString message);  // from any thread: loadFailed in the GUI thread
  // In the GUI thread: emits every snapshot published (and every failure)
  // since the last call.
  Q_INVOKABLE void deliverPublished();
  Q_INVOKABLE void deliverHistory();
  void post(Raw raw);

  Options options_;
  std::thread thread_, snapshots_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Raw> pending_;     // the newest trace not yet made a snapshot
  // Snapshots on their way to the GUI thread.  Handed over under a mutex of
  // ours, not in the queued call's captures: Qt's event queue locks with
  // futexes, which ThreadSanitizer does not see as synchronisation.
  std::mutex publishedMutex_;
  std::vector<SnapshotPtr> published_;
  std::vector<QString> failures_;
  bool readerDone_ = false;
  std::atomic<bool> wanted_{true};  // the snapshot thread waits for a trace
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> recordsRead_{0};
  // The reader's source, for readHistory (under mutex_): its index and
  // readRange may be used from another thread while it reads.
  std::shared_ptr<TraceSource> source_;
  std::uint64_t windowRecords_ = 0;  // the budget's window, in records (0: none)
  std::thread history_;
  SnapshotPtr historyDone_;          // under publishedMutex_
  // The time base the reader uses (Options' rawTime and compensate, then
  // setTimeBase); timeBaseChanged_: a picture on the new one is owed.
  std::atomic<bool> rawTime_, compensate_, timeBaseChanged_{false};
  // The reader is putting a trace on its time base (global time: seconds
  // at millions of records): an analysis started meanwhile would be of
  // the picture it replaces, and its memory beside the re-timing's.
  std::atomic<bool> retiming_{false};
};

}  // namespace xab::view
