// span_search.h -- finding things in a snapshot's sorted arrays at the
// replay position: the span that holds a time, where a shown span ends,
// the message lines that can reach a time range.  Shared by the painter,
// its hit test and the utilization counts.
#pragma once

#include "view_state.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace xab::view {

// Index of the last span beginning at or before t (0 if none does).
inline std::size_t spanAtOrBefore(const SpanList& spans, TimeNs t) { return spans.atOrBefore(t); }

// As spanAtOrBefore, from span `from` on (whose begin is at or before t):
// where a walk of a row jumps to.
inline std::size_t spanAtOrBeforeFrom(const SpanList& spans, std::size_t from, TimeNs t) {
  return std::max(from, spans.atOrBefore(t));
}

// The end of span i as the replay position sees it: the last shown state
// lasts until the position's "now".  `spans`: a SpanList or its Reader.
template <class Spans>
TimeNs shownEnd(Spans& spans, std::size_t i, std::uint32_t shown, TimeNs limit) {
  bool nextShown = i + 1 < spans.size() && spans.firstAt(i + 1) < shown;
  if (nextShown) return spans.beginAt(i + 1);
  return std::max(spans.beginAt(i), limit);
}

// The first span whose first record is at or after `record`.
inline std::size_t spanFromRecord(const SpanList& spans, std::uint32_t record) {
  std::size_t lo = 0, hi = spans.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (spans.firstAt(mid) < record) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// The time where a task's shown states stop (the replay "now" for it).
inline TimeNs shownLimit(const ViewState& state, TaskIndex) { return state.nowTime(); }

// The lines whose time span can reach [from, to): sorted by send time, so
// a binary search finds the first send that might still be in transit.
inline std::pair<std::size_t, std::size_t> visibleLines(const ViewSnapshot& s, TimeNs from, TimeNs to) {
  const MessageLines& lines = s.lines();
  TimeNs earliest = from - std::min(s.maxTransit(), from - INT64_MIN / 2);
  const std::size_t lo = lines.lowerBound(earliest, 0, lines.size());
  return {lo, lines.lowerBound(to, lo, lines.size())};
}

}  // namespace xab::view
