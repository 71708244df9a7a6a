// xabview_bench -- what opening and drawing a big trace costs the viewer.
//
//   xabview_bench [--events N] [--tasks T] [--trace FILE] [--keep FILE]
//
// Writes a synthetic trace (T tasks in a ring: pack, send, recv, unpack per
// round, a barrier every 50 rounds; every message matched) of about N
// records, unless --trace names one.  Then, as xabview does: reads it with
// TraceReader, builds the ViewSnapshot (message matching, barriers, hang,
// mismatches, arrival order, spans), and paints the diagram into a
// 1280x560 image at full zoom-out, at 1/100 of the trace and at 1/10000,
// 20 times each.  Prints times in ms and the peak resident memory.
#include "bench_util.h"
#include "diagram_painter.h"
#include "event_log_model.h"
#include "panel_models.h"
#include "record_find.h"
#include "snapshot.h"

#include <xab/model/reader.h>

#include <QGuiApplication>
#include <QImage>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace xab;
using namespace xab::view;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

long peakRssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

void writeTrace(const std::string& path, long events, int tasks) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::perror(path.c_str());
    std::exit(1);
  }
  const long long t0 = 1'763'680'000'000'000'000LL;
  auto stamp = [&](long long ns, char* buf) {
    std::snprintf(buf, 32, "%lld.%09lld", ns / 1'000'000'000, ns % 1'000'000'000);
  };
  char a[32], line[256];
  auto rec = [&](long long ns, int task, const char* fmt, auto... args) {
    stamp(ns, a);
    int n = std::snprintf(line, sizeof line, "%s %s t%x ", a, a, 0x40002 + task);
    const std::size_t room = sizeof line - static_cast<std::size_t>(n);
    if constexpr (sizeof...(args) == 0)
      n += std::snprintf(line + n, room, "%s", fmt);
    else
      n += std::snprintf(line + n, room, fmt, args...);
    line[n++] = '\n';
    std::fwrite(line, 1, static_cast<std::size_t>(n), f);
  };
  std::fprintf(f, "#xab-trace 1 abmon=t40001 host=bench pid=1 start=1763680000.000000000\n");
  for (int t = 0; t < tasks; ++t)
    rec(t0 + t * 1000, t, "mytid rc=t%x name=ring host=bench parent=none lang=c pid=%d", 0x40002 + t, 100 + t);
  for (int t = 0; t < tasks; ++t) rec(t0 + 50'000 + t, t, "joingroup group=ring rc=%d", t);
  long written = 2L * tasks;
  for (long r = 0; written < events; ++r) {
    long long base = t0 + 100'000 + r * 100'000;  // a round every 100 us
    for (int t = 0; t < tasks; ++t) {
      int next = (t + 1) % tasks, prev = (t + tasks - 1) % tasks;
      long long j = (r * 7 + t * 13) % 20 * 1000;  // some jitter
      rec(base + j, t, "initsend enc=0 rc=1");
      rec(base + j + 2000, t, "pkdouble type=double n=100 stride=1 rc=0");
      rec(base + j + 4000, t, "send dst=t%x tag=1 bytes=800 serial=%ld rc=0", 0x40002 + next, r + 1);
      rec(base + j + 30'000, t, "recv.begin src=t%x tag=1", 0x40002 + prev);
      rec(base + 60'000 + t * 100, t, "recv src=t%x tag=1 bytes=800 serial=%ld rc=2", 0x40002 + prev, r + 1);
      rec(base + 62'000 + t * 100, t, "upkdouble type=double n=100 stride=1 rc=0");
      written += 6;
      if (r % 50 == 49) {
        rec(base + 70'000 + j, t, "barrier.begin group=ring count=%d", tasks);
        rec(base + 95'000, t, "barrier group=ring count=%d rc=0", tasks);
        written += 2;
      }
    }
  }
  std::fclose(f);
}

// CPU time of this thread: on a shared, loaded machine the wall clock
// mostly measures the other jobs.
double threadCpuMs() { return static_cast<double>(bench_clock_ns(CLOCK_THREAD_CPUTIME_ID)) / 1e6; }

// Live: the file read in 50 pieces, a snapshot after each, extended from
// the last (SnapshotBuilder, as the viewer's snapshot thread does); then
// a budget's cut of the older half and the snapshot after it.
void liveSnapshots(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TraceReader reader;
  SnapshotBuilder builder;
  const std::size_t piece = text.size() / 50 + 1;
  double worst = 0, total = 0;
  int n = 0;
  for (std::size_t at = 0; at < text.size(); at += piece, ++n) {
    reader.feed(std::string_view(text).substr(at, piece));
    auto trace = reader.snapshot();
    auto t = Clock::now();
    auto s = builder.update(trace);
    double ms = msSince(t);
    worst = std::max(worst, ms);
    total += ms;
  }
  std::printf("live snapshots: %d, each extending the last by 1/50 of the trace: mean %.1f ms, worst %.1f ms\n", n,
              total / n, worst);
  // A budget's cut of the older half (TraceReader::cut, as the window's):
  // the snapshot after it, with the history of what it dropped.
  reader.cut(reader.runRecords() / 2);
  auto trace = reader.snapshot();
  const double cpu = threadCpuMs();
  const std::uint64_t blocks = EventStore::blocksDecoded();
  auto t = Clock::now();
  auto s = builder.update(trace);
  std::printf("snapshot after a cut of the older half (%zu records kept): %.1f ms, cpu %.1f ms, %llu blocks decoded\n",
              s->size(), msSince(t), threadCpuMs() - cpu,
              static_cast<unsigned long long>(EventStore::blocksDecoded() - blocks));
}

struct PaintFigure {
  double meanMs = 0, maxMs = 0, cpuMs = 0;
  DiagramStats stats;
};

PaintFigure paintTimes(ViewState& state, TimeNs begin, TimeNs end, int repeats, DiagramOptions options = {}) {
  state.setViewRange(begin, end);
  QImage img(1280, 560, QImage::Format_RGB32);
  PaintFigure fig;
  for (int i = 0; i < repeats; ++i) {
    auto t = Clock::now();
    double cpu = threadCpuMs();
    QPainter p(&img);
    fig.stats = paintDiagram(p, DiagramLayout::make(img.rect(), state, options.loadStrips), state, options);
    p.end();
    double ms = msSince(t);
    fig.cpuMs += (threadCpuMs() - cpu) / repeats;
    fig.meanMs += ms / repeats;
    fig.maxMs = std::max(fig.maxMs, ms);
  }
  return fig;
}

}  // namespace

int main(int argc, char** argv) {
  long events = 1'000'000;
  int tasks = 16;
  std::string trace, keep;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--events") events = std::atol(next().c_str());
    else if (a == "--tasks") tasks = std::atoi(next().c_str());
    else if (a == "--trace") trace = next();
    else if (a == "--keep") keep = next();
    else {
      std::printf("usage: xabview_bench [--events N] [--tasks T] [--trace FILE] [--keep FILE]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QGuiApplication app(argc, argv);
  bool generated = trace.empty();
  if (generated) {
    trace = keep.empty() ? "/tmp/xabview_bench." + std::to_string(::getpid()) + ".trace" : keep;
    auto t = Clock::now();
    writeTrace(trace, events, tasks);
    std::printf("wrote %s in %.0f ms\n", trace.c_str(), msSince(t));
  }
  long rssBefore = peakRssKb();

  auto t = Clock::now();
  LoadResult loaded = loadTraceFile(trace);
  double parseMs = msSince(t);
  if (!loaded.trace) {
    std::fprintf(stderr, "cannot read %s: %s\n", trace.c_str(), loaded.fatal.c_str());
    return 1;
  }
  t = Clock::now();
  auto snap = buildSnapshot(loaded.trace, false);  // as the loader: the Why slow tab's analysis once it is shown
  double analyseMs = msSince(t);
  t = Clock::now();
  const WhyPtr why = analyseWhy(*snap);
  const double whyMs = msSince(t);
  ViewState state;
  t = Clock::now();
  state.setSnapshot(snap);
  double showMs = msSince(t);
  std::printf("records %zu, tasks %zu, messages %zu, barriers %zu\n", snap->size(), snap->trace->taskCount(),
              snap->messages().messages.size(), snap->barriers().instances.size());
  const auto& tm = snap->timing;
  const auto& ta = snap->analysis->timing;
  std::printf("snapshot: order %.0f, spans %.0f, mipmaps %.0f ms; analysis: barriers %.0f ms; messages %.0f + "
              "mismatches %.0f ms (another thread); hang + lines %.0f ms\n",
              tm.order, tm.spans, tm.mipmaps, ta.barriers, ta.messages, ta.mismatches, ta.hang);
  std::printf("open: parse %.0f ms + analyses %.0f ms + view state %.1f ms = %.0f ms\n", parseMs, analyseMs, showMs,
              parseMs + analyseMs + showMs);
  std::printf("Why slow tab first shown: wait states, causes, critical path %.0f ms (%zu wait states)\n", whyMs,
              why->report.waits.size());
  std::printf("memory: trace %.1f MB; peak RSS %.1f MB (%.1f MB before reading)\n",
              static_cast<double>(snap->trace->memoryBytes()) / 1e6, peakRssKb() / 1024.0, rssBefore / 1024.0);

  TimeNs b = snap->tasksBegin, e = snap->tasksEnd, mid = (b + e) / 2;
  struct Zoom { const char* name; TimeNs from, to; } zooms[] = {
      {"full zoom-out", b, e}, {"1/100 of the trace", mid, mid + (e - b) / 100},
      {"1/10000 of the trace", mid, mid + (e - b) / 10000}};
  for (const auto& z : zooms) {
    auto fig = paintTimes(state, z.from, z.to, 20);
    std::printf("repaint %-22s cpu %.2f ms; wall mean %.2f ms, max %.2f ms (spans visited %zu, rects %zu, message lines %zu)\n", z.name,
                fig.cpuMs, fig.meanMs, fig.maxMs, fig.stats.spansVisited, fig.stats.rects, fig.stats.messageLines);
  }
  auto bars = paintTimes(state, b, e, 20, {false, false, true});
  auto withBarriers = paintTimes(state, b, e, 20, {false, true, true});
  std::printf("repaint full zoom-out, bars and barriers: cpu %.2f ms\n", withBarriers.cpuMs);
  auto withMessages = paintTimes(state, b, e, 20, {true, false, true});
  std::printf("repaint full zoom-out, bars and messages: cpu %.2f ms\n", withMessages.cpuMs);
  std::printf("repaint full zoom-out, bars and labels only: cpu %.2f ms (spans or bins visited %zu)\n", bars.cpuMs,
              bars.stats.spansVisited);
  // The same two without the state mipmaps: every row folded from its spans.
  auto fullNoMip = paintTimes(state, b, e, 20, {true, true, true, false});
  auto barsNoMip = paintTimes(state, b, e, 20, {false, false, true, false});
  std::printf("without mipmaps: repaint full zoom-out cpu %.2f ms, bars and labels only cpu %.2f ms (spans visited %zu)\n",
              fullNoMip.cpuMs, barsNoMip.cpuMs, barsNoMip.stats.spansVisited);
  std::size_t mipBytes = 0;
  for (const auto& m : snap->mipmaps) mipBytes += m.memoryBytes();
  std::printf("state mipmaps: built in %.1f ms, %.2f MB\n", tm.mipmaps, static_cast<double>(mipBytes) / 1e6);
  state.setPosition(snap->size() / 2);  // replaying: what one step costs the views
  auto fig = paintTimes(state, b, e, 20);
  std::printf("repaint at mid replay, full zoom-out: cpu %.2f ms; wall mean %.2f ms\n", fig.cpuMs, fig.meanMs);
  t = Clock::now();
  for (int i = 0; i < 1000; ++i) state.step(1);
  std::printf("step: %.3f ms per record (position, per-task counts)\n", msSince(t) / 1000);

  EventLogModel log(&state);
  t = Clock::now();
  int rows = log.rowCount();
  for (int r = 0; r < 40; ++r)
    for (int c = 0; c < EventLogModel::ColumnCount; ++c)
      (void)log.data(log.index(rows / 2 + r, c), Qt::DisplayRole);
  std::printf("event log: %d rows; one screen (40 rows) of text %.3f ms\n", rows, msSince(t));
  EventFilter sends;
  sends.kind = Kind::SEND;
  t = Clock::now();
  state.setFilter(sends);
  std::printf("event log filtered by call (send): %d rows in %.1f ms; arrival order %.1f MB\n", log.rowCount(), msSince(t),
              static_cast<double>(snap->order.memoryBytes()) / 1e6);
  state.setFilter({});
  // What the Messages panel recomputes per step: the pair matrix and the
  // queue of messages in flight at the replay position.
  t = Clock::now();
  auto matrix = pairsAt(*snap, snap->size() / 2);
  double matrixMs = msSince(t);
  t = Clock::now();
  auto queue = pendingAt(*snap, snap->size() / 2);
  std::printf("messages panel at mid replay: pair matrix %.2f ms (%zu pairs), pending queue %.2f ms (%zu queued)\n",
              matrixMs, matrix.size(), msSince(t), queue.size());
  // Find and Go to (Ctrl+F, F3, Ctrl+G): the worst search reads every
  // record (a word none holds); a call and a field are found at once.
  t = Clock::now();
  auto none = findRecord(*snap, RecordQuery(*snap, "no-such-word"), snap->size() / 2, true);
  const double noneMs = msSince(t);
  t = Clock::now();
  auto send = findRecord(*snap, RecordQuery(*snap, "send tag=1"), snap->size() / 2, true);
  const double sendMs = msSince(t);
  t = Clock::now();
  const std::size_t at = positionAtTime(*snap, snap->tasksEnd);
  std::printf("find: no match in %zu records %.0f ms%s; next send with tag=1 %.2f ms%s; go to the last time %.0f ms (position %zu)\n",
              snap->size(), noneMs, none ? " (found?)" : "", sendMs, send ? "" : " (none)", msSince(t), at);
  // The overview strip: the whole run, bars only, 1280x52, at every step of a replay.
  {
    state.setViewRange(b, e);
    QImage strip(1280, 52, QImage::Format_RGB32);
    DiagramLayout l = DiagramLayout::make(strip.rect(), state);
    l.axisHeight = 16;
    l.rowHeight = std::max(1.0, 34.0 / static_cast<double>(std::max<std::size_t>(l.tasks, 1)));
    double cpu = threadCpuMs();
    for (int i = 0; i < 20; ++i) {
      QPainter p(&strip);
      paintDiagram(p, l, state, {false, false, false});
    }
    std::printf("overview strip repaint (1280x52, whole run): cpu %.2f ms\n", (threadCpuMs() - cpu) / 20);
  }
  liveSnapshots(trace);  // last: its copy of the text must not raise the peak above
  if (generated && keep.empty()) std::remove(trace.c_str());
  return 0;
}
