// clock_synth.h -- synthetic traces for the global-time tests: every date
// made from a true time through a chosen clock offset and drift, so the
// truth is known.
#pragma once

#include <xab/model/model.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

namespace xab::clocktest {

constexpr TimeNs kT0 = 1'700'000'000'000'000'000;  // true time of the run's start
constexpr Tid kRef = 0x40001, kA = 0x40002, kB = 0x40003;

// A clock: local = true + offset + (true - kT0) * ppm / 1e6.
struct Skew {
  double offsetS = 0, ppm = 0;
  TimeNs at(TimeNs truth) const {
    return truth + static_cast<TimeNs>(std::llround(offsetS * 1e9 + static_cast<double>(truth - kT0) * ppm * 1e-6));
  }
};

inline std::string secs(TimeNs t) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld.%09lld", static_cast<long long>(t / 1'000'000'000),
                static_cast<long long>(t % 1'000'000'000));
  return buf;
}

struct Synth {
  std::string text = "#xab-trace 1 abmon=t40001 host=vm pid=1 start=" + secs(kT0) + "\n";
  std::mt19937 rng{15};
  void line(TimeNs recv, TimeNs task, Tid tid, const std::string& rest) {
    char tidText[16];
    std::snprintf(tidText, sizeof tidText, "t%x", static_cast<unsigned>(tid));
    text += secs(recv) + " " + secs(task) + " " + tidText + " " + rest + "\n";
  }
  // `n` exchanges from true time `t`, one way `oneWay` ns each (plus
  // jitter); `late` of them wait 3 ms on the way out (a busy reference).
  // The reference is `ref`, whose clock is `refSkew` (abmon's: none).
  // `slowOut`: every exchange of the block waits that much more on the way out.
  void exchanges(Tid tid, const Skew& s, TimeNs t, int phase, int n, TimeNs oneWay, int late = 0, Tid ref = kRef,
                 const Skew& refSkew = Skew{}, TimeNs slowOut = 0, TimeNs jitterMax = 4000) {
    std::uniform_int_distribution<TimeNs> jitter(0, jitterMax);
    char refText[16];
    std::snprintf(refText, sizeof refText, "t%x", static_cast<unsigned>(ref));
    for (int k = 0; k < n; ++k, t += 100'000) {
      TimeNs out = oneWay + slowOut + jitter(rng) + (k < late ? 3'000'000 : 0), back = oneWay + jitter(rng);
      TimeNs t2 = refSkew.at(t + out), t3 = t2 + 2000, t4 = t + out + 2000 + back;
      TimeNs rtt = s.at(t4) - s.at(t);
      line(t3, s.at(t), tid,
           std::string("clock ref=") + refText + " ref_s=" + std::to_string(t2 / 1'000'000'000) + " ref_ns=" +
               std::to_string(t2 % 1'000'000'000) + " turn_ns=2000 rtt_ns=" + std::to_string(rtt) +
               " phase=" + std::to_string(phase) + " rc=" + std::to_string(k));
    }
  }
  void send(Tid from, const Skew& s, TimeNs t, Tid to, int serial) {
    char dst[16];
    std::snprintf(dst, sizeof dst, "t%x", static_cast<unsigned>(to));
    line(t, s.at(t), from, std::string("send dst=") + dst + " tag=1 bytes=8 serial=" + std::to_string(serial) + " rc=0");
  }
  void recv(Tid at, const Skew& s, TimeNs t, Tid from, int serial) {
    char src[16];
    std::snprintf(src, sizeof src, "t%x", static_cast<unsigned>(from));
    line(t, s.at(t), at, std::string("recv src=") + src + " tag=1 bytes=8 serial=" + std::to_string(serial) + " rc=5");
  }
  std::shared_ptr<const Trace> trace() {
    TraceReader r;
    r.feed(text);
    r.finish();
    REQUIRE(r.errorCount() == 0);
    return r.take();
  }
};

// B's clock: two hours ahead, 200 ppm fast; A's is the reference's.
const Skew kNone{}, kSkewB{7200, 200};

// SB at 0 s, running samples at 5 s, SBA at 10 s, for both tasks.
inline void sampleBoth(Synth& s, int late) {
  for (auto [tid, skew] : {std::pair{kA, kNone}, std::pair{kB, kSkewB}}) {
    s.exchanges(tid, skew, kT0, 0, 16, 15'000, late);
    s.exchanges(tid, skew, kT0 + 5'000'000'000, 1, 4, 15'000, late ? 1 : 0);
    s.exchanges(tid, skew, kT0 + 10'000'000'000, 2, 16, 15'000, late);
  }
}

// Both tasks sampled, then B (two hours off) sends to A and back, 200 us
// each way, through the run: the fit alone puts every message in order.
inline Synth exchangesBothWays() {
  Synth s;
  sampleBoth(s, 0);
  for (int i = 1; i <= 20; ++i) {
    TimeNs t = kT0 + 200'000'000 + i * 400'000'000LL;
    s.send(kB, kSkewB, t, kA, i);
    s.recv(kA, kNone, t + 200'000, kB, i);
    s.send(kA, kNone, t + 300'000, kB, i);
    s.recv(kB, kSkewB, t + 500'000, kA, i);
  }
  return s;
}

}  // namespace xab::clocktest
