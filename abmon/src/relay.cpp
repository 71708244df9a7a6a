#include "relay.h"

#include <pvm3.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <xab/traceformat/schema.h>
#include <xab/traceformat/write.h>

#include <sys/socket.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

#include "formatter.h"
#include "mailbox.h"

namespace xab::abmon {
namespace {

// How long abmon waits for a new relay to say it is ready.
constexpr int kRelayStartSeconds = 10;

int packInts(const std::vector<int>& v) {
  int n = static_cast<int>(v.size());
  int rc = pvm_pkint(&n, 1, 1);
  if (rc >= 0 && n > 0) rc = pvm_pkint(const_cast<int*>(v.data()), n, 1);
  return rc;
}

std::vector<int> unpackInts() {
  int n = 0;
  if (pvm_upkint(&n, 1, 1) < 0 || n < 0 || n > (1 << 24)) return {};
  std::vector<int> v(static_cast<std::size_t>(n));
  if (n > 0 && pvm_upkint(v.data(), n, 1) < 0) return {};
  return v;
}

// "RECV SENT TID KIND": a relay record, with abmon's receive time and the
// relay's clock when it sent.
void relayRecord(std::string& out, std::int64_t recvNs, std::int64_t sentNs, int tid, Kind kind,
                 const std::string& host) {
  text::appendRecordStart(out, recvNs, sentNs, tid, kind);
  text::appendKey(out, keyName(Key::Host));
  text::appendEscaped(out, host);
}

void intField(std::string& out, Key key, std::int64_t v) {
  text::appendKey(out, keyName(key));
  text::appendInt(out, std::min<std::int64_t>(v, INT32_MAX));
}

}  // namespace

std::int64_t realtimeNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

namespace {

// One exchange: 0 with t1..t4, or -1 when abmon did not answer in time.
int clockExchange(int abmonTid, int tag, int k, std::int64_t t[4]) {
  int buf = pvm_mkbuf(PvmDataRaw);
  int old = pvm_setsbuf(buf);
  t[0] = realtimeNs();
  int ping[] = {static_cast<int>(RelayMsg::ClockPing), static_cast<int>(t[0] >> 32),
                static_cast<int>(t[0] & 0xffffffff), k};
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
    if (pong[0] != k) continue;
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
    int got = streamFd_ >= 0 ? streamExchange(streamFd_, pongs_, frame_, ++pings_, t) : clockExchange(abmonTid_, tag_, k, t);
    if (got < 0) break;
    std::int64_t turn = t[2] - t[1], rtt = t[3] - t[0];
    if (turn < 0 || rtt < turn || rtt > INT32_MAX || t[1] < 0) continue;  // not a possible exchange
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

#ifdef XAB_TEST_KNOBS
std::uint64_t RelayUplink::testFeed(int batches) {
  if (selfTid_ == 0) selfTid_ = pvm_mytid();
  int fake = pvm_tidtohost(selfTid_) | 0x3fff0;  // a local part no pvmd gives soon
  std::string block;
  int lines = 0;
  std::int64_t now = realtimeNs();
  while (block.size() < kBatchBytes) {
    text::appendTime(block, now);
    block.push_back(' ');
    text::appendTime(block, now + lines);
    block.push_back(' ');
    text::appendTid(block, fake);
    block.append(" nrecv src=any tag=77 bytes=0 serial=0 rc=0\n");
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
#endif

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

void RelayHub::start(std::string& out, int exitTag) {
  exitTag_ = exitTag;
  pvm_notify(PvmHostAdd, tag_ + kHostAddTagOffset, -1, nullptr);
  int nhost = 0, narch = 0;
  pvmhostinfo* hosts = nullptr;
  if (pvm_config(&nhost, &narch, &hosts) < 0) return;
  std::vector<int> others;
  for (int i = 0; i < nhost; ++i)
    if (hosts[i].hi_tid != pvm_tidtohost(abmonTid_)) others.push_back(hosts[i].hi_tid);
  for (int host : others) spawnOn(host, out);
  awaitStarts(out);
}

std::string RelayHub::hostName(int hostTid) const {
  int nhost = 0, narch = 0;
  pvmhostinfo* hosts = nullptr;
  if (pvm_config(&nhost, &narch, &hosts) >= 0)
    for (int i = 0; i < nhost; ++i)
      if (hosts[i].hi_tid == hostTid) return hosts[i].hi_name;
  return {};
}

// One relay on the host: the same program as abmon (/proc/self/exe, so the
// path must be the same on every host, as PVM's ep= paths are).
void RelayHub::spawnOn(int hostTid, std::string& out) {
  for (const auto& [tid, r] : relays_)
    if (r.hostTid == hostTid && r.live) return;
  std::string host = hostName(hostTid);
  if (host.empty()) return;
  char self[4096] = {};
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return;
  std::vector<char*> argv;
  for (auto& a : relayArgs_) argv.push_back(a.data());
  argv.push_back(nullptr);
  int tid = 0;
  int rc = pvm_spawn(self, argv.data(), PvmTaskHost, host.data(), 1, &tid);
  if (rc != 1 || tid <= 0) {
    spdlog::warn("cannot start a relay on {} ({}): its tasks send to abmon directly", host,
                 pvmErrorName(rc == 1 ? tid : rc < 0 ? rc : tid));
    return;
  }
  Relay& r = relays_[tid];
  r.host = host;
  r.hostTid = hostTid;
  if (listenFd_ >= 0) sendStreamToken(tid, host);  // before anything else abmon sends it
  pvm_notify(PvmTaskExit, exitTag_, 1, &tid);
  pvm_notify(PvmHostDelete, tag_ + kHostDeleteTagOffset, 1, &hostTid);
  spdlog::info("relay t{:x} started on {}", tid, host);
  (void)out;
}

// The relay's stream token (relay.h, StreamToken), through the pvmds.
void RelayHub::sendStreamToken(int relayTid, const std::string& host) {
  int buf = pvm_mkbuf(PvmDataDefault);
  int old = pvm_setsbuf(buf);
  int msg[] = {static_cast<int>(RelayMsg::StreamToken), static_cast<int>(token_ >> 32),
               static_cast<int>(token_ & 0xffffffff)};
  int rc = pvm_pkint(msg, 3, 1);
  if (rc >= 0) rc = pvm_send(relayTid, tag_ + kRelayTagOffset);
  pvm_setsbuf(old);
  pvm_freebuf(buf);
  if (rc < 0)
    spdlog::warn("cannot send relay t{:x} on {} its stream's token ({}): its batches come as PVM messages", relayTid,
                 host, pvmErrorName(rc));
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

// Each new relay's Start, before anything else (other messages wait in
// PVM's queue, taken by the next drain).
void RelayHub::awaitStarts(std::string& out) {
  std::int64_t until = realtimeNs() + std::int64_t{kRelayStartSeconds} * 1'000'000'000;
  auto waiting = [this] {
    for (const auto& [tid, r] : relays_)
      if (!r.started && r.live) return true;
    return false;
  };
  // From any relay: one that has started makes its clock exchanges now,
  // and must have its answers while the others start.
  while (waiting() && realtimeNs() < until) {
    bool streamed = false;  // a relay that has its stream pings on it
    int bufid = receive(tag_ + kRelayTagOffset, 100, streamed);
    if (bufid < 0) break;
    // No pvm_pstat here: asking about a task on a host whose pvmd has
    // died blocks until the master pvmd gives up on it (minutes).
    if (bufid == 0) continue;
    int bytes = 0, tag = 0, src = 0;
    pvm_bufinfo(bufid, &bytes, &tag, &src);
    if (auto it = relays_.find(src); it != relays_.end()) onRelay(it->second, src, realtimeNs(), out);
    pvm_freebuf(bufid);
  }
  for (const auto& [tid, r] : relays_)
    if (!r.started && r.live) spdlog::warn("relay t{:x} on {} did not start", tid, r.host);
}

bool RelayHub::handle(int tag, int src, int bufid, std::int64_t recvNs, std::string& out, Formatter& fmt) {
  if (tag == tag_ + kRelayTagOffset) {
    auto it = relays_.find(src);
    if (it == relays_.end()) {
      spdlog::debug("ignoring a relay message from t{:x}, not one of abmon's relays", src);
    } else {
      onRelay(it->second, src, recvNs, out);
    }
    return true;
  }
  if (tag == tag_ + kHostAddTagOffset) {
    for (int host : unpackInts()) spawnOn(host, out);
    awaitStarts(out);
    return true;
  }
  if (tag == tag_ + kHostDeleteTagOffset) {
    int host = 0;
    if (pvm_upkint(&host, 1, 1) >= 0) hostDeleted(host, recvNs, out, fmt);
    return true;
  }
  (void)bufid;
  return false;
}

void RelayHub::onRelay(Relay& r, int src, std::int64_t recvNs, std::string& out) {
  int head[3] = {};
  if (pvm_upkint(head, 3, 1) < 0) return;
  if (head[0] == static_cast<int>(RelayMsg::ClockPing)) return answerClockPing(src, recvNs);
  if (takeStep(head[0], src)) return;
  RelayBatch b;
  b.what = head[0];
  b.sentNs = (std::int64_t{head[1]} << 32) | static_cast<std::uint32_t>(head[2]);
  b.opened = unpackInts();
  b.closed = unpackInts();
  int tail[2] = {};
  if (pvm_upkint(tail, 2, 1) < 0 || tail[1] < 0) return;
  std::string text(static_cast<std::size_t>(tail[1]), '\0');
  if (tail[1] > 0 && pvm_upkbyte(text.data(), tail[1], 1) < 0) return;
  b.events = tail[0];
  b.text = text;
  onBatch(r, src, recvNs, b, out);
}

// A relay's message, from PVM or its stream: relay.start, or relay.batch /
// relay.stop and the text as it came (a Lost batch is a relay.batch, then
// the host is gone).
void RelayHub::onBatch(Relay& r, int src, std::int64_t recvNs, const RelayBatch& b, std::string& out) {
  auto what = static_cast<RelayMsg>(b.what);
  if (what == RelayMsg::Start) {
    r.started = true;
    relayRecord(out, recvNs, b.sentNs, src, Kind::RELAY_START, r.host);
    out.push_back('\n');
    return;
  }
  if (r.hostGone) spdlog::debug("a batch of relay t{:x} after its host has gone: kept", src);
  for (int t : b.opened) r.tasks.insert(t);
  for (int t : b.closed) r.tasks.erase(t);
  ++batches_;
  relayRecord(out, recvNs, b.sentNs, src, what == RelayMsg::Stop ? Kind::RELAY_STOP : Kind::RELAY_BATCH, r.host);
  intField(out, Key::Events, b.events);
  if (what == RelayMsg::Stop) {
    r.live = false;
    intField(out, Key::Tasks, static_cast<std::int64_t>(r.tasks.size()));
    intField(out, Key::Bad, 0);
  } else {
    intField(out, Key::Bytes, static_cast<std::int64_t>(b.text.size()));
  }
  out.push_back('\n');
  out.append(b.text);
  // Written by checkLost a moment later: a host deleted with `pvm delete`
  // loses its pvmd too, and PVM's notice (how=delete) is on its way.
  if (what == RelayMsg::Lost && r.lostNs == 0) {
    spdlog::info("relay t{:x}: the pvmd of {} has gone", src, r.host);
    r.lostNs = recvNs;
  }
}

// A relay's clock ping, answered at once: t2 when abmon read it, t3 now.
void RelayHub::answerClockPing(int src, std::int64_t recvNs) {
  int k = 0;
  if (pvm_upkint(&k, 1, 1) < 0) return;
  int buf = pvm_mkbuf(PvmDataRaw);
  int old = pvm_setsbuf(buf);
  std::int64_t now = realtimeNs();
  int pong[] = {k, static_cast<int>(recvNs >> 32), static_cast<int>(recvNs & 0xffffffff), static_cast<int>(now >> 32),
                static_cast<int>(now & 0xffffffff)};
  if (pvm_pkint(pong, 5, 1) >= 0) pvm_send(src, tag_ + kClockPongTagOffset);
  pvm_setsbuf(old);
  pvm_freebuf(buf);
}

// The host is gone (deleted, or its pvmd declared dead): say so, and end
// every task its relay had open; what came before stays in the trace.
void RelayHub::hostDeleted(int hostTid, std::int64_t recvNs, std::string& out, Formatter& fmt) {
  for (auto& [tid, r] : relays_)
    if (r.hostTid == hostTid) hostGone(tid, r, recvNs, "delete", out, fmt);
}

// how=delete: PVM's notice; how=lost: the relay's stream said so first.
void RelayHub::hostGone(int tid, Relay& r, std::int64_t nowNs, const char* how, std::string& out, Formatter& fmt) {
  if (r.hostGone) return;
  r.hostGone = true;
  relayRecord(out, nowNs, nowNs, tid, Kind::HOST_DELETE, r.host);
  intField(out, Key::Tasks, static_cast<std::int64_t>(r.tasks.size()));
  text::appendKey(out, keyName(Key::How));
  out.append(how);
  out.push_back('\n');
  for (int t : r.tasks) fmt.taskExit(out, t, nowNs, "host");
  spdlog::warn("host {} has left the virtual machine ({}): {} of its tasks ended", r.host, how, r.tasks.size());
  r.tasks.clear();
  r.live = false;
  forgetSteps(tid, how);
}

bool RelayHub::relayExited(int tid) {
  auto it = relays_.find(tid);
  if (it == relays_.end()) return false;
  // Told to stop, a relay exits once its Stop is sent; pvmd's notice of
  // that may come before abmon has read the Stop from its stream.
  if (it->second.live && !it->second.stopSent) spdlog::warn("relay t{:x} on {} has exited", tid, it->second.host);
  it->second.live = false;
  // A host deleted ends its relay too, and PVM's notice of the task's exit
  // may come before that of the host's deletion: the host has gone when
  // it is no longer in the machine's table (pvm_config: local, no wait).
  forgetSteps(tid, hostName(it->second.hostTid).empty() ? "delete" : "relay-exit");
  it->second.exitNoticed = true;
  return true;
}

void RelayHub::stopAll() {
  for (auto& [tid, r] : relays_) {
    if (!r.live) continue;
    int buf = pvm_mkbuf(PvmDataDefault);
    int old = pvm_setsbuf(buf);
    int what = static_cast<int>(RelayMsg::Stop);
    pvm_pkint(&what, 1, 1);
    if (pvm_send(tid, tag_ + kRelayTagOffset) < 0) r.live = false;
    r.stopSent = true;
    pvm_setsbuf(old);
    pvm_freebuf(buf);
  }
}

bool RelayHub::allStopped() const {
  for (const auto& [tid, r] : relays_)
    if (r.live) return false;
  return true;
}

// ---- Stepping through relays (relay.h "Stepping") ----

namespace {

int sendInts(int to, int tag, const int* v, int n) {
  int buf = pvm_mkbuf(PvmDataRaw);
  int old = pvm_setsbuf(buf);
  int rc = pvm_pkint(const_cast<int*>(v), n, 1);
  if (rc >= 0) rc = pvm_send(to, tag);
  pvm_setsbuf(old);
  pvm_freebuf(buf);
  return rc;
}

}  // namespace

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

// abmon: a relay's StepAsk or StepGone (the head already read): true when
// it was one.  Without a control (cannot happen: relays step only when
// abmon does) the task goes at once.
bool RelayHub::takeStep(int what, int src) {
  if (what == static_cast<int>(RelayMsg::StepAsk)) {
    StepAskFields a{};
    if (pvm_upkint(&a.tid, 5, 1) < 0) return true;
    stepRelay_[a.tid] = src;
    drainStreamOf(src);  // the relay wrote the task's step.wait record there before it asked
    if (stepAsk_)
      stepAsk_(a);
    else
      stepGo(a.tid, a.seq);
    return true;
  }
  if (what == static_cast<int>(RelayMsg::StepGone)) {
    int tid = 0;
    if (pvm_upkint(&tid, 1, 1) < 0 || stepRelay_.erase(tid) == 0 || !stepGone_) return true;
    // A host deleted kills its tasks, and their relay may say so before
    // PVM says the host went: then the host is out of the machine's table.
    auto r = relays_.find(src);
    bool hostWent = r != relays_.end() && (r->second.hostGone || hostName(r->second.hostTid).empty());
    stepGone_(tid, hostWent ? goneWhy(src, "delete") : std::string());
    return true;
  }
  return false;
}

bool RelayHub::stepGo(int tid, int seq) {
  auto it = stepRelay_.find(tid);
  if (it == stepRelay_.end()) return false;
  auto relay = relays_.find(it->second);
  if (relay == relays_.end() || !relay->second.live) return false;
  int m[] = {static_cast<int>(RelayMsg::StepGo), tid, seq};
  return sendInts(it->second, tag_ + kRelayTagOffset, m, 3) >= 0;
}

// A relay (or its host) has gone: the tasks that waited through it have
// too; the control client is told which host and how (delete, lost, relay-exit).
void RelayHub::forgetSteps(int relayTid, const char* how) {
  std::vector<int> gone;
  for (const auto& [tid, relay] : stepRelay_)
    if (relay == relayTid) gone.push_back(tid);
  std::string why = goneWhy(relayTid, how);
  for (int tid : gone) {
    stepRelay_.erase(tid);
    if (stepGone_) stepGone_(tid, why);
  }
}

// What the control client is told of a task held through relayTid that
// went with its host: "host NAME HOW".
std::string RelayHub::goneWhy(int relayTid, const char* how) const {
  auto r = relays_.find(relayTid);
  return "host " + (r == relays_.end() || r->second.host.empty() ? std::string("?") : r->second.host) + " " + how;
}

}  // namespace xab::abmon
