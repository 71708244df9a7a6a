// monitor_samples.cpp -- clock-driven samples of this host (monitor.h;
// sampler.h): every --sample-ms, each task pvmd knows on this host (the
// program's, whether libab or PVM traces it; not abmon or its relay) and
// the host itself.
#include "monitor.h"

#include <pvm3.h>

#include <chrono>
#include <vector>

namespace xab::abmon {

void Monitor::armSampleTimer() {
  if (!sampler_ || finished_) return;
  sampleTimer_.expires_after(std::chrono::milliseconds(setup_.opts.sampleMs));
  sampleTimer_.async_wait([this](const auto& ec) {
    if (ec || finished_) return;
    sampleHost();
    if (!writeOut()) return;
    armSampleTimer();
  });
}

void Monitor::sampleHost() {
  drainSoon();  // pvm_tasks may read messages into PVM's queue
  int n = 0;
  pvmtaskinfo* info = nullptr;
  std::vector<SampledTask> tasks;
  if (pvm_tasks(pvm_tidtohost(setup_.tid), &n, &info) >= 0)
    for (int i = 0; i < n; ++i)
      if (info[i].ti_tid != setup_.tid && info[i].ti_pid > 0) tasks.push_back({info[i].ti_tid, info[i].ti_pid});
  sampler_->sample(pending_, realtimeNs(), tasks);
}

}  // namespace xab::abmon
