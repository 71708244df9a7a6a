// monitor_relays.cpp -- abmon's relays (monitor.h; relay.h): abmon starts
// them and reads their messages; a relay connects to abmon, hears its stop,
// and passes its tasks' steps on.
#include "monitor.h"

#include <boost/asio/post.hpp>
#include <pvm3.h>
#include <spdlog/spdlog.h>

#include <string>
#include <vector>

namespace xab::abmon {

// A relay: its stream to abmon, once abmon's token has come (relay.h,
// StreamToken); else its batches go as PVM messages.  Anything else abmon
// sent first asks it to stop (relayMessage's reading of it), once started.
void Monitor::connectUplink() {
  std::uint64_t token = 0;
  int got = uplink_->awaitStreamToken(token);
  if (got > 0) uplink_->connectStream(setup_.opts.relayPort, token);
  if (got < 0) {
    spdlog::info("abmon asks the relay to stop");
    boost::asio::post(io_, [this] { if (!finished_) stopGracefully(); });
  }
}

// abmon: a relay on every other host, now and whenever one is added.
void Monitor::startRelays() {
  const Options& o = setup_.opts;
  std::vector<std::string> args = {"--relay", std::to_string(setup_.tid) + "," + std::to_string(pvm_getcontext()),
                                   "--tag", std::to_string(o.tag), "--batch", std::to_string(o.batch),
                                   "--flush-ms", std::to_string(o.flushMs), "--poke-ms", std::to_string(o.pokeMs),
                                   "--sample-ms", std::to_string(o.sampleMs)};
  if (o.pvmOnly) args.emplace_back("--pvm-only");
  if (!o.control.empty()) args.emplace_back("--relay-step");  // its host's tasks step too
  hub_ = std::make_unique<RelayHub>(setup_.tid, o.tag, std::move(args));
  hub_->attach(io_, pending_, formatter_, [this] { writeOut(); }, !o.relayPvm);
  hub_->start(pending_, exitTag_);
  drainSoon();  // pvm_spawn and pvm_trecv may have queued other messages
}

// abmon: a relay's batch or a host notice.  A relay: abmon asks it to stop.
bool Monitor::relayMessage(int tag, int src, int bufid, std::int64_t recvNs) {
  if (hub_) {
    bool was = hub_->handle(tag, src, bufid, recvNs, pending_, formatter_);
    if (was && tag != setup_.opts.tag + kRelayTagOffset) drainSoon();  // it may have spawned
    return was;
  }
  if (!isRelay() || tag != setup_.opts.tag + kRelayTagOffset) return false;
  if (src == setup_.opts.relayOf) {
    int tid = 0, seq = 0;
    if (RelayUplink::takeStepGo(tid, seq)) {
      local_.sendStepGo(tid, seq);
      return true;
    }
    spdlog::info("abmon asks the relay to stop");
    boost::asio::post(io_, [this] { if (!finished_) stopGracefully(); });
  }
  return true;
}

// Stepping: a go for a task on this host or, through its
// relay, on another.
bool Monitor::stepGo(std::int32_t tid, std::int32_t seq) {
  if (local_.sendStepGo(tid, seq)) return true;
  if (!hub_ || !hub_->stepGo(tid, seq)) return false;
  drainSoon();  // pvm_send may have read messages into PVM's queue
  return true;
}

// A relay of an abmon in control mode: its tasks' asks go to abmon, after
// the text gathered so far (their step.wait records).
void Monitor::relaySteps() {
  local_.onStep(
      [this](std::int32_t tid, const xab_step_ask& a) {
        writeOut();
        if (uplink_->sendStepAsk({tid, a.seq, a.kind, a.peer, a.tag}) < 0) local_.sendStepGo(tid, a.seq);
        drainSoon();
      },
      [this](std::int32_t tid) {
        uplink_->sendStepGone(tid);
        drainSoon();
      });
}

}  // namespace xab::abmon
