// monitor_pokes.cpp -- pokes (monitor.h; wire.h, "Pokes"): a task quiet
// for pokeMs is asked for its events, and a final message that came
// through PVM is confirmed.
#include "monitor.h"

#include <pvm3.h>
#include <spdlog/spdlog.h>
#include <xab/wire.h>

#include <algorithm>
#include <chrono>
#include <span>

#include "mailbox.h"

namespace xab::abmon {
namespace {

// A task that stays quiet is poked ever less often, at least every 5 s (a
// poke that waits in a busy task's socket costs it nothing until it reads).
constexpr std::int64_t kPokeMaxNs = 5'000'000'000;

}  // namespace

// A task's message has come.  If it takes pokes: poke it once it has been
// quiet for pokeMs; if that was its final message and came through PVM,
// confirm it (a task killed while blocked waits for this before it dies;
// one that writes to the local socket does not need to).
void Monitor::heardFrom(int tid, std::int64_t nowNs, bool throughPvm) {
  if (setup_.opts.pokeMs <= 0 || !sessions_.takesPokes(tid)) {
    pokes_.erase(tid);
    return;
  }
  if (sessions_.finalSeen(tid)) {
    std::int32_t seq = sessions_.lastSeq(tid);
    if (throughPvm) poke(tid, &seq);
    pokes_.erase(tid);
    return;
  }
  std::int64_t gap = std::int64_t{setup_.opts.pokeMs} * 1'000'000;
  pokes_[tid] = {nowNs + gap, gap};
}

void Monitor::armPokeTimer() {
  if (setup_.opts.pokeMs <= 0 || finished_) return;
  // A quarter of the poke time: a quiet task is poked within 1.25 x pokeMs.
  pokeTimer_.expires_after(std::chrono::milliseconds(std::max(1, setup_.opts.pokeMs / 4)));
  pokeTimer_.async_wait([this](const auto& ec) { onPokeTimer(ec); });
}

void Monitor::onPokeTimer(const boost::system::error_code& ec) {
  if (ec || finished_) return;
  std::int64_t now = realtimeNs();
  bool poked = false;
  for (auto& [tid, due] : pokes_) {
    if (now < due.atNs) continue;
    poke(tid, nullptr);
    poked = true;
    due.gapNs = std::min(due.gapNs * 2, kPokeMaxNs);
    due.atNs = now + due.gapNs;
  }
  // pvm_send reads whatever has come in meanwhile into PVM's own queue,
  // where no socket wakes us for it: take it now.
  if (poked && drain()) watchPvmFds();
  armPokeTimer();
}

// A poke (wire.h, Pokes): the task's poke key, then the form's words (none
// for "send what you have", the seq of its final message for a
// confirmation, XAB_POKE_FILTER and the families for a filter).  Always
// through pvmd (main.cpp refuses direct routes), and PvmDataDefault: libab
// packs its answer into the poke's own buffer, over the key (ab_poke.c).
int Monitor::sendPoke(int tid, std::span<const int> words) {
  auto key = sessions_.pokeKey(tid);
  int buf = pvm_mkbuf(PvmDataDefault);
  int old = pvm_setsbuf(buf);
  pvm_pkint(key.data(), 2, 1);
  if (!words.empty()) pvm_pkint(const_cast<int*>(words.data()), static_cast<int>(words.size()), 1);
  int rc = pvm_send(tid, setup_.opts.tag + XAB_POKE_TAG_OFFSET);
  pvm_setsbuf(old);
  pvm_freebuf(buf);
  if (rc >= 0) ++pokesSent_;
  return rc;
}

void Monitor::poke(int tid, const int* finalSeq) {
  int rc = sendPoke(tid, finalSeq ? std::span<const int>(finalSeq, 1) : std::span<const int>());
  if (rc < 0) spdlog::debug("poking t{:x}: {}", tid, pvmErrorName(rc));
  spdlog::trace("poked t{:x}{}", tid, finalSeq ? " (final message received)" : "");
}

}  // namespace xab::abmon
