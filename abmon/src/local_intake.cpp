#include "local_intake.h"

#include <spdlog/spdlog.h>
#include <xab/wire.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>

namespace xab::abmon {
namespace {

constexpr std::size_t kBurst = 256;  // datagrams read per wakeup

std::int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// Only tasks of abmon's own user may write into its trace.
bool same_user(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == geteuid();
}

}  // namespace

LocalIntake::LocalIntake(boost::asio::io_context& io, Sink sink, Done done)
    : io_(io), sink_(std::move(sink)), done_(std::move(done)) {}

LocalIntake::~LocalIntake() { close(); }

int LocalIntake::listen_at(std::string& name, std::string& error) {
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
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) < 0 || listen(fd, SOMAXCONN) < 0) {
    error = "binding the local socket @" + name + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

void LocalIntake::start(int listen_fd) {
  if (listen_fd < 0) return;
  listener_ = std::make_unique<boost::asio::posix::stream_descriptor>(io_, listen_fd);
  buf_.resize(XAB_SOCKET_MSG_MAX);
  wait_accept();
}

void LocalIntake::wait_accept() {
  listener_->async_wait(boost::asio::posix::descriptor_base::wait_read, [this](const auto& ec) {
    if (ec || !listener_) return;
    accept_all();
    wait_accept();
  });
}

bool LocalIntake::accept_all() {
  bool any = false;
  for (;;) {
    int fd = accept4(listener_->native_handle(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        spdlog::warn("accepting on the local socket: {}", std::strerror(errno));
      return any;
    }
    if (!same_user(fd)) {
      spdlog::warn("refused a local connection from another user");
      ::close(fd);
      continue;
    }
    any = true;
    auto c = std::make_shared<Conn>(io_, fd);
    conns_.push_back(c);
    wait_read(c);
  }
}

void LocalIntake::wait_read(const std::shared_ptr<Conn>& c) {
  c->sd.async_wait(boost::asio::posix::descriptor_base::wait_read, [this, c](const auto& ec) {
    if (ec) return;  // cancelled: dropped or closing
    bool got = false;
    // A bounded burst: one busy task must not keep the loop from the
    // others, PVM's sockets and the signals (the socket stays readable,
    // so the wait fires again at once).
    bool open = read_all(*c, got, kBurst);
    if (got) done_();
    if (open)
      wait_read(c);
    else
      drop(c);
  });
}

bool LocalIntake::read_all(Conn& c, bool& got, std::size_t limit) {
  for (std::size_t count = 0; count < limit; ++count) {
    ssize_t n = recv(c.sd.native_handle(), buf_.data(), buf_.size(), MSG_DONTWAIT | MSG_TRUNC);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      spdlog::debug("reading the local socket of t{:x}: {}", c.tid, std::strerror(errno));
      return false;
    }
    if (n == 0) return false;  // the task has closed it (exited)
    auto size = std::min(static_cast<std::size_t>(n), buf_.size());  // longer: seen as truncated
    std::span<const std::byte> body(buf_.data(), size);
    if (c.tid == 0) {
      std::int32_t hello[XAB_HELLO_INTS] = {};
      if (size == sizeof hello) std::memcpy(hello, body.data(), sizeof hello);
      if (hello[0] != XAB_WIRE_MAGIC || hello[1] != XAB_WIRE_VERSION || hello[2] <= 0) {
        if (!warned_bad_) spdlog::warn("closing a local connection that did not start with xab's hello");
        warned_bad_ = true;
        return false;
      }
      c.tid = hello[2];
      spdlog::debug("t{:x} writes its events to the local socket", c.tid);
      continue;
    }
    ++messages_;
    got = true;
    sink_(c.tid, body, realtime_ns());
  }
  return true;
}

void LocalIntake::drop(const std::shared_ptr<Conn>& c) {
  boost::system::error_code ignored;
  c->sd.cancel(ignored);
  c->sd.close(ignored);
  std::erase(conns_, c);
}

void LocalIntake::drain(std::int32_t tid) { read_dry(tid); }

bool LocalIntake::drain_all() { return read_dry(0); }

// Accepts every new connection (a task may have connected and written
// while abmon was busy or stopped), then reads dry the connections of
// `tid` (0: all) and those whose hello is still unread.
bool LocalIntake::read_dry(std::int32_t tid) {
  if (!listener_) return false;
  bool got = false;
  accept_all();
  // A copy: reading may drop connections.
  auto conns = conns_;
  for (const auto& c : conns) {
    if (tid != 0 && c->tid != tid && c->tid != 0) continue;
    if (!read_all(*c, got)) drop(c);
  }
  return got;
}

void LocalIntake::close() {
  boost::system::error_code ignored;
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
