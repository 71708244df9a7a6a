// trace_loader.cpp -- the loader's threads started and stopped, and what
// they hand the GUI thread (trace_loader.h).  The threads' own work:
// reader_thread.cpp, snapshot_thread.cpp, foreign_import.cpp; the pictures'
// time base: live_time_base.cpp.
#include "trace_loader.h"

namespace xab::view {

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
  if (history_.joinable()) history_.join();
}

void TraceLoader::post(Raw raw) {
  std::lock_guard lock(mutex_);
  wanted_ = false;
  pending_ = std::move(raw);
  wake_.notify_all();
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

}  // namespace xab::view
