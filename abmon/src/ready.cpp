#include "ready.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace xab::abmon {

bool claimReadyFd(int fd, std::string& error) {
  int flags = fcntl(fd, F_GETFD);
  if (flags < 0) {
    error = "--ready-fd " + std::to_string(fd) + ": " + std::strerror(errno);
    return false;
  }
  fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  return true;
}

void announceReady(int fd, int tid) {
  if (fd < 0) return;
  char line[64];
  int n = std::snprintf(line, sizeof line, "abmon t%x ready\n", static_cast<unsigned>(tid));
  // A reader that has gone is no reason to stop monitoring (SIGPIPE is ignored).
  for (const char* p = line; n > 0;) {
    ssize_t w = ::write(fd, p, static_cast<std::size_t>(n));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    p += w, n -= static_cast<int>(w);
  }
  ::close(fd);
}

}  // namespace xab::abmon
