// ReadProgress and the progress line (xab/model/progress.h).
#include <xab/model/progress.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

namespace xab {

double ReadProgress::fraction() const {
  return total ? std::min(1.0, static_cast<double>(bytes) / static_cast<double>(total)) : 0.0;
}

double ReadProgress::megabytesPerSecond() const {
  return seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0.0;
}

ProgressLine::ProgressLine(ProgressOptions options)
    : options_(std::move(options)), on_(options_.fd >= 0 && ::isatty(options_.fd)) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(const ReadProgress& p) {
  if (!on_ || p.seconds < options_.firstAfter) return;
  auto now = std::chrono::steady_clock::now();
  if (shown_ && std::chrono::duration<double>(now - last_).count() < options_.every) return;
  last_ = now;
  shown_ = true;
  char line[256];
  int n;
  if (p.total) {
    constexpr int kWidth = 30;
    int fill = static_cast<int>(p.fraction() * kWidth);
    n = std::snprintf(line, sizeof line, "\r%s: [%.*s%*s] %3d%% %.0f MB/s", options_.label.c_str(), fill,
                      "##############################", kWidth - fill, "", static_cast<int>(p.fraction() * 100),
                      p.megabytesPerSecond());
  } else {
    n = std::snprintf(line, sizeof line, "\r%s: %.1f MB, %.0f MB/s", options_.label.c_str(),
                      static_cast<double>(p.bytes) / 1e6, p.megabytesPerSecond());
  }
  std::string out(line, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof line) - 1)));
  if (p.events) out += ", " + std::to_string(p.events) + " events";
  out += "\033[K";  // the rest of a longer line drawn before
  (void)!::write(options_.fd, out.data(), out.size());
}

void ProgressLine::clear() {
  if (shown_) (void)!::write(options_.fd, "\r\033[K", 4);
  shown_ = false;
  on_ = false;
}

}  // namespace xab
