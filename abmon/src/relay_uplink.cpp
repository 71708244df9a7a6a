// relay_uplink.cpp -- a relay's side (relay.h, RelayUplink): its batches
// to abmon, as PVM messages or on its stream, its clock exchanges, and its
// tasks' steps.
#include "relay.h"

#include <pvm3.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <xab/traceformat/schema.h>
#include <xab/traceformat/write.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "relay_pack.h"

namespace xab::abmon {

std::int64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

namespace {

// One exchange: 0 with t1..t4, or -1 when abmon did not answer in time.
// `id` is the ping's number, never the same twice, so that a pong come late
// is never taken for another exchange's.
int clockExchange(int abmonTid, int tag, int id, std::int64_t t[4]) {
  int buf = pvm_mkbuf(PvmDataRaw);
  int old = pvm_setsbuf(buf);
  t[0] = realtimeNs();
  int ping[] = {static_cast<int>(RelayMsg::ClockPing), static_cast<int>(t[0] >> 32),
                static_cast<int>(t[0] & 0xffffffff), id};
  int rc = pvm_pkint(ping, 4, 1);
  if (rc >= 0) rc = pvm_send(abmonTid, tag);
  pvm_setsbuf(old);
  pvm_freebuf(buf);
  if (rc < 0) return -1;
  for (;;) {  // a late pong of an exchange given up on is skipped
    timeval wait{0, RelayUplink::kClockWaitMs * 1000};
    int bufid = pvm_trecv(abmonTid, tag - kRelayTagOffset + kClockPongTagOffset, &wait);
    t[3] = realtimeNs();
    if (bufid <= 0) return -1;
    int pong[5] = {};
    int got = pvm_upkint(pong, 5, 1);
    pvm_freebuf(bufid);
    if (got < 0) return -1;
    if (pong[0] != id) continue;
    t[1] = (std::int64_t{pong[1]} << 32) | static_cast<std::uint32_t>(pong[2]);
    t[2] = (std::int64_t{pong[3]} << 32) | static_cast<std::uint32_t>(pong[4]);
    return 0;
  }
}

// One exchange on the relay's stream (relay_stream.h, "Clock exchanges"):
// 0 with t1..t4; -1 when abmon did not answer in time, or the stream is
// broken or says something else than pongs (then the batch that follows
// finds the stream's end and says so).
// `id` is the ping's number on the wire, never the same twice on a stream,
// so that a pong come late is never taken for another exchange's.
int streamExchange(int fd, FrameReader& pongs, std::string& frame, int id, std::int64_t t[4]) {
  frame.clear();
  t[0] = realtimeNs();
  appendClockPing(frame, id, t[0]);
  if (!writeAll(fd, frame)) return -1;
  const std::int64_t until = t[0] + std::int64_t{RelayUplink::kClockWaitMs} * 1'000'000;
  for (;;) {
    RelayBatch b;
    while (pongs.next(b)) {
      int got = -1;
      if (!readClockPong(b, got, t[1], t[2])) return -1;
      if (got == id) return 0;  // a late pong of an exchange given up on is skipped
    }
    if (pongs.bad()) return -1;
    std::int64_t left = until - realtimeNs();
    if (left <= 0) return -1;
    long n = readSome(fd, pongs, static_cast<int>((left + 999'999) / 1'000'000));
    t[3] = realtimeNs();
    if (n < 0) return -1;
  }
}

// The relay's own `clock` record (docs/trace-format.md, "Clock records"):
// column 1 its clock when the pong came (it stamps its own records), 2 t1.
void clockRecord(std::string& out, int self, int abmonTid, int phase, int k, const std::int64_t t[4]) {
  text::appendRecordStart(out, t[3], t[0], self, Kind::CLOCK);
  text::appendKey(out, keyName(Key::Ref));
  text::appendTid(out, abmonTid);
  intField(out, Key::RefS, t[1] / 1'000'000'000);
  intField(out, Key::RefNs, t[1] % 1'000'000'000);
  intField(out, Key::TurnNs, t[2] - t[1]);
  intField(out, Key::RttNs, t[3] - t[0]);
  intField(out, Key::ClockPhase, phase);
  intField(out, Key::Rc, k);
  out.push_back('\n');
}

}  // namespace

int RelayUplink::syncClock(int phase, int count) {
  if (selfTid_ == 0) selfTid_ = pvm_mytid();
  lastClockNs_ = realtimeNs();
  int k = 0;
  for (; k < count; ++k) {
    std::int64_t t[4];
    // On the relay's own stream, the direct path whose peer abmon's token
    // proves; without one, through both hosts' pvmds: abmon refuses PVM's
    // direct routes (a route's fragment headers name a source nobody
    // checks; main.cpp, enrol).
    int got = streamFd_ >= 0 ? streamExchange(streamFd_, pongs_, frame_, ++pings_, t)
                             : clockExchange(abmonTid_, tag_, ++pings_, t);
    if (got < 0) break;
    if (!xab_clock_exchange_usable(t[0], t[1], t[2], t[3])) continue;  // not a sample (wire.h)
    clockRecord(text_, selfTid_, abmonTid_, phase, k, t);  // not counted in events=: its tasks' records
  }
  return k;
}

int RelayUplink::send(RelayMsg what) {
  if (streamFd_ >= 0 && what != RelayMsg::Start) return sendOnStream(what);
  int buf = pvm_mkbuf(PvmDataRaw);
  int old = pvm_setsbuf(buf);
  std::int64_t now = realtimeNs();
  int head[] = {static_cast<int>(what), static_cast<int>(now >> 32), static_cast<int>(now & 0xffffffff)};
  int rc = pvm_pkint(head, 3, 1);
  if (rc >= 0) rc = packInts(opened_);
  if (rc >= 0) rc = packInts(closed_);
  int tail[] = {static_cast<int>(std::min<std::uint64_t>(events_, INT32_MAX)), static_cast<int>(text_.size())};
  if (rc >= 0) rc = pvm_pkint(tail, 2, 1);
  if (rc >= 0 && !text_.empty()) rc = pvm_pkbyte(text_.data(), static_cast<int>(text_.size()), 1);
  if (rc >= 0) rc = pvm_send(abmonTid_, tag_);
  pvm_setsbuf(old);
  pvm_freebuf(buf);
  text_.clear();
  opened_.clear();
  closed_.clear();
  events_ = 0;
  return rc;
}

RelayUplink::~RelayUplink() {
  if (streamFd_ >= 0) close(streamFd_);
}

int RelayUplink::sendOnStream(RelayMsg what) {
  RelayBatch b;
  b.what = static_cast<int>(what);
  b.sentNs = realtimeNs();
  b.events = static_cast<int>(std::min<std::uint64_t>(events_, INT32_MAX));
  b.opened = std::move(opened_);
  b.closed = std::move(closed_);
  b.text = text_;
  frame_.clear();
  appendFrame(frame_, b);
  text_.clear();
  opened_.clear();
  closed_.clear();
  events_ = 0;
  if (writeAll(streamFd_, frame_)) return 0;
  spdlog::error("the stream to abmon is broken: {}", std::strerror(errno));
  close(streamFd_);
  streamFd_ = -1;
  return -1;
}

// abmon's host as pvm_config names it; the relay's host resolves it.
bool RelayUplink::connectStream(int port, std::uint64_t token) {
  int nhost = 0, narch = 0;
  pvmhostinfo* hosts = nullptr;
  std::string host;
  if (pvm_config(&nhost, &narch, &hosts) >= 0)
    for (int i = 0; i < nhost; ++i)
      if (hosts[i].hi_tid == pvm_tidtohost(abmonTid_)) host = hosts[i].hi_name;
  if (selfTid_ == 0) selfTid_ = pvm_mytid();
  std::string error = "abmon's host not in pvm_config";
  if (!host.empty()) streamFd_ = connectRelayStream(host, port, selfTid_, token, error);
  if (streamFd_ < 0) spdlog::warn("no stream to abmon ({}): batches go as PVM messages", error);
  return streamFd_ >= 0;
}
int RelayUplink::awaitStreamToken(std::uint64_t& token) {
  timeval wait{kTokenWaitMs / 1000, (kTokenWaitMs % 1000) * 1000};
  int bufid = pvm_trecv(abmonTid_, tag_, &wait);
  if (bufid <= 0) {
    spdlog::warn("no stream token from abmon within {} ms: batches go as PVM messages", kTokenWaitMs);
    return 0;
  }
  int m[3] = {};
  int rc = pvm_upkint(m, 1, 1);
  if (rc >= 0 && m[0] == static_cast<int>(RelayMsg::StreamToken)) rc = pvm_upkint(m + 1, 2, 1);
  pvm_freebuf(bufid);
  if (rc < 0 || m[0] != static_cast<int>(RelayMsg::StreamToken)) return -1;
  token = (std::uint64_t{static_cast<std::uint32_t>(m[1])} << 32) | static_cast<std::uint32_t>(m[2]);
  return 1;
}
// The relay: its gathered text first, so that the task's step.wait record
// reaches abmon before the ask does (PVM keeps one sender's order).
int RelayUplink::sendStepAsk(const StepAskFields& a) {
  if (!empty())
    if (int rc = send(RelayMsg::Batch); rc < 0) return rc;
  std::int64_t now = realtimeNs();
  int m[] = {static_cast<int>(RelayMsg::StepAsk), static_cast<int>(now >> 32), static_cast<int>(now & 0xffffffff),
             a.tid, a.seq, a.kind, a.peer, a.tag};
  return sendInts(abmonTid_, tag_, m, static_cast<int>(std::size(m)));
}

int RelayUplink::sendStepGone(int tid) {
  std::int64_t now = realtimeNs();
  int m[] = {static_cast<int>(RelayMsg::StepGone), static_cast<int>(now >> 32), static_cast<int>(now & 0xffffffff),
             tid};
  return sendInts(abmonTid_, tag_, m, static_cast<int>(std::size(m)));
}

bool RelayUplink::takeStepGo(int& tid, int& seq) {
  int m[3] = {};
  if (pvm_upkint(m, 1, 1) < 0 || m[0] != static_cast<int>(RelayMsg::StepGo)) return false;
  if (pvm_upkint(m + 1, 2, 1) < 0) return false;
  tid = m[1], seq = m[2];
  return true;
}
}  // namespace xab::abmon
