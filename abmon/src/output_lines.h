// output_lines.h -- a task's output as `output` records: the one
// line splitter and record writer for both sources abmon has, PVM's output
// collection (pvm_tracer.cpp) and the program abmon starts itself
// (program_output.cpp).
#ifndef XAB_ABMON_OUTPUT_LINES_H
#define XAB_ABMON_OUTPUT_LINES_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace xab::abmon {

// Bytes in, lines out, each without its '\n', bytes as they are (the record
// escapes them).  A line longer than kMaxLine is handed on in pieces of
// kMaxLine: its record, every byte %-escaped, stays under the trace's
// 16 MiB line limit (docs/trace-format.md), and what abmon holds per stream
// stays bounded.
class OutputLines {
 public:
  static constexpr std::size_t kMaxLine = 4 * 1024 * 1024;
  using Emit = std::function<void(std::string_view line)>;

  void append(std::string_view bytes, const Emit& emit);
  // The stream ended: a last line without its '\n', if any.
  void finish(const Emit& emit);

 private:
  std::string partial_;  // after the last '\n'
  bool pieced_ = false;   // pieces of the line in partial_ already handed on
};

// One `output` record: both times are `ns` (abmon's, when it read the
// bytes); stream is "stdout", "stderr" or "-" (not known).
void appendOutputRecord(std::string& out, std::int64_t ns, int tid, std::string_view stream, std::string_view text);

}  // namespace xab::abmon

#endif
