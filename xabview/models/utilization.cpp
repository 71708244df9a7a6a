#include "utilization.h"

#include "span_search.h"

#include <algorithm>
#include <cmath>

namespace xab::view {

std::array<int, kActivityCount> utilizationAt(const ViewState& st, TimeNs t) {
  std::array<int, kActivityCount> n{};
  const ViewSnapshot* s = st.snapshot();
  if (!s) return n;
  for (TaskIndex task = 0; task < s->spans.size(); ++task) {
    const auto& spans = s->spans[task];
    const std::uint32_t shown = st.shownOf(task);
    if (spans.empty() || spans.beginAt(0) > t) continue;
    std::size_t i = spanAtOrBefore(spans, t);
    if (spans.firstAt(i) >= shown || t >= shownEnd(spans, i, shown, shownLimit(st, task))) continue;
    ++n[static_cast<std::size_t>(activityOf(spans.stateAt(i)))];
  }
  return n;
}

namespace {

// utilizationColumns for one task, column by column: the span that holds
// each column's centre (as the sweep counts it).
template <class Center>
void sampleColumns(const SpanList& spans, std::size_t i, std::uint32_t shown, TimeNs limit, int firstColumn, int columns,
                   const Center& center, std::vector<std::array<int, kActivityCount>>& diff) {
  SpanList::Reader read(spans);
  for (int x = firstColumn; x < columns; ++x) {
    const TimeNs c = center(x);
    if (read.beginAt(i) > c) continue;  // before the task's first span
    i = spanAtOrBeforeFrom(spans, i, c);
    if (read.firstAt(i) >= shown) break;
    TimeNs end = shownEnd(read, i, shown, limit);
    if (i + 1 < read.size()) end = std::min(end, read.beginAt(i + 1));
    if (c >= end) continue;
    auto k = static_cast<std::size_t>(activityOf(read.stateAt(i)));
    ++diff[static_cast<std::size_t>(x)][k];
    --diff[static_cast<std::size_t>(x) + 1][k];
  }
}

}  // namespace

std::vector<std::array<int, kActivityCount>> utilizationColumns(const ViewState& st, TimeNs begin, double ns,
                                                                int columns, const std::vector<TaskIndex>* only) {
  columns = std::max(columns, 0);
  std::vector<std::array<int, kActivityCount>> diff(static_cast<std::size_t>(columns) + 1);
  const ViewSnapshot* s = st.snapshot();
  if (!s || columns == 0) return std::vector<std::array<int, kActivityCount>>(static_cast<std::size_t>(columns));
  auto center = [&](int x) { return begin + static_cast<TimeNs>((x + 0.5) * ns); };
  // The first column whose centre is at or after t (columns if none).
  auto firstAtOrAfter = [&](TimeNs t) {
    double guess = std::ceil(static_cast<double>(t - begin) / ns - 0.5);
    int x = static_cast<int>(std::clamp(guess, 0.0, static_cast<double>(columns)));
    while (x > 0 && center(x - 1) >= t) --x;
    while (x < columns && center(x) < t) ++x;
    return x;
  };
  const TimeNs last = center(columns - 1);
  const std::size_t n = only ? only->size() : s->spans.size();
  for (std::size_t k = 0; k < n; ++k) {
    const TaskIndex task = only ? (*only)[k] : static_cast<TaskIndex>(k);
    if (task >= s->spans.size()) continue;
    const auto& spans = s->spans[task];
    if (spans.empty() || spans.beginAt(0) > last) continue;
    const std::uint32_t shown = st.shownOf(task);
    const TimeNs limit = shownLimit(st, task);
    // Columns [first, end) from the spans.
    auto fromSpans = [&](int first, int end) {
      const TimeNs lastCenter = center(end - 1);
      const std::size_t from = spanAtOrBefore(spans, center(first));
      // Many more spans in view than columns (a long live trace at full
      // zoom-out): ask each column's centre instead, O(columns log n).
      if (spanAtOrBeforeFrom(spans, from, lastCenter) - from > static_cast<std::size_t>(end - first) * 4) {
        sampleColumns(spans, from, shown, limit, first, end, center, diff);
        return;
      }
      SpanList::Reader read(spans);
      for (std::size_t i = from; i < spans.size() && spans.firstAt(i) < shown; ++i) {
        const TimeNs b = read.beginAt(i);
        if (b > lastCenter) break;
        // As utilizationAt: a time is in span i until the next span begins,
        // shown or not, and the last shown one until the position's "now".
        TimeNs spanEnd = shownEnd(read, i, shown, limit);
        if (i + 1 < spans.size()) spanEnd = std::min(spanEnd, read.beginAt(i + 1));
        int x0 = std::max(first, firstAtOrAfter(b)), x1 = std::min(end, firstAtOrAfter(spanEnd));
        if (x0 >= x1) continue;
        auto k = static_cast<std::size_t>(activityOf(spans.stateAt(i)));
        ++diff[static_cast<std::size_t>(x0)][k];
        --diff[static_cast<std::size_t>(x1)][k];
      }
    };
    // Columns its mipmap covers (bins no wider than a column, that it
    // shows): the state that covers most of the bin at the column's
    // centre, as the diagram draws it.  O(columns), no record read.
    int first = 0;
    if (task < s->mipmaps.size()) {
      const StateMipmap& mip = s->mipmaps[task];
      const MipmapReach reach = mipmapReach(mip, spans, shown, ns);
      const int lead = mipmapLead(mip, reach, begin, ns, 0, columns);
      if (lead > 0) fromSpans(0, lead);
      first = forMipmapColumns(mip, reach, begin, ns, lead, columns, [&](int x, std::uint8_t state) {
        auto k = static_cast<std::size_t>(activityOf(static_cast<TaskState>(state)));
        ++diff[static_cast<std::size_t>(x)][k];
        --diff[static_cast<std::size_t>(x) + 1][k];
      });
      if (first == columns) continue;
    }
    fromSpans(first, columns);
  }
  for (std::size_t x = 1; x < diff.size(); ++x)
    for (std::size_t k = 0; k < kActivityCount; ++k) diff[x][k] += diff[x - 1][k];
  diff.pop_back();
  return diff;
}

}  // namespace xab::view
