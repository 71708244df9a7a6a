// relay_hub.cpp -- abmon's side of its relays (relay.h, RelayHub): starting
// them on every host, their batches and clock pings, hosts that leave, and
// stepping through them.  Their TCP streams: relay_hub_streams.cpp.
#include "relay.h"

#include <pvm3.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <xab/traceformat/schema.h>
#include <xab/traceformat/write.h>

#include <cstring>

#include "formatter.h"
#include "relay_pack.h"

namespace xab::abmon {
namespace {

// How long abmon waits for a new relay to say it is ready.
constexpr int kRelayStartSeconds = 10;

// "RECV SENT TID KIND": a relay record, with abmon's receive time and the
// relay's clock when it sent.
void relayRecord(std::string& out, std::int64_t recvNs, std::int64_t sentNs, int tid, Kind kind,
                 const std::string& host) {
  text::appendRecordStart(out, recvNs, sentNs, tid, kind);
  text::appendKey(out, keyName(Key::Host));
  text::appendEscaped(out, host);
}

}  // namespace

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
    r.stopRead = true;
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
  for (const auto& [tid, r] : relays_) {
    if (r.stopRead || r.hostGone) continue;
    if (r.live || streamOpen(tid)) return false;
  }
  return true;
}

bool RelayHub::streamsStillOpen() const {
  for (const auto& [tid, r] : relays_)
    if (!r.stopRead && !r.hostGone && streamOpen(tid)) return true;
  return false;
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
