#include "live_meter.h"

#include <QDateTime>

#include <algorithm>
#include <utility>

namespace xab::view {

ArrivalMeter::ArrivalMeter(Counter recordsRead, QObject* parent)
    : QObject(parent), count_(std::move(recordsRead)) {
  clock_.start();
  samples_.push_back({0, this->recordsRead()});
  connect(&timer_, &QTimer::timeout, this, &ArrivalMeter::sample);
  timer_.start(200);
}

void ArrivalMeter::setCounter(Counter recordsRead) {
  count_ = std::move(recordsRead);
  samples_.clear();
  samples_.push_back({clock_.elapsed(), this->recordsRead()});
  rate_ = 0;
}

void ArrivalMeter::sample() {
  const qint64 now = clock_.elapsed();
  samples_.push_back({now, recordsRead()});
  // Keep one second of samples (and the one just before it, the base).
  while (samples_.size() > 2 && samples_[1].ms <= now - 1000) samples_.pop_front();
  const Sample& base = samples_.front();
  if (now - base.ms < 150) return;  // too short a window to say
  rate_ = static_cast<double>(samples_.back().count - std::min(base.count, samples_.back().count)) * 1000.0 /
          static_cast<double>(now - base.ms);
}

Lag lagOf(const ViewSnapshot& shown, std::uint64_t recordsRead) {
  Lag lag;
  const std::uint64_t have = shown.runRecords();
  if (recordsRead <= have) return lag;
  lag.records = recordsRead - have;
  lag.seconds = std::max<double>(0.0, static_cast<double>(QDateTime::currentMSecsSinceEpoch() - shown.takenMs) / 1000.0);
  return lag;
}

double newestRecordAgeMs(const ViewSnapshot& s) {
  if (!s.trace || s.newestArrival == 0) return -1;
  const double now = static_cast<double>(QDateTime::currentMSecsSinceEpoch());
  const double age = now - static_cast<double>(s.newestArrival) / 1e6;
  return age >= 0 && age < 86'400'000.0 ? age : -1;
}

StallWatchdog::StallWatchdog(int intervalMs, QObject* parent) : QObject(parent), interval_(intervalMs) {
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &StallWatchdog::tick);
  clock_.start();
  timer_.start(interval_);
}

void StallWatchdog::tick() {
  const qint64 now = clock_.nsecsElapsed();
  if (previous_ > 0) {
    const double late = std::max(0.0, static_cast<double>(now - previous_) / 1e6 - interval_);
    worst_ = std::max(worst_, late);
    recent_ = std::max(recent_, late);
  }
  previous_ = now;
}

double StallWatchdog::takeRecentWorst() {
  tick();  // a stall still going on counts too
  return std::exchange(recent_, 0.0);
}

FrameLog::FrameLog(const QString& file) {
  if (file.isEmpty()) return;
  file_ = std::fopen(file.toLocal8Bit().constData(), "w");
  if (!file_) return;
  clock_.start();
  std::fputs("# ms paint_ms shown read behind lag_s newest_age_ms arrival_per_s stall_ms worst_stall_ms snapshot_ms analysed\n", file_);
}

FrameLog::~FrameLog() {
  if (file_) std::fclose(file_);
}

void FrameLog::write(const Frame& f) {
  if (!file_) return;
  std::fprintf(file_, "%lld %.2f %llu %llu %llu %.3f %.1f %.0f %.1f %.1f %.1f %llu\n", static_cast<long long>(clock_.elapsed()),
               f.paintMs, static_cast<unsigned long long>(f.shown), static_cast<unsigned long long>(f.read),
               static_cast<unsigned long long>(f.read > f.shown ? f.read - f.shown : 0), f.lagSeconds, f.ageMs, f.rate,
               f.stallMs, f.worstStallMs, f.snapshotMs, static_cast<unsigned long long>(f.analysed));
  std::fflush(file_);
}

}  // namespace xab::view
