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
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr long long kStart = 1763680000LL * 1000000000LL;

struct Out {
  std::string buf;
  long long written = 0;  // bytes of records so far
  void flush() { std::fwrite(buf.data(), 1, buf.size(), stdout); buf.clear(); }
  void line(long long t, int tid, const char* rest) {
    char tmp[256];
    int n = std::snprintf(tmp, sizeof tmp, "%lld.%09lld %lld.%09lld t%x %s\n", t / 1000000000LL,
                          t % 1000000000LL, t / 1000000000LL, t % 1000000000LL, tid, rest);
    buf.append(tmp, static_cast<std::size_t>(n));
    written += n;
    if (buf.size() > (1 << 20)) flush();
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: translators_gentrace MEGABYTES [TASKS] > big.trace\n");
    return 1;
  }
  const long long want = std::atoll(argv[1]) * 1000000LL;
  const int tasks = argc > 2 ? std::atoi(argv[2]) : 8;
  Out o;
  std::printf("#xab-trace 1 abmon=t40001 host=bench pid=1 start=%lld.000000000\n", kStart / 1000000000LL);
  auto tid = [](int i) { return 0x40002 + i; };
  char rest[200];
  for (int i = 0; i < tasks; ++i) {
    std::snprintf(rest, sizeof rest, "mytid rc=t%x name=ring host=h%d parent=none lang=c pid=%d", tid(i),
                  i % 4, 100 + i);
    o.line(kStart + 1000, tid(i), rest);
    o.line(kStart + 2000, tid(i), "joingroup group=ring rc=0");
  }
  std::vector<int> serial(static_cast<std::size_t>(tasks), 0);
  long long t = kStart + 10000;
  for (long long round = 0; o.written < want; ++round) {
    for (int i = 0; i < tasks; ++i) {
      int right = tid((i + 1) % tasks);
      o.line(t, tid(i), "initsend enc=0 rc=1");
      o.line(t + 200, tid(i), "pkdouble type=double n=128 stride=1 rc=0");
      std::snprintf(rest, sizeof rest, "send dst=t%x tag=7 bytes=1024 serial=%d rc=0", right, ++serial[i]);
      o.line(t + 400, tid(i), rest);
    }
    for (int i = 0; i < tasks; ++i) {
      int left = (i + tasks - 1) % tasks;
      o.line(t + 500, tid(i), "recv.begin src=any tag=7");
      std::snprintf(rest, sizeof rest, "recv src=t%x tag=7 bytes=1024 serial=%d rc=2", tid(left), serial[left]);
      o.line(t + 3000, tid(i), rest);
      o.line(t + 3200, tid(i), "upkdouble type=double n=128 stride=1 rc=0");
    }
    t += 5000;
    if (round % 50 == 49) {
      for (int i = 0; i < tasks; ++i) {
        std::snprintf(rest, sizeof rest, "barrier.begin group=ring count=%d", tasks);
        o.line(t + 100 * i, tid(i), rest);
        std::snprintf(rest, sizeof rest, "barrier group=ring count=%d rc=0", tasks);
        o.line(t + 1000, tid(i), rest);
      }
      t += 2000;
    }
    if (round % 500 == 499) o.line(t, tid(0), "mark text=checkpoint rc=0");
  }
  for (int i = 0; i < tasks; ++i) o.line(t + 1000, tid(i), "exit rc=0");
  o.flush();
  return 0;
}
