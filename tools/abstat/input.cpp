#include "input.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace xab::abstat {
namespace {

volatile std::sig_atomic_t gStop = 0;
void onSignal(int) { gStop = 1; }

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A progress line on stderr, only on a terminal and only for long inputs.
class Progress {
 public:
  explicit Progress(bool on) : on_(on && isatty(2)) {}
  ~Progress() { if (shown_) std::fputs("\r\033[K", stderr); }
  void update(const TraceReader& r) {
    if (!on_ || since(last_) < 0.5) return;
    last_ = Clock::now();
    shown_ = true;
    std::fprintf(stderr, "\rabstat: %.1f MB, %llu events", static_cast<double>(r.byteCount()) / 1e6,
                 static_cast<unsigned long long>(r.eventCount()));
  }

 private:
  bool on_;
  bool shown_ = false;
  Clock::time_point last_ = Clock::now();
};

struct Source {
  int fd = -1;
  bool regular = false;  // a file: EOF means "nothing yet" when following
  std::string error;

  explicit Source(const std::string& path) {
    fd = path == "-" ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) { error = path + ": " + std::strerror(errno); return; }
    struct stat st{};
    regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  }
  ~Source() { if (fd > 0) ::close(fd); }
};

}  // namespace

std::string readInput(const Options& o, TraceReader& reader, const StallHandler& onStall) {
  Source src(o.input);
  if (!src.error.empty()) return src.error;
  if (o.follow) {
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
  }
  Progress progress(o.progress && !o.follow);
  std::string buf(1 << 20, '\0');
  auto lastProgress = Clock::now();
  bool stallReported = false;
  auto checkStall = [&] {
    if (stallReported || since(lastProgress) < o.stallSeconds) return;
    stallReported = true;
    onStall(reader, since(lastProgress));
  };
  constexpr int kPollMs = 200;
  while (!gStop) {
    if (o.follow && !src.regular) {
      pollfd p{src.fd, POLLIN, 0};
      if (::poll(&p, 1, kPollMs) == 0) { checkStall(); continue; }
    }
    ssize_t n = ::read(src.fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return o.input + ": " + std::strerror(errno);
    if (n > 0) {
      std::uint64_t before = reader.eventCount();
      bool go = reader.feed(std::string_view(buf.data(), static_cast<std::size_t>(n)));
      progress.update(reader);
      if (!go) break;
      if (reader.eventCount() != before) {
        lastProgress = Clock::now();
        stallReported = false;
      }
      continue;
    }
    // End of input; a growing file may get more, until abmon says it stopped.
    if (!o.follow || !src.regular || reader.monitorStopped()) break;
    checkStall();
    ::usleep(kPollMs * 1000);
  }
  reader.finish();
  return {};
}

}  // namespace xab::abstat
