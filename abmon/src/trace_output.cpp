#include "trace_output.h"

#include <zstd.h>

#include <cerrno>

namespace xab::abmon {

bool compressesTo(const std::string& path) { return path.size() > 4 && path.ends_with(".zst"); }

TraceOutput::TraceOutput(boost::asio::io_context& io, std::FILE* out, bool zstd) : out_(out), timer_(io) {
  if (!zstd) return;
  zstd_ = ZSTD_createCCtx();
  if (zstd_) ZSTD_CCtx_setParameter(zstd_, ZSTD_c_compressionLevel, kLevel);
  flushed_ = std::chrono::steady_clock::now();
}

TraceOutput::~TraceOutput() {
  timer_.cancel();
  ZSTD_freeCCtx(zstd_);
}

bool TraceOutput::write(std::string_view text) {
  if (text.empty()) return true;
  if (!zstd_) return std::fwrite(text.data(), 1, text.size(), out_) == text.size() && std::fflush(out_) == 0;
  if (closed_ || !compress(text, ZSTD_e_continue)) return false;
  if (!unflushed_) armTimer();
  unflushed_ = true;
  if (std::chrono::steady_clock::now() - flushed_ >= std::chrono::milliseconds(kFlushMs)) return flush();
  return true;
}

// Feeds text to zstd in `mode` and writes whatever it gives.
bool TraceOutput::compress(std::string_view text, int mode) {
  ZSTD_inBuffer in{text.data(), text.size(), 0};
  const auto directive = static_cast<ZSTD_EndDirective>(mode);
  buffer_.resize(ZSTD_CStreamOutSize());
  for (;;) {
    ZSTD_outBuffer out{buffer_.data(), buffer_.size(), 0};
    std::size_t left = ZSTD_compressStream2(zstd_, &out, &in, directive);
    if (ZSTD_isError(left)) {
      errno = ENOMEM;  // zstd fails only for memory here
      return false;
    }
    if (out.pos > 0 && std::fwrite(buffer_.data(), 1, out.pos, out_) != out.pos) return false;
    // continue: done once the input is taken; flush and end: once nothing is left
    if (directive == ZSTD_e_continue ? in.pos == in.size : left == 0) return true;
  }
}

bool TraceOutput::flush() {
  unflushed_ = false;
  flushed_ = std::chrono::steady_clock::now();
  return compress({}, ZSTD_e_flush) && std::fflush(out_) == 0;
}

// Text given to zstd and nothing since: flushed kFlushMs later.
void TraceOutput::armTimer() {
  timer_.expires_after(std::chrono::milliseconds(kFlushMs));
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec && unflushed_ && !closed_) flush();  // an error shows at the next write
  });
}

bool TraceOutput::close() {
  if (closed_ || !zstd_) return true;
  closed_ = true;
  timer_.cancel();
  return compress({}, ZSTD_e_end) && std::fflush(out_) == 0;
}

}  // namespace xab::abmon
