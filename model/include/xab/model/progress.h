// xab/model/progress.h -- how far a read has got, and the one progress
// line every command-line front end draws from it (abstat, the
// translators).  The viewer shows ReadProgress in its own status bar.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace xab {

// Where a read stands (TraceSource::progress()).
struct ReadProgress {
  std::uint64_t bytes = 0;   // read so far
  std::uint64_t total = 0;   // a regular file's size, when it is read once; 0: not known
  std::uint64_t events = 0;  // records stored so far (0 for a foreign format)
  double seconds = 0;        // since reading began
  double fraction() const;   // bytes / total; 0 when the total is not known
  double megabytesPerSecond() const;
};

struct ProgressOptions {
  std::string label;        // the program: "abstat: ..."
  int fd = 2;               // drawn here, and only if it is a terminal
  double firstAfter = 0.5;  // seconds of reading before it shows (a quick read never flashes one)
  double every = 0.2;       // seconds between redraws
};

// One line, redrawn in place ("\r"): "ab2picl: [#####     ]  42% 310 MB/s,
// 1234567 events" when the total is known, "abstat: 12.3 MB, 1234567
// events, 40 MB/s" when it is not (a pipe).  Off unless options.fd is a
// terminal; cleared by clear() and by the destructor.
class ProgressLine {
 public:
  explicit ProgressLine(ProgressOptions options);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return on_; }
  void update(const ReadProgress& p);
  void clear();  // erases the line if it was drawn; nothing is drawn after

 private:
  ProgressOptions options_;
  bool on_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace xab
