// model_read_bench: how fast the trace model reads a large trace, and how
// much memory it keeps per event.
//
// Writes a trace of N events (default 10 million) with a realistic mix --
// pack, send, blocking receive, unpack, barriers, marks; 16 tasks whose
// records are interleaved in batches as abmon writes them -- then, from
// the warm page cache: (1) read() the whole file, (2) count its lines,
// (3) load it with xab::loadTraceFile, (4) run the analyses, one by one
// and as analyse() on a snapshot.  Throughput
// is reported against (1) and (2) in the same run.
//
//   model_read_bench [--events N] [--file PATH] [--keep]
#include <xab/model/model.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <malloc.h>
#include <ctime>
#include <string>
#include <unistd.h>
#include <vector>

#include "bench_util.h"

using namespace xab;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kTasks = 16;
constexpr int kBatch = 64;  // records per task per batch, like abmon's batches

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// One task's records, generated a round at a time.
struct TaskGen {
  int index = 0;
  long long t = 1763680000LL * 1'000'000'000;
  int serial = 0;
  int round = 0;
  int barrierUse = 0;

  void line(std::string& out, const char* fmt_event, const std::string& fields) {
    char head[96];
    t += 1000 + (t % 7) * 100;
    std::snprintf(head, sizeof head, "%lld.%09lld %lld.%09lld t%x ", (t + 5000) / 1'000'000'000,
                  (t + 5000) % 1'000'000'000, t / 1'000'000'000, t % 1'000'000'000, 0x40002 + index);
    out += head;
    out += fmt_event;
    if (!fields.empty()) out += ' ' + fields;
    out += '\n';
  }

  // Appends about one round (11-14 records); returns the number written.
  int next(std::string& out) {
    int n = 0;
    auto emit = [&](const char* ev, const std::string& f) { line(out, ev, f); ++n; };
    char buf[160];
    if (round == 0) {
      std::snprintf(buf, sizeof buf, "rc=t%x name=worker host=node%d parent=t40002 lang=c pid=%d",
                    0x40002 + index, index % 4, 1000 + index);
      emit("mytid", buf);
      emit("joingroup", "group=workers rc=" + std::to_string(index));
    }
    ++round;
    int dst = 0x40002 + (index + 1) % kTasks, src = 0x40002 + (index + kTasks - 1) % kTasks;
    emit("initsend", "enc=0 rc=1");
    emit("pkint", "type=int n=16 stride=1 rc=0");
    emit("pkdouble", "type=double n=128 stride=1 rc=0");
    std::snprintf(buf, sizeof buf, "dst=t%x tag=%d bytes=1088 serial=%d rc=0", dst, 100 + round % 5, ++serial);
    emit("send", buf);
    std::snprintf(buf, sizeof buf, "src=t%x tag=%d", src, 100 + round % 5);
    emit("recv.begin", buf);
    std::snprintf(buf, sizeof buf, "src=t%x tag=%d bytes=1088 serial=%d rc=4", src, 100 + round % 5, round);
    emit("recv", buf);
    emit("upkint", "type=int n=16 stride=1 rc=0");
    emit("upkdouble", "type=double n=64 stride=1 rc=0");
    emit("upkdouble", "type=double n=64 stride=1 rc=0");
    if (round % 10 == 0) {
      emit("barrier.begin", "group=workers count=16");
      emit("barrier", "group=workers count=16 rc=0");
    }
    if (round % 25 == 0) emit("mark", "text=iteration%20" + std::to_string(round));
    return n;
  }
};

long long writeTrace(const std::string& path, long long events) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) { std::perror(path.c_str()); std::exit(1); }
  std::fputs("#xab-trace 1 abmon=t40001 host=bench pid=1 start=1763680000.000000000\n", f);
  std::vector<TaskGen> tasks(kTasks);
  for (int i = 0; i < kTasks; ++i) tasks[static_cast<std::size_t>(i)].index = i;
  std::string buf;
  long long written = 0;
  while (written < events) {
    for (auto& g : tasks) {
      for (int k = 0; k < kBatch && written < events;) {
        int n = g.next(buf);
        k += n;
        written += n;
      }
      std::fwrite(buf.data(), 1, buf.size(), f);
      buf.clear();
    }
  }
  std::fclose(f);
  return written;
}

// CPU seconds of this process: the machine is shared, so wall time alone
// says more about the neighbours than about the reader.
double cpuSeconds() { return static_cast<double>(bench_cpu_ns()) / 1e9; }

struct Raw { double seconds; double cpu; std::size_t bytes; long long lines; };

Raw rawRead(const std::string& path, bool countLines) {
  int fd = ::open(path.c_str(), O_RDONLY);
  std::vector<char> buf(1 << 20);
  Raw r{0, 0, 0, 0};
  auto t0 = Clock::now();
  double c0 = cpuSeconds();
  ssize_t n;
  while ((n = ::read(fd, buf.data(), buf.size())) > 0) {
    r.bytes += static_cast<std::size_t>(n);
    if (!countLines) continue;
    const char* p = buf.data();
    const char* end = p + n;
    while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))))) { ++r.lines; ++p; }
  }
  r.seconds = secondsSince(t0);
  r.cpu = cpuSeconds() - c0;
  ::close(fd);
  return r;
}

long rssKb() {
  long pages = 0, rss = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f && std::fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
  if (f) std::fclose(f);
  return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace

int main(int argc, char** argv) {
  long long events = 10'000'000;
  std::string path = "/tmp/xab-model-bench.trace";
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--events" && i + 1 < argc) events = std::atoll(argv[++i]);
    else if (a == "--file" && i + 1 < argc) path = argv[++i];
    else if (a == "--keep") keep = true;
    else { std::fprintf(stderr, "usage: model_read_bench [--events N] [--file PATH] [--keep]\n"); return 1; }
  }
  std::printf("writing %lld events to %s ...\n", events, path.c_str());
  writeTrace(path, events);
  rawRead(path, false);  // warm the page cache
  Raw raw = rawRead(path, false);
  Raw lines = rawRead(path, true);
  double mb = static_cast<double>(raw.bytes) / 1e6;

  std::size_t heap0 = mallinfo2().uordblks;
  long rss0 = rssKb();
  auto t0 = Clock::now();
  double cpu0 = cpuSeconds();
  LoadResult r = loadTraceFile(path);
  double load = secondsSince(t0);
  double loadCpu = cpuSeconds() - cpu0;
  std::size_t heap1 = mallinfo2().uordblks;
  long rss1 = rssKb();
  if (!r.trace || r.errorCount) { std::fprintf(stderr, "load failed: %s (%llu errors)\n", r.fatal.c_str(), (unsigned long long)r.errorCount); return 1; }
  auto n = static_cast<double>(r.trace->eventCount());

  // Each analysis, CPU seconds.
  auto timed = [](auto&& f) {
    double c = cpuSeconds();
    f();
    return cpuSeconds() - c;
  };
  const Trace& t = *r.trace;
  MessageTable m;
  BarrierAnalysis b;
  HangReport h;
  MismatchReport x;
  BreakdownReport bd;
  double tMatch = timed([&] { m = matchMessages(t); });
  double tBarrier = timed([&] { b = analyzeBarriers(t); });
  double tHang = timed([&] { h = diagnoseHang(t, m, b); });
  double tMismatch = timed([&] { x = findPackMismatches(t, m); });
  double tBreakdown = timed([&] { bd = timeBreakdown(t); });
  long long probes = 0;
  constexpr int kQueries = 100000;
  double tQuery = timed([&] {
    for (int q = 0; q < kQueries; ++q)
      for (TaskIndex k = 0; k < t.taskCount(); ++k)
        probes += stateAt(t, k, t.firstTime() + (t.lastTime() - t.firstTime()) / kQueries * q).state != TaskState::NotStarted;
  });
  // What a live viewer pays per refresh: a snapshot of a reader holding it all.
  TraceSource source(path);
  source.readToEnd();
  std::shared_ptr<const Trace> snap;
  double tSnap = timed([&] { for (int i = 0; i < 10; ++i) snap = source.reader().snapshot(); }) / 10;
  // What a live viewer pays per analysed snapshot: the whole chain.
  double tAnalyse = timed([&] { (void)analyse(snap); });

  std::printf("file                 %.1f MB, %.0f events, %lld lines, %.1f bytes/line\n", mb, n, lines.lines, static_cast<double>(raw.bytes) / static_cast<double>(lines.lines));
  std::printf("raw read()           %8.0f MB/s  (CPU time only %.0f MB/s)\n", mb / raw.seconds, mb / raw.cpu);
  std::printf("line count (memchr)  %8.0f MB/s  (CPU time only %.0f MB/s)\n", mb / lines.seconds, mb / lines.cpu);
  std::printf("xab::loadTraceFile   %8.0f MB/s  %.2f M events/s  %.0f ns/event\n", mb / load, n / load / 1e6, load / n * 1e9);
  std::printf("  CPU time only      %8.0f MB/s  %.0f ns/event\n", mb / loadCpu, loadCpu / n * 1e9);
  std::printf("  ratio to read()    %8.3f wall, %.3f CPU\n", raw.seconds / load, raw.cpu / loadCpu);
  std::printf("  ratio to counting  %8.3f wall, %.3f CPU\n", lines.seconds / load, lines.cpu / loadCpu);
  std::printf("memory per event     %8.1f bytes (heap, mallinfo2)  %.1f bytes (RSS)  %.1f bytes (model's own count)\n",
              static_cast<double>(heap1 - heap0) / n, static_cast<double>(rss1 - rss0) * 1024 / n,
              static_cast<double>(r.trace->memoryBytes()) / n);
  std::printf("CPU seconds: matchMessages %.2f (%zu messages, %llu receives matched), analyzeBarriers %.2f (%zu uses),\n"
              "  diagnoseHang %.2f (hung=%d), findPackMismatches %.2f (%llu checked, %zu mismatched), timeBreakdown %.2f\n",
              tMatch, m.messages.size(), (unsigned long long)m.total.count, tBarrier, b.instances.size(), tHang, h.hung,
              tMismatch, (unsigned long long)x.checked, x.mismatches.size(), tBreakdown);
  std::printf("message table        %8.1f bytes/message (MessageTable::memoryBytes, %zu messages)\n",
              m.messages.empty() ? 0.0 : static_cast<double>(m.memoryBytes()) / static_cast<double>(m.messages.size()),
              m.messages.size());
  std::printf("stateAt              %8.0f ns/query (%lld)\n", tQuery / (kQueries * static_cast<double>(t.taskCount())) * 1e9, probes);
  std::printf("snapshot()           %8.3f ms (%llu events held; CPU)\n", tSnap * 1e3, (unsigned long long)snap->eventCount());
  std::printf("analyse(snapshot)    %8.2f CPU s (the whole chain, one thread)\n", tAnalyse);
  (void)bd;
  if (!keep) std::remove(path.c_str());
  return 0;
}
