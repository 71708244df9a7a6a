#include "view_state.h"

#include <QDateTime>

#include <algorithm>
#include <cmath>

namespace xab::view {

namespace {

// The room beside a trace of this span: 1/50 of it, at least 1 us (a run
// of tens of microseconds fills the diagram, not 3 % of a millisecond).
TimeNs marginOf(TimeNs span) { return std::max<TimeNs>(span / 50, 1000); }

}  // namespace

bool EventFilter::matches(const OrderEntry& e, const RecordRef& r) const {
  if (!tasks.empty() && !tasks.count(e.task)) return false;
  if (!kind && !tag && libabRecords) return true;
  const EventStore::Shape sh = r.shape();
  if (!libabRecords && isLibabRecord(sh.kind) && kind != sh.kind) return false;
  if (kind && sh.kind != *kind) return false;
  if (tag) {
    const int slot = slotOf(sh.kind, sh.phase, Key::Tag);
    if (!sh.has(slot) || r.event().a[slot] != *tag) return false;
  }
  return true;
}

ViewState::ViewState(QObject* parent) : QObject(parent), why_(new LazyWhy(this)) {
  progressClock_.start();
  connect(why_, &LazyWhy::made, this, [this] {
    if (snapshot_) setSnapshot(snapshot_);  // with the new one, or the next begun
  });
}

void ViewState::wantWhy() {
  if (why_->wanted()) return;
  why_->want();
  if (snapshot_) why_->attach(snapshot_);  // begins it
}

std::uint32_t ViewState::shownOf(TaskIndex task) const {
  return task < shown_.size() ? shown_[task] : 0;
}

TimeNs ViewState::cursorTime() const { return cursorTime_; }

TimeNs ViewState::nowTime() const {
  TimeNs t = cursorTime();
  // At the end of a finished trace, "now" is when abmon stopped: a task
  // blocked to the end was blocked until then (the hang's real length).
  if (snapshot_ && atEnd() && snapshot_->monitorEnd > t && snapshot_->monitorEnd - t < TimeNs{86'400} * 1'000'000'000)
    t = snapshot_->monitorEnd;
  if (live_ && snapshot_ && !snapshot_->inputEnded && atEnd()) {
    TimeNs wall = QDateTime::currentMSecsSinceEpoch() * 1'000'000;
    // Only trust the wall clock when it is close to the trace's (same host).
    if (wall > t && wall - t < TimeNs{86'400} * 1'000'000'000) t = wall;
  }
  return t;
}

// A step (a few records either way) moves the counts of the tasks of the
// records passed over, not every task's: with 10,000 tasks refreshShown's
// search per task made each Step cost tens of milliseconds.
void ViewState::moveShown(std::size_t from) {
  constexpr std::size_t kFewRecords = 64;
  const std::size_t to = position_;
  if (!snapshot_ || shown_.size() != snapshot_->trace->taskCount() || (to > from ? to - from : from - to) > kFewRecords) {
    refreshShown();
    return;
  }
  const Trace& tr = *snapshot_->trace;
  for (std::size_t q = std::min(from, to); q < std::max(from, to); ++q) {
    const TaskIndex t = snapshot_->order.taskAt(q);
    if (t == kMonitorTask) continue;
    if (to > from) {
      ++shown_[t];
      cursorTime_ = std::max(cursorTime_, tr.events(t)[shown_[t] - 1].time);
    } else {
      --shown_[t];
    }
  }
  if (to < from) {  // "now" may be earlier: the latest of what is still shown
    cursorTime_ = snapshot_->tasksBegin;
    for (TaskIndex t = 0; t < shown_.size(); ++t)
      if (shown_[t] > 0) cursorTime_ = std::max(cursorTime_, tr.events(t)[shown_[t] - 1].time);
  }
}

void ViewState::refreshShown() {
  shown_.clear();
  cursorTime_ = 0;
  if (!snapshot_) return;
  const Trace& tr = *snapshot_->trace;
  shown_.resize(tr.taskCount());
  cursorTime_ = snapshot_->tasksBegin;
  for (TaskIndex t = 0; t < shown_.size(); ++t) {
    shown_[t] = position_ >= size() ? static_cast<std::uint32_t>(tr.events(t).size())
                                    : snapshot_->prefixAt(t, position_);
    if (shown_[t] > 0) cursorTime_ = std::max(cursorTime_, tr.events(t)[shown_[t] - 1].time);
  }
}

bool ViewState::askHistory(TimeNs t) {
  const ViewSnapshot* s = snapshot_.get();
  if (!s || !s->history || s->history->empty() || t >= s->history->end() || t < s->history->origin()) return false;
  // Held here: from the cut's time on (a task's start and its calls open
  // at the cut are kept, so tasksBegin says nothing of the window).
  const TraceCut& cut = s->trace->cut();
  if (cut.cut && t >= cut.time && (!s->fromHistory || t <= s->tasksEnd)) return false;
  emit historyWanted(t);
  return true;
}

void ViewState::setSnapshot(SnapshotPtr s) {
  // A budget's cut moved the window on: positions count from its start, so
  // a position held (paused, a selection) moves back by what was dropped.
  // A selected record stays selected while the window holds it: kept, or
  // carried across the cut to the new window's front.
  if (snapshot_ && s && snapshot_->fromHistory == s->fromHistory && s->windowStart() > snapshot_->windowStart()) {
    const std::uint64_t d = s->windowStart() - snapshot_->windowStart();
    position_ = position_ > d ? position_ - d : 0;
    if (selected_ && *selected_ < snapshot_->size()) {
      const std::uint64_t run = snapshot_->trace->runPosition(static_cast<std::uint32_t>(*selected_));
      const TraceCut& cut = s->trace->cut();
      selected_.reset();
      if (run >= cut.position) {
        selected_ = static_cast<std::size_t>(run - s->windowStart());
      } else {
        for (std::uint32_t j = 0; j < cut.carried && !selected_; ++j)
          if (s->trace->runPosition(j) == run) selected_ = j;
      }
    } else {
      selected_.reset();
    }
  }
  // Progress is a task's record: abmon's own (its samples, every 100 ms)
  // say nothing about whether the program moves.
  auto taskRecords = [this] { return snapshot_ && snapshot_->trace ? snapshot_->trace->eventCount() : 0; };
  const std::uint64_t before = taskRecords();
  snapshot_ = why_->attach(std::move(s));
  if (taskRecords() > before) progressClock_.restart();
  if (live_ || position_ > size()) position_ = size();
  if (selected_ && *selected_ >= size()) {
    selected_.reset();
    selectedTime_.reset();
    selectedMessage_.reset();
  }
  refreshShown();
  emit snapshotChanged();
  if (follow_ == Follow::WholeTrace) fitAll();
  else if (follow_ == Follow::Newest && live_) showNewest(viewEnd_ - viewBegin_);
  emit positionChanged();
}

void ViewState::setPosition(std::size_t p) {
  p = std::min(p, size());
  bool wasLive = live_;
  live_ = false;
  const std::size_t from = position_;
  position_ = p;
  moveShown(from);
  if (wasLive) emit liveChanged(false);
  emit positionChanged();
}

void ViewState::step(long delta) {
  long p = static_cast<long>(position_) + delta;
  setPosition(static_cast<std::size_t>(std::max(0L, p)));
}

void ViewState::setLive(bool live) {
  if (live && follow_ == Follow::None) {  // Live after a pan: follow the newest again
    follow_ = Follow::Newest;
    showNewest(viewEnd_ - viewBegin_);
  }
  if (live == live_) return;
  live_ = live;
  if (live_) {
    position_ = size();
    refreshShown();
    emit positionChanged();
  }
  emit liveChanged(live_);
}

void ViewState::setViewRange(TimeNs begin, TimeNs end) {
  if (end <= begin) end = begin + 1000;  // at least a microsecond wide
  viewBegin_ = begin;
  viewEnd_ = end;
  follow_ = Follow::None;
  emit rangeChanged();
}

void ViewState::zoom(double factor, TimeNs center) {
  const bool following = live_ && follow_ != Follow::None;
  double b = static_cast<double>(viewBegin_ - center) * factor;
  double e = static_cast<double>(viewEnd_ - center) * factor;
  clampToTrace(center + static_cast<TimeNs>(std::llround(b)), center + static_cast<TimeNs>(std::llround(e)));
  // Always around `center`; live, with the newest records still in view,
  // the new width follows them as new records come.
  if (following && newestTime() >= viewBegin_ && newestTime() <= viewEnd_) follow_ = Follow::Newest;
}

TimeNs ViewState::zoomCenter() const {
  if (live_ && follow_ != Follow::None && snapshot_) return newestTime();
  return viewBegin_ + (viewEnd_ - viewBegin_) / 2;
}

TimeNs ViewState::newestTime() const {
  if (!snapshot_) return 0;
  // A hung trace is shown up to abmon's stop: how long the tasks sat blocked.
  TimeNs e = snapshot_->hang().hung ? std::max(snapshot_->tasksEnd, snapshot_->monitorEnd) : snapshot_->tasksEnd;
  if (e - snapshot_->tasksEnd > TimeNs{86'400} * 1'000'000'000) e = snapshot_->tasksEnd;
  // Following a running program: up to the present, so a silent (hung)
  // program's blocked bars keep growing.
  if (live_ && !snapshot_->inputEnded && atEnd()) e = std::max(e, nowTime());
  return e;
}

void ViewState::followPresent() {
  if (!live_ || !snapshot_ || snapshot_->inputEnded) return;
  if (follow_ == Follow::WholeTrace) fitAll();
  else if (follow_ == Follow::Newest) showNewest(viewEnd_ - viewBegin_);
}

void ViewState::showNewest(TimeNs width) {
  width = std::max<TimeNs>(width, 1000);
  viewEnd_ = newestTime() + std::max<TimeNs>(width / 50, 1);
  viewBegin_ = viewEnd_ - width;
  emit rangeChanged();
}

void ViewState::pan(double fraction) {
  auto d = static_cast<TimeNs>(static_cast<double>(viewEnd_ - viewBegin_) * fraction);
  clampToTrace(viewBegin_ + d, viewEnd_ + d);
}

// The trace with fitAll()'s margin on both sides: no wider, and no
// further out.
void ViewState::clampToTrace(TimeNs begin, TimeNs end) {
  if (size() > 0) {
    TimeNs lo = snapshot_->runBegin(), hi = newestTime();
    const TimeNs pad = marginOf(hi - lo);
    lo -= pad;
    hi += pad;
    const TimeNs width = end - begin;
    if (width >= hi - lo) {
      begin = lo;
      end = hi;
    } else if (begin < lo) {
      begin = lo;
      end = lo + width;
    } else if (end > hi) {
      end = hi;
      begin = hi - width;
    }
  }
  setViewRange(begin, end);
}

void ViewState::fitAll() {
  TimeNs b = snapshot_ ? snapshot_->runBegin() : 0;
  TimeNs e = newestTime();
  TimeNs pad = marginOf(e - b);
  viewBegin_ = b;
  viewEnd_ = e + pad;
  follow_ = Follow::WholeTrace;
  emit rangeChanged();
}

void ViewState::setFilter(const EventFilter& f) {
  filter_ = f;
  emit filterChanged();
}

void ViewState::select(std::optional<std::size_t> position) {
  if (position && *position >= size()) position.reset();
  if (position == selected_ && !selectedTime_ && !selectedMessage_) return;
  selected_ = position;
  selectedTime_.reset();
  selectedMessage_.reset();
  emit selectionChanged();
}

void ViewState::selectAt(std::size_t position, TimeNs time, std::optional<std::uint32_t> message) {
  if (position >= size()) return select(std::nullopt);
  if (selected_ == position && selectedTime_ == time && selectedMessage_ == message) return;
  selected_ = position;
  selectedTime_ = time;
  selectedMessage_ = message;
  emit selectionChanged();
}

void ViewState::setHighlights(std::vector<Highlight> h) {
  if (h == highlights_) return;
  highlights_ = std::move(h);
  emit highlightsChanged();
}

const RowPlan& ViewState::rowPlan() const {
  if (rowPlanStale_ || rowPlanOf_ != snapshot_.get()) {
    rowPlan_ = snapshot_ ? planRows(*snapshot_->trace, rowChoice_) : RowPlan{};
    rowPlanOf_ = snapshot_.get();
    rowPlanStale_ = false;
  }
  return rowPlan_;
}

void ViewState::setRowChoice(const RowChoice& c) {
  if (c == rowChoice_) return;
  rowChoice_ = c;
  rowPlanStale_ = true;
  emit rowsChanged();
}

}  // namespace xab::view
