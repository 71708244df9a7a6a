// trace_output.h -- where abmon's trace text goes: the -o file or standard
// output, as it is or zstd-compressed (a name ending in ".zst").
//
// Compressed, the text is one zstd frame, flushed (a whole block written
// and the file flushed) at least every kFlushMs while text comes, and by a
// timer when it stops coming: a reader following the file sees a record
// within about kFlushMs of abmon writing it, and a killed abmon leaves a
// file readable up to its last flush (the readers say it is cut short).
#ifndef XAB_ABMON_TRACE_OUTPUT_H
#define XAB_ABMON_TRACE_OUTPUT_H

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

struct ZSTD_CCtx_s;

namespace xab::abmon {

// Whether abmon compresses a trace written to `path`.
bool compressesTo(const std::string& path);

class TraceOutput {
 public:
  static constexpr int kFlushMs = 250;
  static constexpr int kLevel = 3;  // zstd's default: fast, about 10x on trace text

  TraceOutput(boost::asio::io_context& io, std::FILE* out, bool zstd);
  ~TraceOutput();
  TraceOutput(const TraceOutput&) = delete;
  TraceOutput& operator=(const TraceOutput&) = delete;

  // Writes the text (plain: written and flushed at once).  False on an
  // error (errno says which).
  bool write(std::string_view text);
  // The end of the trace: the zstd frame is closed.  Idempotent.
  bool close();
  bool compressed() const { return zstd_ != nullptr; }

 private:
  bool compress(std::string_view text, int mode);
  bool flush();
  void armTimer();

  std::FILE* out_;
  ZSTD_CCtx_s* zstd_ = nullptr;
  std::string buffer_;  // compressed bytes on their way to out_
  boost::asio::steady_timer timer_;
  std::chrono::steady_clock::time_point flushed_;
  bool unflushed_ = false;  // text given to zstd since its last flush
  bool closed_ = false;
};

}  // namespace xab::abmon

#endif
