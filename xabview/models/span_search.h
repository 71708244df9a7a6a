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

// How a row of columns `ns` wide reads a task's mipmap: at `level`, the
// widest whose bins are no wider than a column, up to `end`, where the
// level's closed bins end or the last shown span begins (its end moves
// with the replay position; later spans are not shown), whichever is
// first.  None (end at INT64_MIN) when the mipmap's bins are wider than a
// column, or it has none.
struct MipmapReach {
  std::size_t level = 0;
  TimeNs end = INT64_MIN;
  // Whether the bin holding t lies wholly before the end.
  bool covers(const StateMipmap& mip, TimeNs t) const {
    if (t < mip.origin) return false;
    const TimeNs w = mip.binWidth(level);
    return mip.origin + ((t - mip.origin) / w + 1) * w <= end;
  }
};
inline MipmapReach mipmapReach(const StateMipmap& mip, const SpanList& spans, std::uint32_t shown, double ns) {
  MipmapReach r;
  if (mip.width0 == 0 || ns < static_cast<double>(mip.width0)) return r;
  while (r.level + 1 < mip.levels.size() && static_cast<double>(mip.binWidth(r.level + 1)) <= ns) ++r.level;
  const std::size_t firstHidden = spanFromRecord(spans, shown);
  if (firstHidden == 0) return r;
  r.end = std::min(spans.beginAt(firstHidden - 1), mip.endOf(r.level));
  return r;
}

// The first column from `first` whose centre's bin the mipmap shows
// (StateMipmap::from; `first` when it shows every bin): the columns before
// it are the spans' to draw.
inline int mipmapLead(const StateMipmap& mip, const MipmapReach& reach, TimeNs begin, double ns, int first, int columns) {
  if (reach.end == INT64_MIN || mip.from <= mip.origin) return first;
  const TimeNs shown = mip.firstShown(reach.level);
  int c = first;
  while (c < columns && begin + static_cast<TimeNs>((c + 0.5) * ns) < shown) ++c;
  return c;
}

// f(column, state) for each column from `first` on whose centre's bin the
// mipmap holds within reach (columns `ns` wide from `begin`; a bin of no
// state skipped); returns the first column left to the spans.
template <class F>
int forMipmapColumns(const StateMipmap& mip, const MipmapReach& reach, TimeNs begin, double ns, int first, int columns,
                     F&& f) {
  if (reach.end == INT64_MIN) return first;
  int c = first;
  for (; c < columns; ++c) {
    if (begin + static_cast<TimeNs>((c + 1) * ns) > reach.end) break;
    const TimeNs center = begin + static_cast<TimeNs>((c + 0.5) * ns);
    if (center < mip.origin) continue;  // before the task's first bin
    if (!reach.covers(mip, center)) break;
    const std::uint8_t state = mip.at(reach.level, center);
    if (state != kNoState) f(c, state);
  }
  return c;
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
