#include "program_output.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace xab::abmon {
namespace {

std::int64_t nowNs() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Every byte, or false (the reader has gone: EPIPE, or any other error).
// A descriptor someone made non-blocking is waited on, not given up.
bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      poll(&p, 1, -1);
    } else if (n < 0 && errno != EINTR) {
      return false;
    }
  }
  return true;
}

void closeOnExec(int fd) { fcntl(fd, F_SETFD, FD_CLOEXEC); }

}  // namespace

ProgramOutput::ProgramOutput(boost::asio::io_context& io, int passOut, int passErr, Line line)
    : io_(io), line_(std::move(line)) {
  streams_[0].name = "stdout";
  streams_[0].pass = passOut;
  streams_[1].name = "stderr";
  streams_[1].pass = passErr;
}

ProgramOutput::~ProgramOutput() {
  for (Stream& s : streams_)
    if (s.child >= 0) ::close(s.child);
}

bool ProgramOutput::open(std::string& error) {
  for (Stream& s : streams_)
    if (!openOne(s, error)) return false;
  return true;
}

// A terminal for a terminal: the program's isatty() and stdio buffering are
// as without abmon.  Its output processing is off (no "\n" -> "\r\n"): the
// bytes go on to the real terminal, which does its own.
bool ProgramOutput::openOne(Stream& s, std::string& error) {
  int fds[2] = {-1, -1};
  termios mode{};
  if (isatty(s.pass) && tcgetattr(s.pass, &mode) == 0) {
    mode.c_oflag &= ~static_cast<tcflag_t>(OPOST);
    winsize size{};
    bool sized = ioctl(s.pass, TIOCGWINSZ, &size) == 0;
    if (openpty(&fds[0], &fds[1], nullptr, &mode, sized ? &size : nullptr) != 0) {
      error = std::string("openpty: ") + std::strerror(errno);
      return false;
    }
  } else if (pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  closeOnExec(fds[0]);
  closeOnExec(fds[1]);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  s.read = std::make_unique<boost::asio::posix::stream_descriptor>(io_, fds[0]);
  s.child = fds[1];
  return true;
}

void ProgramOutput::start() {
  for (Stream& s : streams_) {
    if (s.child >= 0) ::close(s.child);
    s.child = -1;
    if (s.read) readSome(s);
  }
}

void ProgramOutput::readSome(Stream& s) {
  s.read->async_read_some(boost::asio::buffer(s.buffer), [this, &s](const boost::system::error_code& ec, std::size_t n) {
    if (ec == boost::asio::error::operation_aborted || !s.read) return;
    if (n > 0) took(s, std::string_view(s.buffer.data(), n));
    // A terminal whose other end has closed says EIO, a pipe EOF.
    if (ec) return ended(s);
    if (s.read) readSome(s);
  });
}

// Passed on first, as the program wrote it, then recorded.  If the reader
// of abmon's stream has gone, the program's end is closed: its next write
// fails (SIGPIPE) as it would have without abmon.
void ProgramOutput::took(Stream& s, std::string_view bytes) {
  if (s.passing && !writeAll(s.pass, bytes)) {
    spdlog::info("the program's {} cannot be passed on ({}): closed", s.name, std::strerror(errno));
    s.passing = false;
  }
  std::int64_t ns = nowNs();
  s.lines.append(bytes, [&](std::string_view line) { line_(s.name, line, ns); });
  if (!s.passing) ended(s);
}

void ProgramOutput::ended(Stream& s) {
  std::int64_t ns = nowNs();
  s.lines.finish([&](std::string_view line) { line_(s.name, line, ns); });
  if (s.read) {
    boost::system::error_code ignored;
    s.read->close(ignored);
    s.read.reset();
  }
}

void ProgramOutput::drainNow() {
  for (Stream& s : streams_) {
    while (s.read) {
      ssize_t n = ::read(s.read->native_handle(), s.buffer.data(), s.buffer.size());
      if (n > 0) took(s, std::string_view(s.buffer.data(), static_cast<std::size_t>(n)));
      else if (n < 0 && errno == EINTR) continue;
      else if (n < 0 && errno == EAGAIN) break;  // something still holds it open
      else ended(s);
    }
    if (s.read) ended(s);
  }
}

}  // namespace xab::abmon
