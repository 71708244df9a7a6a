// abmonFormatBench: how many events per second abmon's formatter turns
// into trace lines -- the work abmon does per event, without PVM.
//
// Builds event messages as libab sends them (512 records each, a mix of
// pack, send, blocking receive, unpack, barrier and mcast with a tid list;
// 16 tasks, their messages interleaved), then formats them N times over:
// (1) into memory only, (2) also written to /dev/null with one fwrite and
// fflush per message as abmon does.
//
//   abmonFormatBench [--events N]      (default 20 million)
#include <xab/events.h>

#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "byte_message.h"
#include "bench_util.h"
#include "formatter.h"

using namespace xab::abmon;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kTasks = 16;
constexpr int kPerMessage = 512;

// One task's message number `seq`: a realistic mix of records.
ByteMessage makeMessage(int task, int seq) {
  EventMessageBuilder b;
  b.seq(seq);
  if (seq == 0) b.string(1, "workers").string(2, "bench task");
  std::int64_t t = 1763680000LL * 1'000'000'000 + seq * 1'000'000LL;
  int serial = seq * 100;
  int peer = 0x40002 + (task + 1) % kTasks;
  while (static_cast<int>(b.events.size()) < kPerMessage - 8) {
    t += 1500;
    b.event(t, XAB_EV_INITSEND, XAB_PHASE_END, 1, {0});
    b.event(t + 10, XAB_EV_PKDOUBLE, XAB_PHASE_END, 0, {6, 1000, 1});
    b.event(t + 20, XAB_EV_SEND, XAB_PHASE_END, 0, {peer, 16040, 8012, ++serial});
    b.event(t + 30, XAB_EV_RECV, XAB_PHASE_BEGIN, 0, {-1, 16040});
    b.event(t + 900, XAB_EV_RECV, XAB_PHASE_END, 5, {peer, 16040, 8012, serial});
    b.event(t + 910, XAB_EV_UPKDOUBLE, XAB_PHASE_END, 0, {6, 1000, 1});
  }
  b.event(t + 1000, XAB_EV_BARRIER, XAB_PHASE_BEGIN, 0, {1, kTasks});
  b.event(t + 2000, XAB_EV_BARRIER, XAB_PHASE_END, 0, {1, kTasks});
  b.event(t + 2100, XAB_EV_MCAST, XAB_PHASE_END, 0, {8, 7, 64, ++serial});
  b.event(t + 2100, XAB_EV_TIDS, XAB_PHASE_CONT, 6, {0x40002, 0x40003, 0x40004, 0x40005, 0x40006, 0x40007});
  b.event(t + 2100, XAB_EV_TIDS, XAB_PHASE_CONT, 2, {0x40008, 0x40009});
  return b.build();
}

// CPU time of this process: on a loaded machine, wall time mostly measures
// the other processes.
double cpuSeconds() { return static_cast<double>(bench_cpu_ns()) * 1e-9; }

struct Result {
  double seconds;
  double cpu;
  std::uint64_t events;
  std::uint64_t bytes;
};

Result run(std::vector<ByteMessage>& msgs, std::uint64_t rounds, std::FILE* sink) {
  Sessions sessions;
  Formatter fmt(0x40001, sessions);
  std::string out;
  std::uint64_t bytes = 0;
  auto start = Clock::now();
  double cpuStart = cpuSeconds();
  std::int64_t recv = 1763680000LL * 1'000'000'000;
  for (std::uint64_t r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < msgs.size(); ++i) {
      // Same bytes each round: the repeated sequence number reads as a
      // replay (no abmon.lost), the string table is sent again.
      ByteMessage& m = msgs[i];
      m.rewind();
      out.clear();
      int tid = static_cast<int>(0x40002 + i);
      fmt.message(out, tid, recv += 1000, m);
      bytes += out.size();
      if (sink) {
        std::fwrite(out.data(), 1, out.size(), sink);
        std::fflush(sink);
      }
    }
  }
  double s = std::chrono::duration<double>(Clock::now() - start).count();
  return {s, cpuSeconds() - cpuStart, fmt.counters().events, bytes};
}

void report(const char* what, const Result& r) {
  double n = static_cast<double>(r.events);
  std::printf("%-26s wall: %9.0f events/s %6.1f ns/event | cpu: %9.0f events/s %6.1f ns/event "
              "%6.1f MB/s text | %llu events\n",
              what, n / r.seconds, r.seconds * 1e9 / n, n / r.cpu, r.cpu * 1e9 / n,
              static_cast<double>(r.bytes) / r.cpu / 1e6, static_cast<unsigned long long>(r.events));
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t events = 20'000'000;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--events") && i + 1 < argc) {
      events = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: abmon_format_bench [--events N]\n");
      return 2;
    }
  }
  std::vector<ByteMessage> msgs;
  for (int task = 0; task < kTasks; ++task) msgs.push_back(makeMessage(task, 0));
  // Records per round: the mcast's two continuation records are not events.
  std::uint64_t perRound = static_cast<std::uint64_t>(kTasks) * (kPerMessage - 2);
  std::uint64_t rounds = events / perRound + 1;
  std::FILE* null = std::fopen("/dev/null", "w");
  if (!null) return 1;
  run(msgs, rounds / 10 + 1, nullptr);  // warm up
  report("format to memory", run(msgs, rounds, nullptr));
  report("format + write /dev/null", run(msgs, rounds, null));
  std::fclose(null);
  return 0;
}
