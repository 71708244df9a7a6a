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
inline std::size_t spanAtOrBefore(const SpanList& spans, TimeNs t) {
  auto it = std::upper_bound(spans.begin(), spans.end(), t,
                             [](TimeNs v, const Span& s) { return v < s.begin; });
  return it == spans.begin() ? 0 : static_cast<std::size_t>(it - spans.begin()) - 1;
}

// As spanAtOrBefore, searching forward from span `from` (galloping): cheap
// when the answer is near, which it is when folding walks a row.
inline std::size_t spanAtOrBeforeFrom(const SpanList& spans, std::size_t from, TimeNs t) {
  std::size_t step = 1, lo = from, hi = from + 1;
  while (hi < spans.size() && spans[hi].begin <= t) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  hi = std::min(hi, spans.size());
  auto it = std::upper_bound(spans.begin() + static_cast<long>(lo), spans.begin() + static_cast<long>(hi), t,
                             [](TimeNs v, const Span& s) { return v < s.begin; });
  return static_cast<std::size_t>(it - spans.begin()) - 1;
}

// The end of span i as the replay position sees it: the last shown state
// lasts until the position's "now".
inline TimeNs shownEnd(const SpanList& spans, std::size_t i, std::uint32_t shown, TimeNs limit) {
  bool nextShown = i + 1 < spans.size() && spans[i + 1].first < shown;
  if (nextShown) return spans[i + 1].begin;
  return std::max(spans[i].begin, limit);
}

// The time where a task's shown states stop (the replay "now" for it).
inline TimeNs shownLimit(const ViewState& state, TaskIndex) { return state.nowTime(); }

// The lines whose time span can reach [from, to): sorted by send time, so
// a binary search finds the first send that might still be in transit.
inline std::pair<std::size_t, std::size_t> visibleLines(const ViewSnapshot& s, TimeNs from, TimeNs to) {
  auto bySend = [](const MessageLine& l, TimeNs t) { return l.send < t; };
  TimeNs earliest = from - std::min(s.maxTransit(), from - INT64_MIN / 2);
  auto lo = std::lower_bound(s.lines().begin(), s.lines().end(), earliest, bySend);
  auto hi = std::lower_bound(lo, s.lines().end(), to, bySend);
  return {static_cast<std::size_t>(lo - s.lines().begin()), static_cast<std::size_t>(hi - s.lines().begin())};
}

}  // namespace xab::view
