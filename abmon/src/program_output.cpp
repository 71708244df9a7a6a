#include "program_output.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <spdlog/spdlog.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
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
  for (Stream& s : streams_) {
    if (s.child >= 0) ::close(s.child);
    if (s.file >= 0) ::close(s.file);
  }
}

bool ProgramOutput::open(std::string& error) {
  struct stat out {}, err {};
  bool outFile = fstat(streams_[0].pass, &out) == 0 && S_ISREG(out.st_mode);
  bool same = outFile && fstat(streams_[1].pass, &err) == 0 && out.st_dev == err.st_dev && out.st_ino == err.st_ino;
  for (Stream& s : streams_)
    if (!openOne(s, error)) return false;
  if (same && streams_[0].file >= 0 && streams_[1].file >= 0) {  // `> out 2>&1`: one file, read once
    streams_[0].name = "-";
    ::close(streams_[1].file);
    streams_[1].file = -1;
    streams_[1].watch.reset();
  }
  return true;
}

// A terminal for a terminal: the program's isatty() and stdio buffering are
// as without abmon.  Its output processing is off (no "\n" -> "\r\n"): the
// bytes go on to the real terminal, which does its own.  A pipe for a pipe
// (or for a stream abmon does not have); else the descriptor itself.
bool ProgramOutput::openOne(Stream& s, std::string& error) {
  int fds[2] = {-1, -1};
  termios mode{};
  struct stat st {};
  bool have = fstat(s.pass, &st) == 0;
  if (have && !S_ISFIFO(st.st_mode) && !isatty(s.pass)) return handOver(s, S_ISREG(st.st_mode), error);
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

// The program gets abmon's own file (a copy of the descriptor: the same
// open file, offset and flags).  A regular file is read from where the
// program starts writing: the offset, or the end for one opened to append.
bool ProgramOutput::handOver(Stream& s, bool regular, std::string& error) {
  s.child = fcntl(s.pass, F_DUPFD_CLOEXEC, 3);
  if (s.child < 0) {
    error = std::string("dup: ") + std::strerror(errno);
    return false;
  }
  s.direct = true;
  if (!regular) return true;
  std::string path = "/proc/self/fd/" + std::to_string(s.pass);
  struct stat st {};
  int flags = fcntl(s.pass, F_GETFL);
  s.offset = (flags >= 0 && (flags & O_APPEND) && fstat(s.pass, &st) == 0) ? st.st_size : lseek(s.pass, 0, SEEK_CUR);
  s.file = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (s.file < 0 || s.offset < 0 || watch < 0 || inotify_add_watch(watch, path.c_str(), IN_MODIFY) < 0) {
    spdlog::info("the program's {} goes to a file abmon cannot read ({}): no output records of it", s.name,
                 std::strerror(errno));
    if (s.file >= 0) ::close(s.file);
    if (watch >= 0) ::close(watch);
    s.file = -1;
    return true;
  }
  s.watch = std::make_unique<boost::asio::posix::stream_descriptor>(io_, watch);
  return true;
}

void ProgramOutput::start() {
  for (Stream& s : streams_) {
    if (s.child >= 0) ::close(s.child);
    s.child = -1;
    if (s.read) readSome(s);
    if (s.file >= 0) watchFile(s);
  }
}

void ProgramOutput::watchFile(Stream& s) {
  s.watch->async_wait(boost::asio::posix::stream_descriptor::wait_read, [this, &s](const boost::system::error_code& ec) {
    if (ec || !s.watch) return;
    char events[4096];
    while (::read(s.watch->native_handle(), events, sizeof events) > 0) {
    }
    readFile(s);
    if (s.watch) watchFile(s);
  });
}

// What the program has added to its file since the last read.
void ProgramOutput::readFile(Stream& s) {
  if (s.file < 0) return;
  for (;;) {
    ssize_t n = ::pread(s.file, s.buffer.data(), s.buffer.size(), s.offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    s.offset += n;
    took(s, std::string_view(s.buffer.data(), static_cast<std::size_t>(n)));
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
  if (s.passing && !s.direct && !writeAll(s.pass, bytes)) {
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
  if (s.watch) {
    boost::system::error_code ignored;
    s.watch->close(ignored);
    s.watch.reset();
  }
  if (s.read) {
    boost::system::error_code ignored;
    s.read->close(ignored);
    s.read.reset();
  }
}

void ProgramOutput::drainNow() {
  for (Stream& s : streams_) {
    if (s.file >= 0) {
      readFile(s);
      ended(s);
      ::close(s.file);
      s.file = -1;
    }
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
