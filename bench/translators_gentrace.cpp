// translators_gentrace -- writes a large, well-formed xab trace for the
// translator benchmark (bench/translators_bench.sh).
//
// The trace is a ring of T tasks: each round every task packs and sends one
// message to its right neighbour and receives one from its left; every
// 50 rounds all tasks pass a barrier, every 500 a task writes a mark.  So
// every translator has messages, blocking receives, barriers and marks to
// translate, in the proportions of a real message-passing program.
//
//   translators_gentrace MEGABYTES [TASKS] > big.trace
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr long long kStart = 1763680000LL * 1000000000LL;

struct Out {
  std::string buf;
  long long written = 0;  // bytes of records so far
  long long records = 0;
  // Clock of task i (--clocks): global time t reads t + offset[i] + t * drift[i].
  std::vector<long long> offset;
  std::vector<double> drift;
  void flush() { std::fwrite(buf.data(), 1, buf.size(), stdout); buf.clear(); }
  long long taskClock(int i, long long t) const {
    if (offset.empty()) return t;
    return t + offset[static_cast<std::size_t>(i)] + static_cast<long long>(static_cast<double>(t - kStart) * drift[static_cast<std::size_t>(i)]);
  }
  // A record of task i at global time t: abmon receives it 50 us later.
  void line(long long t, int tid, const char* rest, int i = -1) {
    long long local = i < 0 ? t : taskClock(i, t), recv = offset.empty() ? t : t + 50000;
    char tmp[256];
    int n = std::snprintf(tmp, sizeof tmp, "%lld.%09lld %lld.%09lld t%x %s\n", recv / 1000000000LL,
                          recv % 1000000000LL, local / 1000000000LL, local % 1000000000LL, tid, rest);
    buf.append(tmp, static_cast<std::size_t>(n));
    written += n;
    ++records;
    if (buf.size() > (1 << 20)) flush();
  }
};

}  // namespace

int main(int argc, char** argv) {
  long long wantBytes = 0, wantRecords = 0;
  int tasks = 8;
  bool clocks = false;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t k = 0; k < args.size(); ++k) {
    if (args[k] == "--clocks") clocks = true;
    else if (args[k] == "--records" && k + 1 < args.size()) wantRecords = std::atoll(args[++k].c_str());
    else if (wantBytes == 0 && wantRecords == 0) wantBytes = std::atoll(args[k].c_str()) * 1000000LL;
    else tasks = std::atoi(args[k].c_str());
  }
  if ((wantBytes <= 0 && wantRecords <= 0) || tasks < 2) {
    std::fprintf(stderr, "usage: translators_gentrace MEGABYTES [TASKS] > big.trace\n"
                         "       translators_gentrace --records N [TASKS] [--clocks] > big.trace\n");
    return 1;
  }
  Out o;
  auto more = [&] { return wantRecords > 0 ? o.records < wantRecords : o.written < wantBytes; };
  if (clocks)
    for (int i = 0; i < tasks; ++i) {  // offsets of 0..80 us, drifts of a few ppm
      o.offset.push_back((i % 9) * 10000LL);
      o.drift.push_back((i % 5 - 2) * 2e-6);
    }
  std::printf("#xab-trace 1 abmon=t40001 host=bench pid=1 start=%lld.000000000\n", kStart / 1000000000LL);
  auto tid = [](int i) { return 0x40002 + i; };
  char rest[200];
  const long long barrierEnd = std::max(1000, 100 * tasks + 100);  // after the last task's begin
  const long long spacing = 30000000LL / tasks;  // of the tasks' start and end exchanges
  // n clock exchanges of task i from global time t, one every 100 us: the
  // ping leaves at t, abmon reads it 10 us later and answers 40 ns after.
  auto exchanges = [&](int i, long long t, int n, int phase) {
    for (int k = 0; k < n; ++k, t += 100000) {
      long long ref = t + 10000;
      std::snprintf(rest, sizeof rest, "clock ref=t40001 ref_s=%lld ref_ns=%lld turn_ns=40 rtt_ns=20040 phase=%d rc=%d",
                    ref / 1000000000LL, ref % 1000000000LL, phase, k);
      o.line(t, tid(i), rest, i);
    }
  };
  for (int i = 0; i < tasks; ++i) {
    std::snprintf(rest, sizeof rest, "mytid rc=t%x name=ring host=h%d parent=none lang=c pid=%d", tid(i),
                  i % 4, 100 + i);
    o.line(kStart + 1000, tid(i), rest, i);
    if (clocks) exchanges(i, kStart + 1000000 + spacing * i, 16, 0);
    o.line(kStart + 2000 + (clocks ? 40000000 : 0), tid(i), "joingroup group=ring rc=0", i);
  }
  std::vector<int> serial(static_cast<std::size_t>(tasks), 0);
  long long t = kStart + 10000 + (clocks ? 50000000 : 0);
  long long nextSecond = t + 1000000000LL;
  for (long long round = 0; more(); ++round) {
    for (int i = 0; i < tasks; ++i) {
      int right = tid((i + 1) % tasks);
      o.line(t, tid(i), "initsend enc=0 rc=1", i);
      o.line(t + 200, tid(i), "pkdouble type=double n=128 stride=1 rc=0", i);
      std::snprintf(rest, sizeof rest, "send dst=t%x tag=7 bytes=1024 serial=%d rc=0", right, ++serial[i]);
      o.line(t + 400, tid(i), rest, i);
    }
    for (int i = 0; i < tasks; ++i) {
      int left = (i + tasks - 1) % tasks;
      o.line(t + 500, tid(i), "recv.begin src=any tag=7", i);
      std::snprintf(rest, sizeof rest, "recv src=t%x tag=7 bytes=1024 serial=%d rc=2", tid(left), serial[left]);
      o.line(t + 3000, tid(i), rest, i);
      o.line(t + 3200, tid(i), "upkdouble type=double n=128 stride=1 rc=0", i);
    }
    t += 5000;
    if (round % 50 == 49) {
      for (int i = 0; i < tasks; ++i) {
        std::snprintf(rest, sizeof rest, "barrier.begin group=ring count=%d", tasks);
        o.line(t + 100 * i, tid(i), rest, i);
        std::snprintf(rest, sizeof rest, "barrier group=ring count=%d rc=0", tasks);
        o.line(t + barrierEnd, tid(i), rest, i);
      }
      t += barrierEnd + 1000;
    }
    if (round % 500 == 499) o.line(t, tid(0), "mark text=checkpoint rc=0", 0);
    if (clocks && t >= nextSecond) {  // each task's 4 exchanges of this second
      for (int i = 0; i < tasks; ++i) exchanges(i, t + 1000, 4, 1);
      t += 500000;
      nextSecond += 1000000000LL;
    }
  }
  for (int i = 0; i < tasks; ++i) {
    if (clocks) exchanges(i, t + 1000 + spacing * i, 16, 2);
    o.line(t + 1000 + (clocks ? 40000000 : 0), tid(i), "exit rc=0", i);
  }
  o.flush();
  return 0;
}
