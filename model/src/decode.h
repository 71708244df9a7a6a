// decode.h -- a trace's bytes as they are read, decompressed when they are
// zstd or gzip, known by their magic bytes (whatever the file is called,
// standard input too).  Used only by source.cpp's Input: the one place a
// trace's bytes are read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace xab {

class Decoder {
 public:
  enum class Format { Unknown, Plain, Zstd, Gzip };

  Decoder();
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  // Raw bytes as read.  Until the format is known (the first bytes), they
  // are held; plain text is then handed on as it is.
  void take(std::string_view raw);
  // Up to `cap` bytes of text decoded from what was taken, as a view valid
  // until the next call; empty: more raw bytes are needed.  False when the
  // data is not valid (error() says why): nothing more is decoded.
  bool give(std::size_t cap, std::string_view& text);
  // The raw input has ended: plain bytes still held are handed on by the
  // next give().  "" or why the compressed data ends short (cut inside a
  // frame: a truncated file, or a writer killed between its flushes).
  std::string end();

  // Compressed data taken that does not end on a frame's end yet (a writer
  // between a block and its frame's end, or a truncated file).
  bool insideFrame() const { return compressed() && error_.empty() && (midFrame_ || at_ < held_.size()); }
  Format format() const { return format_; }
  bool compressed() const { return format_ == Format::Zstd || format_ == Format::Gzip; }
  const std::string& error() const { return error_; }

 private:
  void decide(bool atEnd);
  bool inflateSome(std::size_t cap, std::string_view& text);

  struct Codecs;
  std::unique_ptr<Codecs> codecs_;
  Format format_ = Format::Unknown;
  std::string held_;      // raw bytes taken, not yet decoded
  std::size_t at_ = 0;    // how far held_ is consumed
  std::string out_;       // the last text given
  bool midFrame_ = false;  // a frame begun and not ended
  std::string error_;
};

const char* formatName(Decoder::Format f);

}  // namespace xab
