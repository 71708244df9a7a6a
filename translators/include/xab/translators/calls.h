// xab/translators/calls.h -- a task's records as calls: a blocking call's
// begin and end records become one call with a duration; any other record
// is a call of its own that takes no time.  The JSON and OTF2 writers both
// draw calls as slices.
#pragma once

#include <xab/model/trace.h>

#include <algorithm>
#include <string_view>

namespace xab::tr {

struct Call {
  Kind kind = Kind::OTHER;
  std::uint32_t begin = 0;   // index of the begin record (== end for a one-record call)
  std::uint32_t end = 0;     // index of the end record; the begin's when unfinished
  TimeNs start = 0, finish = 0;
  bool unfinished = false;   // still blocked when the trace ended
};

// Calls of task t in order.  An unfinished call lasts until the task's
// last record.
template <class F>
void forEachCall(const Trace& trace, TaskIndex t, F&& f) {
  const auto& ev = trace.events(t);
  if (ev.empty()) return;
  bool pending = false;
  std::uint32_t open = 0;
  auto flushOpen = [&](TimeNs until) {
    const Event& b = ev[open];
    f(Call{b.kind, open, open, b.time, std::max(b.time, until), true});
    pending = false;
  };
  for (std::uint32_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (pending && (e.kind != ev[open].kind || e.isBegin())) flushOpen(e.time);
    if (e.isBegin()) {
      pending = true;
      open = i;
    } else if (pending) {
      f(Call{e.kind, open, i, ev[open].time, std::max(ev[open].time, e.time), false});
      pending = false;
    } else {
      f(Call{e.kind, i, i, e.time, e.time, false});
    }
  }
  if (pending) flushOpen(ev[ev.size() - 1].time);
}

// "recv", "barrier", or for a record of unknown kind its own name.
std::string_view callName(const Trace& trace, const Event& e);

}  // namespace xab::tr
