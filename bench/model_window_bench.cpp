// model_window_bench: the window of a TraceSource on a long run read from
// standard input (a pipe): how long reading takes, how many cuts it
// makes, how large its spill file grows, what one cut costs, and how long
// readRange takes to read records back from the middle of the run
// (docs/performance.md, "A run of any length").
//
//   translators_gentrace --records 100000000 16 --clocks |
//     model_window_bench [--max-records N] [--range N]
#include <xab/model/memory.h>
#include <xab/model/model.h>
#include <xab/model/source.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <ctime>
#include <sys/resource.h>

using namespace xab;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// This thread's CPU seconds: what a step costs, whatever else the machine runs.
double cpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

long peakRssMiB() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  returnFreedArrays();
  std::uint64_t maxRecords = 20'000'000, range = 1'000'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--max-records")) maxRecords = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--range")) range = std::strtoull(argv[i + 1], nullptr, 10);
  }
  SourceOptions o;
  o.maxRecords = maxRecords;
  TraceSource src("-", o);
  const auto start = Clock::now();
  double cutSeconds = 0, longestCut = 0;
  while (src.next() != SourceStep::Ended) {
  }
  const double readSeconds = since(start);
  const std::uint64_t records = src.reader().runRecords();
  // One cut on its own: the window as it is, cut to half again.
  {
    const std::uint64_t held = src.reader().eventCount();
    const double c = cpuSeconds();
    src.reader().cut(records - held / 2);
    cutSeconds = cpuSeconds() - c;
    longestCut = static_cast<double>(held) / 1e6;
  }
  const std::uint64_t from = records / 2;
  const double c = cpuSeconds();
  std::string why;
  auto part = src.readRange(from, from + range, &why);
  const double rangeSeconds = cpuSeconds() - c;
  std::printf("records %llu, read in %.1f s (%.2f M records/s), %llu cuts, window %llu records\n",
              static_cast<unsigned long long>(records), readSeconds, static_cast<double>(records) / readSeconds / 1e6,
              static_cast<unsigned long long>(src.cuts()), static_cast<unsigned long long>(maxRecords));
  std::printf("one cut of a window of %.1f M records to half: %.3f s of CPU\n", longestCut, cutSeconds);
  std::printf("spill file %.1f MB (%.2f bytes a record); index %zu entries\n", static_cast<double>(src.spillBytes()) / 1e6,
              static_cast<double>(src.spillBytes()) / static_cast<double>(records), src.index().size());
  std::printf("readRange of %llu records from %llu: %.3f s of CPU (%s)\n", static_cast<unsigned long long>(range),
              static_cast<unsigned long long>(from), rangeSeconds,
              part ? (std::to_string(part->eventCount()) + " records").c_str() : why.c_str());
  std::printf("peak RSS %ld MiB\n", peakRssMiB());
  return part ? 0 : 1;
}
