// lazy_why.h -- the Why-slow analysis (WhyAnalysis: wait states, their
// causes, the critical path) made only once something asks for it, on a
// thread of its own, so that opening a trace does not wait for it.
//
// ViewState passes every snapshot through attach(): once want() was
// called, the newest snapshot's analysis gets its WhyAnalysis made, one at
// a time (a live run's newer analyses wait for the running one, then the
// newest is taken).  Until it is there a snapshot carries the newest one
// made of the same input and time base (of fewer records), or none.
#pragma once

#include "trace_loader.h"

#include <QObject>

#include <cstdint>
#include <future>
#include <mutex>

namespace xab::view {

class LazyWhy : public QObject {
  Q_OBJECT
 public:
  explicit LazyWhy(QObject* parent = nullptr);
  ~LazyWhy() override;  // waits for a running analysis

  bool wanted() const { return wanted_; }
  void want() { wanted_ = true; }
  bool running() const { return running_; }
  std::uint64_t started() const { return started_; }  // analyses begun so far
  // `s`, or a copy of it carrying the newest WhyAnalysis made when s has an
  // older one or none; starts making s's when wanted and none runs.
  SnapshotPtr attach(SnapshotPtr s);

 signals:
  void made();  // a WhyAnalysis is done: attach() the shown snapshot again

 private:
  Q_INVOKABLE void deliver();  // in the GUI thread

  bool wanted_ = false, running_ = false;
  std::uint64_t started_ = 0;
  WhyPtr newest_;
  std::future<void> job_;
  // The worker's result, handed over under a mutex (as the loader's snapshots).
  std::mutex doneMutex_;
  WhyPtr done_;
};

}  // namespace xab::view
