// live_meter.h -- how far the display is behind its input, and whether the
// GUI thread keeps up.
//
// ArrivalMeter samples the reader thread's record count (TraceLoader::
// recordsRead(), an atomic) on the GUI thread: its rate is what the
// program sends, records per second at the reader, not how fast the viewer
// catches up; it falls to 0 a second after input stops.  lag() compares
// that count with the snapshot on screen.
//
// StallWatchdog is a fine timer on the GUI thread: a tick that comes late
// measures a stall (the thread was busy), the longest one is kept.
//
// FrameLog writes one line per diagram repaint (--frame-log FILE) for
// bench/xabview_live.sh: wall time, paint time, records shown and read,
// how old the newest record shown is, the worst stall so far.
#pragma once

#include "snapshot.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <cstdio>
#include <deque>
#include <functional>

namespace xab::view {

class ArrivalMeter : public QObject {
  Q_OBJECT
 public:
  using Counter = std::function<std::uint64_t()>;
  explicit ArrivalMeter(Counter recordsRead = {}, QObject* parent = nullptr);
  void setCounter(Counter recordsRead);
  std::uint64_t recordsRead() const { return count_ ? count_() : 0; }
  // Records per second that reached the reader over the last second.
  double rate() const { return rate_; }
  void sample();  // also called by its own 200 ms timer

 private:
  Counter count_;
  QElapsedTimer clock_;
  struct Sample { qint64 ms; std::uint64_t count; };
  std::deque<Sample> samples_;
  double rate_ = 0;
  QTimer timer_;
};

// How far the snapshot on screen is behind the reader.
struct Lag {
  std::uint64_t records = 0;  // read, not yet shown
  double seconds = 0;         // since the snapshot shown was taken (0 when none are behind)
};
Lag lagOf(const ViewSnapshot& shown, std::uint64_t recordsRead);

// The newest record's arrival at abmon (recvTime, the real-time clock):
// ms before now.  Negative when no record or another host's clock.
double newestRecordAgeMs(const ViewSnapshot& s);

class StallWatchdog : public QObject {
  Q_OBJECT
 public:
  explicit StallWatchdog(int intervalMs = 20, QObject* parent = nullptr);
  double worstMs() const { return worst_; }  // longest lateness of a tick
  // The longest lateness since the last call (per frame, for the log).
  double takeRecentWorst();

 private:
  void tick();
  int interval_;
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 previous_ = 0;
  double worst_ = 0, recent_ = 0;
};

class FrameLog {
 public:
  explicit FrameLog(const QString& file);  // "" : off
  ~FrameLog();
  FrameLog(const FrameLog&) = delete;
  FrameLog& operator=(const FrameLog&) = delete;
  bool on() const { return file_ != nullptr; }
  struct Frame {
    double paintMs = 0;
    std::uint64_t shown = 0, read = 0;
    double ageMs = -1, lagSeconds = 0, rate = 0, stallMs = 0, worstStallMs = 0;
    double snapshotMs = 0;       // what the snapshot shown took to build
    std::uint64_t analysed = 0;  // records its analysis covers
  };
  void write(const Frame& f);

 private:
  std::FILE* file_ = nullptr;
  QElapsedTimer clock_;
};

}  // namespace xab::view
