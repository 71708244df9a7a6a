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

RecordQuery::RecordQuery(const ViewSnapshot& s, const QString& text, bool libabRecords) : s_(s), libab_(libabRecords) {
  words_ = text.simplified().split(' ', Qt::SkipEmptyParts);
  if (words_.size() > kMaxWords) words_.resize(kMaxWords);
  const TaskIndex n = s.trace ? s.trace->taskCount() : 0;
  taskWords_.assign(n + 1, 0);
  for (TaskIndex t = 0; t <= n; ++t) {
    const QString who = t == n ? QString("abmon")
                               : QString::fromStdString(s.trace->label(t) + " " + formatTid(s.trace->task(t).tid));
    for (qsizetype w = 0; w < words_.size(); ++w)
      if (!words_[w].contains('=') && who.contains(words_[w], Qt::CaseInsensitive)) taskWords_[t] |= 1u << w;
  }
}

bool RecordQuery::matches(std::size_t record) const { return record < s_.size() && matches(s_.order[record]); }

bool RecordQuery::matches(const OrderEntry& oe) const {
  if (words_.isEmpty()) return false;
  const Event& e = s_.event(oe);
  if (!libab_ && isLibabRecord(e.kind)) return false;
  const std::uint32_t all = allOf(words_.size());
  std::uint32_t have = taskWords_[oe.task == kMonitorTask ? taskWords_.size() - 1 : oe.task];
  if (have == all) return true;
  const QString name = eventName(*s_.trace, e);
  for (qsizetype w = 0; w < words_.size(); ++w)
    if (!(have >> w & 1) && !words_[w].contains('=') && name.contains(words_[w], Qt::CaseInsensitive)) have |= 1u << w;
  if (have == all) return true;
  const QString fields = ' ' + eventArgs(*s_.trace, e) + ' ';
  for (qsizetype w = 0; w < words_.size(); ++w) {
    if (have >> w & 1) continue;
    const QString& word = words_[w];
    if (!fields.contains(word.contains('=') ? ' ' + word + ' ' : word, Qt::CaseInsensitive)) return false;
    have |= 1u << w;
  }
  return have == all;
}

namespace {

// The first match in [from, to), in order.
std::optional<std::size_t> firstIn(const ViewSnapshot& s, const RecordQuery& q, std::size_t from, std::size_t to) {
  for (std::size_t lo = from; lo < to; lo += kBlock) {
    std::optional<std::size_t> hit;
    s.order.forEach(lo, std::min(to, lo + kBlock), [&](std::size_t p, const OrderEntry& e) {
      if (!hit && q.matches(e)) hit = p;
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
    s.order.forEach(lo, hi, [&](std::size_t p, const OrderEntry& e) {
      if (q.matches(e)) hit = p;
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
  for (std::size_t lo = 0; lo < s.size(); lo += kBlock) {
    std::optional<std::size_t> hit;
    s.order.forEach(lo, std::min(s.size(), lo + kBlock), [&](std::size_t p, const OrderEntry& e) {
      if (!hit && e.task != kMonitorTask && s.event(e).time >= t) hit = p;
    });
    if (hit) return *hit + 1;
  }
  return s.size();
}

}  // namespace xab::view
