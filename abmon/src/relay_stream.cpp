#include "relay_stream.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace xab::abmon {
namespace {

// What a frame may announce: a relay's batches are 256 KiB (RelayUplink),
// its last one holds what it had; more is a broken stream.
constexpr std::uint32_t kMaxText = 64u << 20;
constexpr std::uint32_t kMaxTids = 1u << 20;

void putWord(std::string& out, std::uint32_t v) {
  v = htonl(v);
  out.append(reinterpret_cast<const char*>(&v), 4);
}

std::uint32_t getWord(const char* p) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, 4);
  return ntohl(v);
}

}  // namespace

void appendFrame(std::string& out, const RelayBatch& b) {
  out.reserve(out.size() + kFrameHeadBytes + 4 * (b.opened.size() + b.closed.size()) + b.text.size());
  putWord(out, static_cast<std::uint32_t>(b.what));
  putWord(out, static_cast<std::uint32_t>(static_cast<std::uint64_t>(b.sentNs) >> 32));
  putWord(out, static_cast<std::uint32_t>(b.sentNs & 0xffffffff));
  putWord(out, static_cast<std::uint32_t>(b.events));
  putWord(out, static_cast<std::uint32_t>(b.opened.size()));
  putWord(out, static_cast<std::uint32_t>(b.closed.size()));
  putWord(out, static_cast<std::uint32_t>(b.text.size()));
  for (int t : b.opened) putWord(out, static_cast<std::uint32_t>(t));
  for (int t : b.closed) putWord(out, static_cast<std::uint32_t>(t));
  out.append(b.text);
}

namespace {

constexpr std::uint32_t kPongText = 8;  // t2

// A clock frame's size is known from its head: anything else in it is a bad
// stream, found before the bytes it announces are waited for.
bool clockFrameSane(const std::uint32_t w[7]) {
  if (w[0] == static_cast<std::uint32_t>(RelayMsg::ClockPing)) return w[4] == 0 && w[5] == 0 && w[6] == 0;
  if (w[0] == static_cast<std::uint32_t>(RelayMsg::ClockPong)) return w[4] == 0 && w[5] == 0 && w[6] == kPongText;
  return true;
}

}  // namespace

void appendClockPing(std::string& out, int k, std::int64_t t1) {
  RelayBatch b;
  b.what = static_cast<int>(RelayMsg::ClockPing);
  b.sentNs = t1;
  b.events = k;
  appendFrame(out, b);
}

void appendClockPong(std::string& out, int k, std::int64_t t2, std::int64_t t3) {
  std::string t2Bytes;
  putWord(t2Bytes, static_cast<std::uint32_t>(static_cast<std::uint64_t>(t2) >> 32));
  putWord(t2Bytes, static_cast<std::uint32_t>(t2 & 0xffffffff));
  RelayBatch b;
  b.what = static_cast<int>(RelayMsg::ClockPong);
  b.sentNs = t3;
  b.events = k;
  b.text = t2Bytes;
  appendFrame(out, b);
}

bool readClockPong(const RelayBatch& b, int& k, std::int64_t& t2, std::int64_t& t3) {
  if (b.what != static_cast<int>(RelayMsg::ClockPong) || b.text.size() != kPongText) return false;
  k = b.events;
  t2 = static_cast<std::int64_t>((std::uint64_t{getWord(b.text.data())} << 32) | getWord(b.text.data() + 4));
  t3 = b.sentNs;
  return true;
}

std::string helloBytes(int tid, std::uint64_t token) {
  std::string out;
  putWord(out, static_cast<std::uint32_t>(tid));
  putWord(out, static_cast<std::uint32_t>(token >> 32));
  putWord(out, static_cast<std::uint32_t>(token & 0xffffffff));
  return out;
}

void parseHello(const char* p, int& tid, std::uint64_t& token) {
  tid = static_cast<int>(getWord(p));
  token = (std::uint64_t{getWord(p + 4)} << 32) | getWord(p + 8);
}

char* FrameReader::room(std::size_t n) {
  if (begin_ > 0 && (begin_ == end_ || begin_ >= buf_.size() / 2)) {  // keep the unread part at the front
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() < end_ + n) buf_.resize(end_ + n);
  return buf_.data() + end_;
}

bool FrameReader::next(RelayBatch& b) {
  std::size_t have = end_ - begin_;
  if (bad_ || have < kFrameHeadBytes) return false;
  const char* p = buf_.data() + begin_;
  std::uint32_t w[7];
  for (int i = 0; i < 7; ++i) w[i] = getWord(p + 4 * i);
  if (w[4] > kMaxTids || w[5] > kMaxTids || w[6] > kMaxText || !clockFrameSane(w)) {
    bad_ = true;
    return false;
  }
  std::size_t tids = std::size_t{w[4]} + w[5];
  std::size_t size = kFrameHeadBytes + 4 * tids + w[6];
  if (have < size) return false;
  b.what = static_cast<int>(w[0]);
  b.sentNs = static_cast<std::int64_t>((std::uint64_t{w[1]} << 32) | w[2]);
  b.events = static_cast<int>(w[3]);
  b.opened.clear();
  b.closed.clear();
  const char* t = p + kFrameHeadBytes;
  for (std::uint32_t i = 0; i < w[4]; ++i, t += 4) b.opened.push_back(static_cast<int>(getWord(t)));
  for (std::uint32_t i = 0; i < w[5]; ++i, t += 4) b.closed.push_back(static_cast<int>(getWord(t)));
  b.text = std::string_view(t, w[6]);
  begin_ += size;
  return true;
}

int listenRelayStream(int& port, std::string& error) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0 || listen(fd, 64) < 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) < 0) {
    error = std::string("bind/listen: ") + std::strerror(errno);
    close(fd);
    return -1;
  }
  port = ntohs(a.sin_port);
  return fd;
}

namespace {

// connect(2), given up after kConnectTimeoutMs: a firewall that drops the
// SYN would hold a blocking connect for the kernel's SYN retries (about two
// minutes), the relay would start too late for abmon (which gives it
// kRelayStartSeconds) and its host's records would be lost.  Given up, the
// relay sends its batches as PVM messages.
constexpr int kConnectTimeoutMs = 3000;

bool connectWithin(int fd, const sockaddr* addr, socklen_t len, std::string& why) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) return why = std::strerror(errno), false;
  int rc = connect(fd, addr, len);
  if (rc < 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    while ((rc = poll(&p, 1, kConnectTimeoutMs)) < 0 && errno == EINTR) {
    }
    if (rc == 0) return why = "no answer in " + std::to_string(kConnectTimeoutMs / 1000) + " s", false;
    int err = 0;
    socklen_t n = sizeof err;
    if (rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &n) < 0) err = errno;
    if (err != 0) return why = std::strerror(err), false;
    rc = 0;
  }
  if (rc < 0) return why = std::strerror(errno), false;
  if (fcntl(fd, F_SETFL, flags) < 0) return why = std::strerror(errno), false;  // writeAll blocks
  return true;
}

}  // namespace

int connectRelayStream(const std::string& host, int port, int tid, std::uint64_t token, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res); rc != 0) {
    error = host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = res; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    std::string why;
    if (fd >= 0 && !connectWithin(fd, a->ai_addr, a->ai_addrlen, why)) {
      error = host + ":" + std::to_string(port) + ": " + why;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(res);
  if (fd < 0) return -1;
  int one = 1;  // a batch's last segment goes at once, not after the peer's ack
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (!writeAll(fd, helloBytes(tid, token))) {
    error = std::string("hello: ") + std::strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

long readSome(int fd, FrameReader& r, int waitMs) {
  pollfd p{fd, POLLIN, 0};
  int rc = 0;
  while ((rc = poll(&p, 1, waitMs)) < 0 && errno == EINTR) {
  }
  if (rc < 0) return -1;
  if (rc == 0) return 0;
  constexpr std::size_t kRead = 4096;  // pongs are 36 bytes: a relay reads nothing big
  ssize_t n = 0;
  while ((n = recv(fd, r.room(kRead), kRead, MSG_DONTWAIT)) < 0 && errno == EINTR) {
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
  if (n <= 0) return -1;
  r.wrote(static_cast<std::size_t>(n));
  return n;
}

}  // namespace xab::abmon
