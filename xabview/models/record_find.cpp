#include "record_find.h"

#include "activity.h"
#include "event_log_model.h"

#include <algorithm>

namespace xab::view {
namespace {

constexpr std::size_t kBlock = 1 << 16;  // records scanned per step (a search stops at the first block with a match)
constexpr qsizetype kMaxWords = 32;      // one bit each

std::uint32_t allOf(qsizetype n) { return n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1; }

}  // namespace

namespace {

void lower(std::string& s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
}

// The words of `words` that `text` (lower case) holds, as bits.
std::uint32_t wordsIn(std::string_view text, const std::vector<std::string>& words) {
  std::uint32_t bits = 0;
  for (std::size_t w = 0; w < words.size(); ++w)
    if (words[w].front() != ' ' && text.find(words[w]) != std::string_view::npos) bits |= 1u << w;
  return bits;
}

std::string lowered(std::string s) {
  lower(s);
  return s;
}

}  // namespace

RecordQuery::RecordQuery(const ViewSnapshot& s, const QString& text, bool libabRecords) : s_(s), libab_(libabRecords) {
  QStringList words = text.simplified().split(' ', Qt::SkipEmptyParts);
  if (words.size() > kMaxWords) words.resize(kMaxWords);
  for (const QString& w : words) {
    std::string u = lowered(w.toStdString());
    words_.push_back(std::ranges::find(u, '=') != u.end() ? ' ' + u + ' ' : u);
  }
  all_ = allOf(static_cast<qsizetype>(words_.size()));
  const TaskIndex n = s.trace ? s.trace->taskCount() : 0;
  taskWords_.assign(n + 1, 0);
  for (TaskIndex t = 0; t < n; ++t)
    taskWords_[t] = wordsIn(lowered(s.trace->label(t) + " " + formatTid(s.trace->task(t).tid)), words_);
  taskWords_[n] = wordsIn("abmon", words_);
  kindWords_.assign(static_cast<std::size_t>(kKindCount) * 2, 0);
  for (int k = 0; k < kKindCount; ++k) {
    const std::string name = lowered(std::string(kindName(static_cast<Kind>(k))));
    kindWords_[static_cast<std::size_t>(k) * 2] = wordsIn(name, words_);
    kindWords_[static_cast<std::size_t>(k) * 2 + 1] = wordsIn(name + ".begin", words_);
  }
}

std::uint32_t RecordQuery::otherNameWords(const Event& e) const {
  fields_.assign(s_.trace->str(e.a[0]));  // an unknown event's name
  if (e.isBegin()) fields_ += ".begin";
  lower(fields_);
  return wordsIn(fields_, words_);
}

bool RecordQuery::matches(std::size_t record) const { return record < s_.size() && matches(s_.order[record]); }

bool RecordQuery::matches(const OrderEntry& oe, const RecordRef& r) const {
  if (words_.empty()) return false;
  const EventStore::Shape sh = r.shape();
  if (!libab_ && isLibabRecord(sh.kind)) return false;
  std::uint32_t have = taskWords_[oe.task == kMonitorTask ? taskWords_.size() - 1 : oe.task];
  if (have == all_) return true;
  if (sh.kind != Kind::OTHER) {  // the call's name, from the shape
    have |= kindWords_[static_cast<std::size_t>(sh.kind) * 2 + (sh.phase == Phase::Begin ? 1 : 0)];
    if (have == all_) return true;
  }
  const Event& e = r.event();
  if (e.kind == Kind::OTHER) have |= otherNameWords(e);
  if (have == all_) return true;
  fields_.clear();
  appendEventArgs(fields_, *s_.trace, e);  // " key=value ...": a space before each field
  fields_ += ' ';
  lower(fields_);
  for (std::size_t w = 0; w < words_.size(); ++w)
    if (!(have >> w & 1) && fields_.find(words_[w]) == std::string::npos) return false;
  return true;
}

namespace {

// The first match in [from, to), in order.
std::optional<std::size_t> firstIn(const ViewSnapshot& s, const RecordQuery& q, std::size_t from, std::size_t to) {
  for (std::size_t lo = from; lo < to; lo += kBlock) {
    std::optional<std::size_t> hit;
    s.forEachRecord(lo, std::min(to, lo + kBlock), [&](std::size_t p, const OrderEntry& e, const RecordRef& r) {
      if (q.matches(e, r)) hit = p;
      return !hit;
    });
    if (hit) return hit;
  }
  return std::nullopt;
}

// The last match in [from, to).
std::optional<std::size_t> lastIn(const ViewSnapshot& s, const RecordQuery& q, std::size_t from, std::size_t to) {
  for (std::size_t hi = to; hi > from;) {
    const std::size_t lo = hi - from > kBlock ? hi - kBlock : from;
    std::optional<std::size_t> hit;
    s.forEachRecord(lo, hi, [&](std::size_t p, const OrderEntry& e, const RecordRef& r) {
      if (q.matches(e, r)) hit = p;
    });
    if (hit) return hit;
    hi = lo;
  }
  return std::nullopt;
}

}  // namespace

std::optional<FindResult> findRecord(const ViewSnapshot& s, const RecordQuery& q, std::size_t position, bool forward) {
  if (q.empty()) return std::nullopt;
  const std::size_t n = s.size();
  position = std::min(position, n);
  const std::size_t current = position > 0 ? position - 1 : n;  // n: no current record
  std::optional<std::size_t> hit;
  bool wrapped = false;
  if (forward) {
    hit = firstIn(s, q, position, n);
    if (!hit && current < n) {
      hit = firstIn(s, q, 0, current);
      wrapped = true;
    }
  } else {
    if (current < n) hit = lastIn(s, q, 0, current);
    if (!hit) {
      hit = lastIn(s, q, current < n ? position : 0, n);
      wrapped = true;
    }
  }
  if (!hit) return std::nullopt;
  return FindResult{*hit + 1, wrapped};
}

std::size_t positionAtTime(const ViewSnapshot& s, TimeNs t) {
  // Per task, its first record at or after t (a task's records are in time
  // order: a binary search), the earliest of them to arrive.
  std::size_t first = s.size();
  if (!s.trace) return first;
  for (TaskIndex task = 0; task < s.trace->taskCount(); ++task) {
    const EventStore& ev = s.trace->events(task);
    const std::size_t i = ev.partitionPoint([t](const Event& e) { return e.time < t; });
    if (i < ev.size()) first = std::min<std::size_t>(first, s.positionOf({task, static_cast<std::uint32_t>(i)}));
  }
  return first < s.size() ? first + 1 : s.size();
}

}  // namespace xab::view
