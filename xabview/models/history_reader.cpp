// history_reader.cpp -- records a memory budget's window dropped, read
// again from the input for a look at the past (trace_loader.h).
#include "trace_loader.h"

#include <algorithm>

namespace xab::view {

namespace {

// The whole run's arrival position of the record at time t, from the time
// index: inside the entry whose times reach t, in proportion to its time.
std::uint64_t positionAt(const std::vector<IndexEntry>& index, TimeNs t) {
  for (const IndexEntry& e : index) {
    if (e.last < t) continue;
    if (t <= e.first || e.last <= e.first) return e.position;
    const double share = static_cast<double>(t - e.first) / static_cast<double>(e.last - e.first);
    return e.position + static_cast<std::uint64_t>(share * static_cast<double>(e.records));
  }
  return index.back().position + index.back().records;
}

}  // namespace

bool TraceLoader::readHistory(TimeNs t, std::shared_ptr<const RunHistory> history) {
  std::shared_ptr<TraceSource> source;
  std::uint64_t window = 0;
  {
    std::lock_guard lock(mutex_);
    source = source_;
    window = windowRecords_;
  }
  if (!source || window == 0 || !source->canReadRange()) return false;
  const std::vector<IndexEntry> index = source->index();
  if (index.empty()) return false;
  if (history_.joinable()) history_.join();
  history_ = std::thread([this, source, window, t, history = std::move(history), index] {
    try {
      // A quarter of the window around t: the window, this and their
      // analyses stay within the budget.
      const std::uint64_t n = std::max<std::uint64_t>(1, window / 4);
      const std::uint64_t runRecords = index.back().position + index.back().records;
      const std::uint64_t at = positionAt(index, t);
      const std::uint64_t from = at > n / 2 ? at - n / 2 : 0;
      std::string error;
      std::shared_ptr<const Trace> trace = source->readRange(from, std::min(runRecords, from + n), &error);
      if (!trace) {
        fail(QString::fromStdString("reading the past again: " + error));
        return;
      }
      SnapshotBuilder builder;
      std::shared_ptr<ViewSnapshot> s = builder.update(trace);
      s->history = history;
      s->fromHistory = true;
      s->source = sourceName().toStdString();
      s->timeNote = "task clocks: records read again from the input";
      s->inputEnded = s->caughtUp = true;
      s->analysis = analyseSnapshot(*s);
      {
        std::lock_guard lock(publishedMutex_);
        historyDone_ = std::move(s);
      }
      QMetaObject::invokeMethod(this, "deliverHistory", Qt::QueuedConnection);
    } catch (const std::exception& e) {
      fail(QString("reading the history: ") + e.what());
    }
  });
  return true;
}

void TraceLoader::deliverHistory() {
  SnapshotPtr s;
  {
    std::lock_guard lock(publishedMutex_);
    s = std::move(historyDone_);
    historyDone_.reset();
  }
  if (s) emit historyReady(s);
}

}  // namespace xab::view
