// relay_hub_streams.cpp -- abmon's side of its relays' TCP streams
// (relay_stream.h): accepting them, reading their frames as they come, and
// noticing a relay whose stream ends without its Stop.
#include <spdlog/spdlog.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pvm3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>

#include "formatter.h"
#include "relay.h"

namespace xab::abmon {
namespace {

// A relay's stream that ends with neither Stop nor Lost: the relay died.
// If pvmd has not said so within this time, its host has gone with it.
constexpr std::int64_t kStreamEndGraceNs = 2'000'000'000;
constexpr int kLostCheckMs = 250;
// After a relay's Lost: time for PVM's notice of a host deleted with `pvm
// delete` (which takes its pvmd too) to come first and say how=delete.
constexpr std::int64_t kLostGraceNs = 1'000'000'000;
// A connection to abmon's port that has not said a relay's hello by then
// is closed (the port listens on every address).
constexpr std::int64_t kHelloWaitNs = 10'000'000'000;
// One read of a stream, and the reads of one turn at most, so other work
// is served in between.
constexpr std::size_t kStreamReadBytes = 256 * 1024;
constexpr int kStreamReadsPerTurn = 4;

using Descriptor = boost::asio::posix::stream_descriptor;

// A random 64-bit token, or the test knob XAB_TEST_RELAY_TOKEN=HEX's
// (docs/abmon.md: a test that forges streams must know the real one, which
// no longer shows anywhere; abmon's environment is its own user's only).
std::uint64_t streamToken() {
#ifdef XAB_TEST_KNOBS
  if (const char* v = std::getenv("XAB_TEST_RELAY_TOKEN")) {
    char* end = nullptr;
    unsigned long long t = std::strtoull(v, &end, 16);
    if (*v != '\0' && *end == '\0' && t != 0) return t;
    spdlog::warn("XAB_TEST_RELAY_TOKEN=\"{}\" is not a non-zero hex number: ignored", v);
  }
#endif
  std::random_device rd;
  return (std::uint64_t{rd()} << 32) | rd();
}

}  // namespace

void RelayHub::attach(boost::asio::io_context& io, std::string& out, Formatter& fmt, std::function<void()> flush,
                      bool streams) {
  io_ = &io;
  out_ = &out;
  fmt_ = &fmt;
  flush_ = std::move(flush);
  if (!streams) return;
  int port = 0;
  std::string error;
  listenFd_ = listenRelayStream(port, error);
  if (listenFd_ < 0) {
    spdlog::warn("relays' streams: {}: batches come as PVM messages", error);
    return;
  }
  token_ = streamToken();
  // The port only: the token goes to each relay in a PVM message (relay.h,
  // StreamToken), never on its command line.
  char tail[16];
  std::snprintf(tail, sizeof tail, ",%d", port);
  for (std::size_t i = 0; i + 1 < relayArgs_.size(); ++i)
    if (relayArgs_[i] == "--relay") relayArgs_[i + 1] += tail;
  acceptWait_ = std::make_unique<Descriptor>(io, listenFd_);
  armAccept();
  lostTimer_ = std::make_unique<boost::asio::steady_timer>(io);
  armLostCheck();
}

RelayHub::~RelayHub() {
  for (auto& s : streams_) {
    boost::system::error_code ignored;
    if (s->wait) s->wait->close(ignored);  // closes the fd
  }
  if (acceptWait_) {
    boost::system::error_code ignored;
    acceptWait_->close(ignored);
  }
}

void RelayHub::armAccept() {
  acceptWait_->async_wait(Descriptor::wait_read, [this](const boost::system::error_code& ec) {
    if (ec) return;
    acceptStreams();
    armAccept();
  });
}

namespace {

// A relay sends on its stream at least every second (its clock records).  A
// host that vanishes from the network with its relay (no FIN, no RST ever
// comes) would leave the stream open until PVM gives up on the host
// (minutes): TCP keepalive probes after kKeepIdleS s of silence, every
// kKeepIntervalS s, kKeepProbes unanswered end the stream (ETIMEDOUT), and
// checkLost takes the host as lost as for a stream that was closed.
// Keepalive probes go only while nothing abmon sent waits for its
// acknowledgement: a clock pong in flight when the host vanished would
// leave the stream retransmitting it for ~15 minutes (tcp_retries2) with
// no probe at all.  TCP_USER_TIMEOUT bounds that too: data unacknowledged
// for kUnackedMs ends the stream as the probes do (tcp(7): with keepalive
// on, it also decides when the probes have failed).
constexpr int kKeepIdleS = 2, kKeepIntervalS = 1, kKeepProbes = 4;
constexpr unsigned kUnackedMs = (kKeepIdleS + kKeepIntervalS * kKeepProbes) * 1000;

void keepAlive(int fd) {
  const int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on) < 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &kKeepIdleS, sizeof kKeepIdleS) < 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &kKeepIntervalS, sizeof kKeepIntervalS) < 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &kKeepProbes, sizeof kKeepProbes) < 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &kUnackedMs, sizeof kUnackedMs) < 0)
    spdlog::warn("relay stream: TCP keepalive: {}", std::strerror(errno));
}

}  // namespace

void RelayHub::acceptStreams() {
  for (;;) {
    int fd = accept4(listenFd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    keepAlive(fd);
    const int one = 1;  // a clock pong goes at once, not after the relay's ack of the last one
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto s = std::make_unique<Stream>();
    s->fd = fd;
    s->acceptedNs = realtimeNs();
    s->wait = std::make_unique<Descriptor>(*io_, fd);
    armStream(*s);
    streams_.push_back(std::move(s));
  }
}

void RelayHub::armStream(Stream& s) {
  s.wait->async_wait(Descriptor::wait_read, [this, &s](const boost::system::error_code& ec) {
    if (ec) return;
    bool more = readStream(s);
    if (flush_) flush_();
    if (more) armStream(s);
  });
}

// Whatever has come (a bounded amount): false once the stream has ended.
bool RelayHub::readStream(Stream& s) {
  if (s.ended) return false;
  if (s.tid == 0 && !readHello(s)) return !s.ended;
  for (int i = 0; i < kStreamReadsPerTurn; ++i) {
    ssize_t n = read(s.fd, s.reader.room(kStreamReadBytes), kStreamReadBytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n > 0) s.reader.wrote(static_cast<std::size_t>(n));
    std::int64_t now = realtimeNs();  // t2 of a clock ping in these bytes
    RelayBatch b;
    auto it = relays_.find(s.tid);
    while (!s.ended && it != relays_.end() && s.reader.next(b)) {
      if (b.what == static_cast<int>(RelayMsg::ClockPing))
        answerClockPing(s, b.events, now);
      else
        onBatch(it->second, s.tid, now, b, *out_);
    }
    if (s.ended) return false;  // a pong it did not take
    if (n <= 0 || s.reader.bad()) {
      if (s.reader.bad()) spdlog::warn("relay t{:x}: a bad frame on its stream: closed", s.tid);
      streamEnded(s);
      return false;
    }
  }
  return true;
}

// A clock ping on a relay's stream, answered on it at once (before the
// records read with it are written out): t2 when abmon read it, t3 just
// before the write, as local tasks' pings are (local_intake.cpp).  An
// honest relay waits for each pong before its next ping, so a pong that
// does not fit in the socket's buffer at once is one its relay is not
// reading: dropped, never queued.  A part written would cut the stream.
void RelayHub::answerClockPing(Stream& s, int id, std::int64_t readNs) {
  std::string pong;
  appendClockPong(pong, id, readNs, realtimeNs());
  ssize_t n = 0;
  while ((n = send(s.fd, pong.data(), pong.size(), MSG_DONTWAIT | MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  if (n == static_cast<ssize_t>(pong.size())) return;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    if (++s.pongsDropped == 1) spdlog::warn("relay t{:x} does not read its clock pongs: dropped", s.tid);
    return;
  }
  if (n > 0) spdlog::warn("relay t{:x}: a clock pong cut short on its stream: closed", s.tid);
  streamEnded(s);
}

// What a relay's stream holds now, before a PVM message of that relay is
// taken (a step ask follows the records the relay wrote before it).
void RelayHub::drainStreamOf(int relayTid) {
  for (auto& s : streams_)
    if (s->tid == relayTid && !s->ended) readStream(*s);
}

bool RelayHub::streamOpen(int relayTid) const {
  for (const auto& s : streams_)
    if (s->tid == relayTid && !s->ended) return true;
  return false;
}

// The first 12 bytes: a relay of ours, with our token; else the stream is closed.
bool RelayHub::readHello(Stream& s) {
  char buf[kHelloBytes];
  ssize_t n = read(s.fd, buf, kHelloBytes - s.hello.size());
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
  if (n <= 0) {
    streamEnded(s);
    return false;
  }
  s.hello.append(buf, static_cast<std::size_t>(n));
  if (s.hello.size() < kHelloBytes) return false;
  int tid = 0;
  std::uint64_t token = 0;
  parseHello(s.hello.data(), tid, token);
  auto it = relays_.find(tid);
  if (token != token_ || it == relays_.end()) {
    spdlog::warn("refused a relay stream that says it is t{:x}: not one of abmon's relays", tid);
    streamEnded(s);
    return false;
  }
  // A relay connects once: a second stream in its name is not it, and its
  // end must not be taken for the relay's death (checkLost).
  if (it->second.hadStream) {
    spdlog::warn("refused a second stream that says it is relay t{:x}", tid);
    streamEnded(s);
    return false;
  }
  it->second.hadStream = true;
  s.tid = tid;
  spdlog::debug("relay t{:x} on {}: its batches come on a TCP stream", tid, it->second.host);
  return true;
}

// The end of a stream: after its relay's Stop or Lost, as it should be;
// before, the relay has died (checkLost decides whether its host went too).
void RelayHub::streamEnded(Stream& s) {
  s.ended = true;
  boost::system::error_code ignored;
  s.wait->cancel(ignored);
  auto it = relays_.find(s.tid);
  if (it == relays_.end()) return;
  Relay& r = it->second;
  if (r.live && !r.hostGone) {
    r.streamEndNs = realtimeNs();
    spdlog::info("relay t{:x} on {}: its stream ended before its stop", s.tid, r.host);
  }
}

void RelayHub::armLostCheck() {
  lostTimer_->expires_after(std::chrono::milliseconds(kLostCheckMs));
  lostTimer_->async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    checkLost();
    armLostCheck();
  });
}

// A relay whose stream ended, and of which pvmd has not said that it
// exited: its host (pvmd and all) is gone.
void RelayHub::checkLost() {
  std::int64_t now = realtimeNs();
  bool wrote = false;
  for (auto& [tid, r] : relays_) {
    if (r.hostGone) continue;
    bool said = r.lostNs != 0 && now - r.lostNs >= kLostGraceNs;
    bool died = r.streamEndNs != 0 && !r.exitNoticed && now - r.streamEndNs >= kStreamEndGraceNs;
    if (!said && !died) continue;
    hostGone(tid, r, now, "lost", *out_, *fmt_);
    wrote = true;
  }
  std::erase_if(streams_, [now](const std::unique_ptr<Stream>& s) {
    if (s->tid == 0 && !s->ended && now - s->acceptedNs >= kHelloWaitNs) {
      spdlog::warn("closed a connection to the relays' port that sent no relay's hello in {} s", kHelloWaitNs / 1'000'000'000);
      s->ended = true;
    }
    if (!s->ended) return false;
    boost::system::error_code ignored;
    s->wait->close(ignored);
    return true;
  });
  if (wrote && flush_) flush_();
}

bool RelayHub::pollStreams() {
  if (listenFd_ < 0) return false;
  std::size_t before = out_->size();
  acceptStreams();
  for (auto& s : streams_) readStream(*s);
  return out_->size() != before;
}

int RelayHub::receive(int tag, int waitMs, bool& streamed) {
  streamed = false;
  if (listenFd_ < 0) {
    timeval wait{waitMs / 1000, (waitMs % 1000) * 1000};
    return pvm_trecv(-1, tag, &wait);
  }
  const std::int64_t until = realtimeNs() + std::int64_t{waitMs} * 1'000'000;
  for (;;) {
    if (int bufid = pvm_nrecv(-1, tag); bufid != 0) return bufid;
    if (pollStreams()) streamed = true;
    std::int64_t left = until - realtimeNs();
    if (left <= 0) return 0;
    // PVM's sockets (what pvm_nrecv left in them is the rest of a message
    // still coming), the relays' streams and abmon's port.
    std::vector<pollfd> fds;
    int* pvmFds = nullptr;
    for (int i = 0, n = pvm_getfds(&pvmFds); i < n; ++i) fds.push_back({pvmFds[i], POLLIN, 0});
    fds.push_back({listenFd_, POLLIN, 0});
    for (const auto& st : streams_)
      if (!st->ended) fds.push_back({st->fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), static_cast<int>((left + 999'999) / 1'000'000)) < 0 && errno != EINTR) return 0;
  }
}

}  // namespace xab::abmon
