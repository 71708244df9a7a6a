// xabview_cut_bench -- what a memory budget's cut costs the views on the
// GUI thread that read records: the event log (its rows under the default
// filter, its Call box's counts) and the Output tab.
//
//   QT_QPA_PLATFORM=offscreen xabview_cut_bench TRACE [WINDOW] [EVERY]
//
// Reads TRACE (translators_gentrace --records N 16 > TRACE) as xabview
// does under a budget: a window of WINDOW records (default 2,000,000)
// that drops its older half when full, a snapshot every EVERY records
// (default 100,000) built by the SnapshotBuilder.  Each snapshot is handed
// to a ViewState that the event log and Output panels watch, and the time
// that takes (their work, on the GUI thread) is printed, for the snapshots
// right after a cut and for the others.
#include "output_panel.h"
#include "panels.h"
#include "snapshot.h"

#include <xab/model/source.h>

#include <QApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

using namespace xab;
using namespace xab::view;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: xabview_cut_bench TRACE [WINDOW] [EVERY]\n");
    return 2;
  }
  QApplication app(argc, argv);
  SourceOptions o;
  o.maxRecords = argc > 2 ? std::stoull(argv[2]) : 2'000'000;
  o.keepShare = 0.5;
  const std::uint64_t every = argc > 3 ? std::stoull(argv[3]) : 100'000;
  TraceSource source(argv[1], o);
  if (!source.error().empty()) {
    std::fprintf(stderr, "%s\n", source.error().c_str());
    return 1;
  }
  ViewState state;
  EventLogPanel log(&state);
  OutputPanel output(&state);
  SnapshotBuilder builder;
  // The analyses, which run on a thread of their own, are left out: every
  // snapshot carries the first one's (as a snapshot carries the newest
  // finished one, which may be of fewer records).
  AnalysisPtr analysis;
  std::uint64_t last = 0, cuts = 0;
  double cutMax = 0, cutSum = 0, otherMax = 0, otherSum = 0;
  int cutN = 0, otherN = 0;
  auto show = [&] {
    auto s = builder.update(source.reader().snapshot());
    if (!analysis) analysis = analyseSnapshot(*s);
    s->analysis = analysis;
    const bool cut = source.cuts() != cuts;
    cuts = source.cuts();
    const auto t = Clock::now();
    state.setSnapshot(s);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    if (cut) {
      cutMax = std::max(cutMax, ms), cutSum += ms, ++cutN;
      std::printf("cut: window of %zu records from run record %llu: the views took %.1f ms\n", s->size(),
                  static_cast<unsigned long long>(s->windowStart()), ms);
    } else {
      otherMax = std::max(otherMax, ms), otherSum += ms, ++otherN;
      if (ms > 50)
        std::printf("a snapshot of %zu records from run record %llu: the views took %.1f ms\n", s->size(),
                    static_cast<unsigned long long>(s->windowStart()), ms);
    }
  };
  while (source.next() != SourceStep::Ended)
    if (source.reader().runRecords() >= last + every) {
      last = source.reader().runRecords();
      show();
    }
  show();
  std::printf("after a cut: %d snapshots, views %.1f ms at most, %.1f ms on average\n", cutN, cutMax,
              cutN ? cutSum / cutN : 0.0);
  std::printf("others: %d snapshots (%llu records each), views %.1f ms at most, %.1f ms on average\n", otherN,
              static_cast<unsigned long long>(every), otherMax, otherN ? otherSum / otherN : 0.0);
  return 0;
}
