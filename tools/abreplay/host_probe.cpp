// host_probe.cpp -- each host's clock against abreplay's host's, by
// ping-pong exchanges over PVM (host_probe.h).  The probe starts each
// exchange (t1, t4 on its host's clock), abreplay's child answers (t2, t3
// on its own): the samples of xab/model/clock.h, which the model fits.
#include "host_probe.h"

#include <fcntl.h>
#include <pvm3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <vector>

#include <xab/replay/host_clocks.h>

namespace xab::abreplay {
namespace {

constexpr int kTagPing = 0x7ab1c0, kTagPong = kTagPing + 1, kTagDone = kTagPing + 2, kTagExit = kTagPing + 3;
constexpr int kExchanges = 16;  // the fit keeps the fastest of each phase
constexpr int kWaitS = 10;      // a probe that says nothing for this long is given up

std::int64_t now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);  // libab's record clock (xab_clock)
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void pack64(std::int64_t v) {
  int w[2] = {static_cast<int>(v >> 32), static_cast<int>(v & 0xffffffff)};
  pvm_pkint(w, 2, 1);
}

std::int64_t unpack64() {
  int w[2] = {0, 0};
  pvm_upkint(w, 2, 1);
  return (static_cast<std::int64_t>(w[0]) << 32) | static_cast<std::uint32_t>(w[1]);
}

struct Probe {
  int hostTid = 0;
  std::string host;
  std::int64_t t2[kExchanges] = {}, t3[kExchanges] = {};
};

// The probe's spawn name: this binary's own path (the same on every host
// of a shared file system), else its name on the hosts' ep= path.
int spawnProbe(const char* host) {
  char self[PATH_MAX] = {};
  char arg[] = "--clock-probe";
  char* argv[] = {arg, nullptr};
  int tid = 0;
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0 && pvm_spawn(self, argv, PvmTaskHost, const_cast<char*>(host), 1, &tid) == 1) return tid;
  char name[] = "abreplay";
  if (pvm_spawn(name, argv, PvmTaskHost, const_cast<char*>(host), 1, &tid) == 1) return tid;
  return 0;
}

// The samples of a probe's kTagDone message, as DIR/clocks lines.
std::string samplesOf(const Probe& p, int phase) {
  int n = 0;
  pvm_upkint(&n, 1, 1);
  std::string out;
  for (int i = 0; i < n && i < kExchanges; i++) {
    ClockSample s;
    s.t1 = unpack64();
    s.t4 = unpack64();
    s.t2 = p.t2[i], s.t3 = p.t3[i], s.phase = phase, s.number = i;
    if (s.t2 != 0) out += replay::formatHostClock(p.hostTid, p.host, s);
  }
  return out;
}

int measure(const std::string& dir, int phase) {
  // No virtual machine (or a root user's banner): libpvm's own words on
  // stderr would only confuse; the command itself will say it.
  int err = dup(2), null = open("/dev/null", O_WRONLY);
  if (null >= 0) dup2(null, 1), dup2(null, 2);
  pvm_setopt(PvmAutoErr, 0);
  int me = pvm_mytid();
  if (err >= 0) dup2(err, 2);
  if (me < 0) return 1;
  int nhost = 0, narch = 0;
  pvmhostinfo* hi = nullptr;
  std::map<int, Probe> probes;  // by probe tid
  // This host's clock is the reference (the command runs here): its stamps
  // stay as they are, exactly; a record on one host costs no probe.
  if (pvm_config(&nhost, &narch, &hi) >= 0)
    for (int h = 0; h < nhost; h++) {
      if (hi[h].hi_tid == replay::hostOfTid(me)) continue;
      if (int tid = spawnProbe(hi[h].hi_name))
        probes[tid] = Probe{hi[h].hi_tid, hi[h].hi_name};
      else
        std::cerr << "abreplay: cannot start a clock probe (abreplay --clock-probe) on " << hi[h].hi_name
                  << ": the stamps of its tasks stay on its own clock\n";
    }
  // Until every probe has ended, not only answered: a probe still in
  // PVM's task table would count in the run's pvm_tasks (recorded).
  std::vector<int> tids;
  for (const auto& [tid, p] : probes) tids.push_back(tid);
  if (!tids.empty()) pvm_notify(PvmTaskExit, kTagExit, static_cast<int>(tids.size()), tids.data());
  std::string out;
  for (std::size_t left = 2 * probes.size(); left > 0;) {
    timeval wait{kWaitS, 0};
    int buf = pvm_trecv(-1, -1, &wait);
    std::int64_t t2 = now();
    int bytes = 0, tag = 0, src = 0;
    if (buf <= 0 || pvm_bufinfo(buf, &bytes, &tag, &src) < 0) break;
    if (tag == kTagExit) {
      left--;
      continue;
    }
    auto it = probes.find(src);
    if (it == probes.end()) continue;
    if (tag == kTagPing) {
      int i = 0;
      pvm_upkint(&i, 1, 1);
      pvm_initsend(PvmDataDefault);
      if (i >= 0 && i < kExchanges) it->second.t2[i] = t2, it->second.t3[i] = now();
      pvm_send(src, kTagPong);
    } else if (tag == kTagDone) {
      out += samplesOf(it->second, phase);
      left--;
    }
  }
  std::ofstream(dir + "/clocks", std::ios::app) << out;
  pvm_exit();
  return 0;
}

}  // namespace

void measureHostClocks(const std::string& dir, int phase) {
  std::cout.flush();
  pid_t pid = fork();
  if (pid == 0) _exit(measure(dir, phase));
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0) {
  }
}

int clockProbe() {
  if (pvm_mytid() < 0) return 1;
  int parent = pvm_parent();
  std::int64_t t1[kExchanges], t4[kExchanges];
  int n = 0;
  for (; n < kExchanges; n++) {
    t1[n] = now();
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&n, 1, 1);
    if (pvm_send(parent, kTagPing) < 0) break;
    timeval wait{kWaitS, 0};
    if (pvm_trecv(parent, kTagPong, &wait) <= 0) break;
    t4[n] = now();
  }
  pvm_initsend(PvmDataDefault);
  pvm_pkint(&n, 1, 1);
  for (int i = 0; i < n; i++) pack64(t1[i]), pack64(t4[i]);
  pvm_send(parent, kTagDone);
  pvm_exit();
  return 0;
}

}  // namespace xab::abreplay
