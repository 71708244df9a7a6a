// relay_hub_streams.cpp -- abmon's side of its relays' TCP streams
// (relay_stream.h): accepting them, reading their frames as they come, and
// noticing a relay whose stream ends without its Stop.
#include <spdlog/spdlog.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
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
  std::random_device rd;
  token_ = (std::uint64_t{rd()} << 32) | rd();
  char tail[40];
  std::snprintf(tail, sizeof tail, ",%d,%llx", port, static_cast<unsigned long long>(token_));
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
constexpr int kKeepIdleS = 2, kKeepIntervalS = 1, kKeepProbes = 4;

void keepAlive(int fd) {
  const int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on) < 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &kKeepIdleS, sizeof kKeepIdleS) < 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &kKeepIntervalS, sizeof kKeepIntervalS) < 0 ||
      setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &kKeepProbes, sizeof kKeepProbes) < 0)
    spdlog::warn("relay stream: TCP keepalive: {}", std::strerror(errno));
}

}  // namespace

void RelayHub::acceptStreams() {
  for (;;) {
    int fd = accept4(listenFd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) break;
    keepAlive(fd);
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
    std::int64_t now = realtimeNs();
    RelayBatch b;
    auto it = relays_.find(s.tid);
    while (it != relays_.end() && s.reader.next(b)) onBatch(it->second, s.tid, now, b, *out_);
    if (n <= 0 || s.reader.bad()) {
      if (s.reader.bad()) spdlog::warn("relay t{:x}: a bad frame on its stream: closed", s.tid);
      streamEnded(s);
      return false;
    }
  }
  return true;
}

// What a relay's stream holds now, before a PVM message of that relay is
// taken (a step ask follows the records the relay wrote before it).
void RelayHub::drainStreamOf(int relayTid) {
  for (auto& s : streams_)
    if (s->tid == relayTid && !s->ended) readStream(*s);
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

}  // namespace xab::abmon
