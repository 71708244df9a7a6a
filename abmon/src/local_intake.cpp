#include "local_intake.h"

#include <spdlog/spdlog.h>
#include <xab/wire.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace xab::abmon {
namespace {

constexpr std::size_t kBurst = 256;  // datagrams read per wakeup
constexpr auto kAcceptPause = std::chrono::seconds(1);  // after an accept error
constexpr auto kSweepEvery = std::chrono::seconds(1);   // hello timeouts

constexpr std::string_view kRefusalNames[] = {
    "from another user", "without xab's hello", "whose hello names a task it is not",
    "that sent no hello in time", "beyond the connection limit",
    "datagrams sent by another process than the one that connected"};
static_assert(std::size(kRefusalNames) == static_cast<std::size_t>(LocalIntake::Refusal::Count_));

std::int64_t clockNs(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return std::int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// The connecting process, if it is of abmon's own user (only they may
// write into its trace); 0 otherwise.
pid_t peerOfOwnUser(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != geteuid()) return 0;
  return cred.pid;
}

std::size_t connectionLimit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 4096;
  auto half = static_cast<std::int64_t>(rl.rlim_cur / 2) - 16;
  return static_cast<std::size_t>(std::clamp<std::int64_t>(half, 4, 4096));
}

}  // namespace

LocalIntake::LocalIntake(boost::asio::io_context& io, Sink sink, Done done, Verify verify)
    : io_(io),
      sink_(std::move(sink)),
      done_(std::move(done)),
      verify_(std::move(verify)),
      acceptPause_(io),
      sweepTimer_(io) {}

LocalIntake::~LocalIntake() { close(); }

int LocalIntake::listenAt(std::string& name, std::string& error) {
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = std::string("socket(AF_UNIX, SOCK_SEQPACKET): ") + std::strerror(errno);
    return -1;
  }
  // Abstract addresses vanish with the socket: nothing to clean up after a crash.
  static std::atomic<unsigned> serial{0};
  name = "xab-abmon." + std::to_string(getpid()) + "." + std::to_string(serial++);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  // Every datagram says which process sent it (SCM_CREDENTIALS), from the
  // first: a connection taken from this socket has the flag from the
  // moment accept() returns (the kernel copies it), and one not taken yet
  // gets credentials on every datagram anyway.  Set on each connection
  // after accept() instead, the datagrams written in between came without
  // them, and a forked child's were taken for its parent's.
  int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) < 0 || listen(fd, SOMAXCONN) < 0) {
    error = "binding the local socket @" + name + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

void LocalIntake::start(int listenFd) {
  if (listenFd < 0) return;
  listener_ = std::make_unique<boost::asio::posix::stream_descriptor>(io_, listenFd);
  buf_.resize(XAB_SOCKET_MSG_MAX);
  maxConns_ = connectionLimit();
  spareFd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
#ifdef XAB_TEST_KNOBS
  const char* pause = std::getenv("XAB_TEST_ACCEPT_PAUSE_MS");
  if (int ms = pause ? std::atoi(pause) : 0; ms > 0 && ms <= 10000) acceptPauseMs_ = ms;
  const char* slow = std::getenv("XAB_TEST_SLOW_PONGS");
  if (int n = slow ? std::atoi(slow) : 0; n > 0 && n <= 1000) slowPongs_ = n;
  const char* late = std::getenv("XAB_TEST_SLOW_PONG_MS");
  if (int ms = late ? std::atoi(late) : 0; ms > 0 && ms <= 10000) slowPongMs_ = ms;
#endif
  waitAccept();
}

void LocalIntake::refuse(Refusal r, const std::string& detail) {
  auto& n = refused_[static_cast<std::size_t>(r)];
  spdlog::log(n == 0 ? spdlog::level::warn : spdlog::level::debug,
              "refused a local connection {}{}{}", kRefusalNames[static_cast<std::size_t>(r)],
              detail.empty() ? "" : ": " + detail, n == 0 ? " (further ones are counted)" : "");
  ++n;
}

void LocalIntake::reportRefusals() const {
  std::string line;
  for (std::size_t r = 0; r < refused_.size(); ++r)
    if (refused_[r] > 0)
      line += (line.empty() ? "" : ", ") + std::to_string(refused_[r]) + " " + std::string(kRefusalNames[r]);
  if (!line.empty()) spdlog::warn("local socket: refused {}", line);
}

void LocalIntake::waitAccept() {
  if (!listener_ || acceptPause_.expiry() > boost::asio::steady_timer::clock_type::now()) return;
  listener_->async_wait(boost::asio::posix::descriptor_base::wait_read, [this](const auto& ec) {
    if (ec || !listener_) return;
    acceptAll();
    waitAccept();
  });
}

bool LocalIntake::acceptAll() {
  if (!listener_ || acceptPause_.expiry() > boost::asio::steady_timer::clock_type::now())
    return false;
  bool any = false;
  for (;;) {
    int fd = accept4(listener_->native_handle(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK || !acceptFailed(errno)) return any;
      continue;
    }
    pid_t pid = peerOfOwnUser(fd);
    if (pid <= 0 || conns_.size() >= maxConns_) {
      refuse(pid <= 0 ? Refusal::OtherUser : Refusal::TooMany, "");
      ::close(fd);
      continue;
    }
    // SO_PASSCRED: already on, copied from the listener (listenAt).
    if (acceptPauseMs_ > 0) usleep(static_cast<useconds_t>(acceptPauseMs_) * 1000);
    any = true;
    auto c = std::make_shared<Conn>(io_, fd, pid, clockNs(CLOCK_MONOTONIC));
    conns_.push_back(c);
    waitRead(c);
    armSweep();
  }
}

// accept() failed: the pending connection stays, the listener stays
// readable, and waiting on it again would spin.  At the descriptor limit
// the spare descriptor makes room to take the connection and close it (the
// task falls back to PVM messages); any other error pauses accepting for
// kAcceptPause.  True: try again now.
bool LocalIntake::acceptFailed(int err) {
  if (acceptErrors_++ == 0)
    spdlog::warn("accepting on the local socket: {} (further errors are counted)", std::strerror(err));
  if ((err == EMFILE || err == ENFILE) && spareFd_ >= 0) {
    ::close(spareFd_);
    int fd = accept4(listener_->native_handle(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      ::close(fd);
      refuse(Refusal::TooMany, "at the descriptor limit");
    }
    spareFd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) return true;
  }
  acceptPause_.expires_after(kAcceptPause);
  acceptPause_.async_wait([this](const auto& ec) {
    if (!ec) waitAccept();
  });
  return false;
}

void LocalIntake::armSweep() {
  if (sweepArmed_) return;
  sweepArmed_ = true;
  sweepTimer_.expires_after(kSweepEvery);
  sweepTimer_.async_wait([this](const auto& ec) {
    sweepArmed_ = false;
    if (!ec) sweep();
  });
}

// Connections that have not said hello within kHelloTimeoutNs go (a real
// task sends its hello right after it connects); those whose hello could
// not be judged yet are judged again, and refused once that time is up.
void LocalIntake::sweep() {
  std::int64_t now = clockNs(CLOCK_MONOTONIC);
  bool waiting = false;
  auto conns = conns_;
  for (const auto& c : conns) {
    if (c->tid != 0) continue;
    if (c->deferred()) {
      if (!judge(*c)) {
        drop(c);
      } else if (c->tid != 0) {
        bool got = false;
        if (readAll(*c, got, kBurst)) waitRead(c); else drop(c);
        if (got) done_();
      } else {
        waiting = true;
      }
    } else if (now - c->acceptedNs < kHelloTimeoutNs) {
      waiting = true;
    } else {
      refuse(Refusal::NoHello, "");
      drop(c);
    }
  }
  if (waiting) armSweep();
}

void LocalIntake::waitRead(const std::shared_ptr<Conn>& c) {
  c->sd.async_wait(boost::asio::posix::descriptor_base::wait_read, [this, c](const auto& ec) {
    if (ec) return;  // cancelled: dropped or closing
    bool got = false;
    // A bounded burst: one busy task must not keep the loop from the
    // others, PVM's sockets and the signals (the socket stays readable,
    // so the wait fires again at once).
    bool open = readAll(*c, got, kBurst);
    if (got) done_();
    if (!open)
      drop(c);
    else if (!c->deferred())  // a deferred one is waited on again once judged
      waitRead(c);
  });
}

// The hello names the task; it is believed only if the connecting process
// is that task (verify_).  False: the connection goes.
bool LocalIntake::takeHello(Conn& c, std::span<const std::byte> body) {
  std::int32_t hello[XAB_HELLO_INTS] = {};
  if (body.size() == sizeof hello) std::memcpy(hello, body.data(), sizeof hello);
  if (hello[0] != XAB_WIRE_MAGIC || hello[1] != XAB_WIRE_VERSION || hello[2] <= 0) {
    refuse(Refusal::BadHello, "");
    return false;
  }
  c.claimed = hello[2];
  return judge(c);
}

// The verdict on a connection's hello: false when it is refused; c.tid is
// set when it is believed, c stays deferred while the verdict is Wait.
bool LocalIntake::judge(Conn& c) {
  Verdict v = verify_ ? verify_(c.claimed, c.pid) : Verdict{Verdict::Accept, {}};
  bool late = clockNs(CLOCK_MONOTONIC) - c.acceptedNs >= kHelloTimeoutNs;
  if (v.what == Verdict::Refuse || (v.what == Verdict::Wait && late)) {
    refuse(Refusal::Forged, fmt::format("pid {} says it is t{:x}, but {}", c.pid, c.claimed, v.why));
    return false;
  }
  if (v.what == Verdict::Wait) {
    spdlog::debug("pid {} says it is t{:x}; cannot tell yet: {}", c.pid, c.claimed, v.why);
    armSweep();
    return true;
  }
  c.tid = c.claimed;
  spdlog::debug("t{:x} (pid {}) writes its events to the local socket", c.tid, c.pid);
  return true;
}

bool LocalIntake::readAll(Conn& c, bool& got, std::size_t limit) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  if (c.deferred()) return true;  // judged by sweep(), readDry(its tid), judgeWaiting()
  bool reset = false;
  for (std::size_t count = 0; count < limit; ++count) {
    iovec iov{buf_.data(), buf_.size()};
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = control;
    mh.msg_controllen = sizeof control;
    ssize_t n = recvmsg(c.sd.native_handle(), &mh, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
    std::int64_t readNs = clockNs(CLOCK_REALTIME);  // t2 of a clock ping
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      // The task closed its end with bytes unread there (a late clock
      // pong): the kernel says so once, before the messages still queued
      // on our end, which are the task's last ones.
      if (errno == ECONNRESET && !reset) {
        reset = true;
        continue;
      }
      spdlog::debug("reading the local socket of t{:x}: {}", c.tid, std::strerror(errno));
      return false;
    }
    // Every datagram carries its sender's credentials; the end of the
    // connection carries none (so an empty datagram is not mistaken for it).
    const cmsghdr* cm = CMSG_FIRSTHDR(&mh);
    if (n == 0 && !cm) return false;  // the task has closed it (exited)
    ++datagrams_;
    pid_t sender = 0;
    if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
      ucred cred{};
      std::memcpy(&cred, CMSG_DATA(cm), sizeof cred);
      sender = cred.pid;  // 0: sent before abmon asked for credentials
    }
    auto size = std::min(static_cast<std::size_t>(n), buf_.size());  // longer: seen as truncated
    std::span<const std::byte> body(buf_.data(), size);
    if (c.tid == 0) {
      if (!takeHello(c, body)) return false;
      if (c.deferred()) return true;  // not a datagram more until it is judged
      continue;
    }
    // A child that inherited the connection is not the task.
    if (sender != 0 && sender != c.pid) {
      refuse(Refusal::OtherProcess, fmt::format("pid {} on t{:x}'s connection", sender, c.tid));
      continue;
    }
    if (answerClockPing(c, body, readNs) || takeStepAsk(c, body)) continue;
    ++messages_;
    got = true;
    sink_(c.tid, body, readNs);
  }
  return true;
}

// A task's clock ping (wire.h, "Clock exchanges"): answered at once with
// the date it was read (t2) and the date of the answer (t3).  The task
// records the exchange; abmon writes nothing of it.  True: it was a ping.
bool LocalIntake::answerClockPing(Conn& c, std::span<const std::byte> body, std::int64_t readNs) {
  xab_clock_ping ping{};
  if (body.size() != sizeof ping) return false;
  std::memcpy(&ping, body.data(), sizeof ping);
  if (ping.magic != XAB_CLOCK_MAGIC) return false;
  xab_clock_pong pong{XAB_CLOCK_MAGIC, ping.k, readNs, 0};
  if (c.pings++ < slowPongs_) usleep(static_cast<useconds_t>(slowPongMs_) * 1000);  // test knob: busy elsewhere
  pong.t3 = clockNs(CLOCK_REALTIME);
  // A task that does not read its answers only loses its own samples.
  (void)send(c.sd.native_handle(), &pong, sizeof pong, MSG_DONTWAIT | MSG_NOSIGNAL);
  return true;
}

// A task's step ask (wire.h, "Stepping"): to the control.  True: it was one.
bool LocalIntake::takeStepAsk(const Conn& c, std::span<const std::byte> body) {
  xab_step_ask ask{};
  if (body.size() != sizeof ask) return false;
  std::memcpy(&ask, body.data(), sizeof ask);
  if (ask.magic != XAB_STEP_MAGIC) return false;
  if (stepAsk_)
    stepAsk_(c.tid, ask);
  else
    sendStepGo(c.tid, ask.seq);  // not in control mode: go at once
  return true;
}

bool LocalIntake::sendStepGo(std::int32_t tid, std::int32_t seq) {
  xab_step_go go{XAB_STEP_MAGIC, seq};
  for (const auto& c : conns_)
    if (c->tid == tid)
      return send(c->sd.native_handle(), &go, sizeof go, MSG_DONTWAIT | MSG_NOSIGNAL) == sizeof go;
  return false;
}

void LocalIntake::drop(const std::shared_ptr<Conn>& c) {
  if (c->tid != 0 && stepGone_) stepGone_(c->tid);
  boost::system::error_code ignored;
  c->sd.cancel(ignored);
  c->sd.close(ignored);
  std::erase(conns_, c);
}

void LocalIntake::drain(std::int32_t tid) { readDry(tid); }

bool LocalIntake::drainAll() { return readDry(0); }

// Accepts every new connection (a task may have connected and written
// while abmon was busy or stopped), then reads dry the connections of
// `tid` (0: all) and those whose hello is still unread.
bool LocalIntake::readDry(std::int32_t tid) {
  if (!listener_) return false;
  bool got = false;
  acceptAll();
  // A copy: reading may drop connections.
  auto conns = conns_;
  for (const auto& c : conns) {
    if (tid != 0 && c->tid != tid && c->tid != 0) continue;
    // A hello still waiting for its verdict is judged here only when that
    // task's own PVM message or exit is next (each verdict asks pvmd).
    if (c->deferred() && (tid == 0 || c->claimed != tid)) continue;
    if (c->deferred() && !judge(*c)) {
      drop(c);
      continue;
    }
    if (!readAll(*c, got)) drop(c);
  }
  return got;
}

bool LocalIntake::judgeWaiting() {
  bool got = false;
  auto conns = conns_;
  for (const auto& c : conns) {
    if (!c->deferred()) continue;
    if (!judge(*c) || !readAll(*c, got)) drop(c);
  }
  return got;
}

void LocalIntake::close() {
  boost::system::error_code ignored;
  acceptPause_.cancel();
  sweepTimer_.cancel();
  if (spareFd_ >= 0) ::close(spareFd_);
  spareFd_ = -1;
  for (const auto& c : conns_) {
    c->sd.cancel(ignored);
    c->sd.close(ignored);
  }
  conns_.clear();
  if (listener_) {
    listener_->cancel(ignored);
    listener_->close(ignored);
    listener_.reset();
  }
}

}  // namespace xab::abmon
