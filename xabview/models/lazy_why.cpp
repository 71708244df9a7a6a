// The Why-slow analysis made on demand (lazy_why.h).
#include "lazy_why.h"

namespace xab::view {

LazyWhy::LazyWhy(QObject* parent) : QObject(parent) {}

LazyWhy::~LazyWhy() {
  if (job_.valid()) job_.wait();
}

SnapshotPtr LazyWhy::attach(SnapshotPtr s) {
  if (!s || !s->analysis || !s->analysis->model.trace || s->whyReady()) return s;
  // The newest made, when it is of this input and time base and no newer
  // than its analysis (an analysis of fewer records: a live run's).
  const bool fits = newest_ && newest_ != s->whyAnalysis && newest_->source == s->source &&
                    newest_->timeBase == s->timeBase && newest_->records <= s->analysis->records &&
                    (!s->whyAnalysis || newest_->records >= s->whyAnalysis->records);
  if (fits) {
    auto copy = std::make_shared<ViewSnapshot>(*s);
    copy->whyAnalysis = newest_;
    s = std::move(copy);
  }
  if (wanted_ && !running_ && !s->whyReady()) {
    running_ = true;
    ++started_;
    if (job_.valid()) job_.wait();  // done: its result is delivered
    job_ = std::async(std::launch::async, [this, s] {
      WhyPtr w = analyseWhy(*s);
      {
        std::lock_guard lock(doneMutex_);
        done_ = std::move(w);
      }
      QMetaObject::invokeMethod(this, "deliver", Qt::QueuedConnection);
    });
  }
  return s;
}

void LazyWhy::deliver() {
  WhyPtr w;
  {
    std::lock_guard lock(doneMutex_);
    w.swap(done_);
  }
  if (!w) return;
  running_ = false;
  newest_ = std::move(w);
  emit made();
}

}  // namespace xab::view
