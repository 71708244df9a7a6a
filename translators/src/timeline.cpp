#include <xab/translators/timeline.h>

#include <algorithm>

namespace xab::tr {

std::int64_t receivedMessage(const MessageTable& messages, EventRef r) {
  std::int64_t m = messages.messageOf(r);
  if (m < 0 || messages.messages.send(static_cast<std::size_t>(m)) == r) return -1;
  return m;
}

namespace {

struct TachyonFixer {
  const Trace& trace;
  const MessageTable& mt;
  TimeNs gap;
  AdjustedTimes out;
  std::vector<std::uint32_t> pos;
  std::vector<TimeNs> last;

  // Advances task t as far as its receives' sends are known.  With force,
  // the first blocked receive goes on without its send (a cycle can only
  // come from a broken trace).
  bool advance(TaskIndex t, bool force) {
    const auto& ev = trace.events(t);
    bool moved = false;
    while (pos[t] < ev.size()) {
      const Event& e = ev[pos[t]];
      TimeNs time = std::max(e.time, last[t]);
      bool tachyon = false;
      if (isReceiveEnd(e)) {
        std::int64_t m = receivedMessage(mt, {t, pos[t]});
        if (m >= 0) {
          EventRef s = mt.messages.send(static_cast<std::size_t>(m));
          if (pos[s.task] <= s.index && !(force && !moved)) break;
          if (pos[s.task] > s.index) {
            TimeNs need = out.times[s.task][s.index] + gap;
            if (time < need) {
              tachyon = e.time < need;
              time = need;
            }
          }
        }
      }
      if (tachyon) ++out.moved;
      else if (time != e.time) ++out.shifted;
      out.times[t][pos[t]] = time;
      last[t] = time;
      ++pos[t];
      moved = true;
    }
    return moved;
  }

  void run() {
    const std::size_t n = trace.taskCount();
    out.times.resize(n);
    for (TaskIndex t = 0; t < n; ++t) out.times[t].resize(trace.events(t).size());
    pos.assign(n, 0);
    last.assign(n, INT64_MIN);
    for (;;) {
      bool progress = false, left = false;
      for (TaskIndex t = 0; t < n; ++t) progress |= advance(t, false);
      for (TaskIndex t = 0; t < n; ++t) left |= pos[t] < trace.events(t).size();
      if (!left) return;
      if (!progress)
        for (TaskIndex t = 0; t < n; ++t)
          if (pos[t] < trace.events(t).size() && advance(t, true)) break;
    }
  }
};

}  // namespace

AdjustedTimes fixTachyons(const Trace& trace, const MessageTable& messages, TimeNs gap) {
  TachyonFixer f{trace, messages, gap, {}, {}, {}};
  f.run();
  return std::move(f.out);
}

}  // namespace xab::tr
