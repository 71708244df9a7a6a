// relay_test_feed.cpp -- the test knob XAB_TEST_RELAY_FEED (relay.h,
// RelayUplink::testFeed; bench/run-ingest-bench.sh), compiled only with
// XAB_TEST_KNOBS.
#include <pvm3.h>
#include <spdlog/spdlog.h>
#include <xab/traceformat/record.h>

#include "relay.h"

namespace xab::abmon {

std::uint64_t RelayUplink::testFeed(int batches) {
  if (selfTid_ == 0) selfTid_ = pvm_mytid();
  int fake = pvm_tidtohost(selfTid_) | 0x3fff0;  // a local part no pvmd gives soon
  std::string block;
  int lines = 0;
  std::int64_t now = realtimeNs();
  text::Record r;  // an nrecv that found nothing: src=any tag=77 bytes=0 serial=0 rc=0
  r.tid = fake;
  r.kind = Kind::NRECV;
  r.set(Key::Src, -1);
  r.set(Key::Tag, 77);
  r.set(Key::Bytes, 0);
  r.set(Key::Serial, 0);
  r.setRc(0);
  while (block.size() < kBatchBytes) {
    r.recvTime = now;
    r.time = now + lines;
    text::appendRecord(block, r);
    block.push_back('\n');
    ++lines;
  }
  std::uint64_t sent = 0;
  for (int i = 0; i < batches; ++i) {
    text_.append(block);
    events_ += static_cast<std::uint64_t>(lines);
    if (send(RelayMsg::Batch) < 0) break;
    sent += static_cast<std::uint64_t>(lines);
  }
  spdlog::info("test feed: {} records in {} batches sent in {:.3f} s", sent, batches, (realtimeNs() - now) / 1e9);
  return sent;
}

}  // namespace xab::abmon
