// Decoder (decode.h): zstd and gzip streams, told apart from plain text by
// their magic bytes, decoded piece by piece so that a growing file can be
// followed and a truncated one read to its last whole frame's end.
#include "decode.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>

namespace xab {
namespace {

constexpr unsigned char kZstdMagic[] = {0x28, 0xb5, 0x2f, 0xfd};
constexpr unsigned char kGzipMagic[] = {0x1f, 0x8b};
constexpr std::size_t kCompactAt = 1 << 20;  // consumed raw bytes dropped past this

template <std::size_t N>
bool startsLike(const std::string& held, const unsigned char (&magic)[N]) {
  return std::memcmp(held.data(), magic, std::min(held.size(), N)) == 0;
}

}  // namespace

struct Decoder::Codecs {
  ZSTD_DCtx* zstd = nullptr;
  z_stream gzip{};
  bool gzipOpen = false;
  ~Codecs() {
    ZSTD_freeDCtx(zstd);
    if (gzipOpen) inflateEnd(&gzip);
  }
};

const char* formatName(Decoder::Format f) {
  switch (f) {
    case Decoder::Format::Zstd: return "zstd";
    case Decoder::Format::Gzip: return "gzip";
    case Decoder::Format::Plain: return "plain";
    case Decoder::Format::Unknown: break;
  }
  return "unknown";
}

Decoder::Decoder() : codecs_(std::make_unique<Codecs>()) {}
Decoder::~Decoder() = default;

void Decoder::decide(bool atEnd) {
  if (format_ != Format::Unknown || held_.empty()) return;
  if (held_.size() >= sizeof kZstdMagic && startsLike(held_, kZstdMagic)) {
    format_ = Format::Zstd;
    codecs_->zstd = ZSTD_createDCtx();
    if (!codecs_->zstd) error_ = "zstd: out of memory";
  } else if (held_.size() >= sizeof kGzipMagic && startsLike(held_, kGzipMagic)) {
    format_ = Format::Gzip;
    if (inflateInit2(&codecs_->gzip, 15 + 16) != Z_OK)  // a gzip header, not zlib's
      error_ = "gzip: out of memory";
    codecs_->gzipOpen = error_.empty();
  } else if (atEnd || !(startsLike(held_, kZstdMagic) || startsLike(held_, kGzipMagic))) {
    format_ = Format::Plain;
  }
}

void Decoder::take(std::string_view raw) {
  if (at_ == held_.size()) {
    held_.clear();
    at_ = 0;
  } else if (at_ >= kCompactAt) {
    held_.erase(0, at_);
    at_ = 0;
  }
  held_.append(raw);
  decide(false);
}

bool Decoder::give(std::size_t cap, std::string_view& text) {
  text = {};
  if (!error_.empty()) return false;
  if (format_ == Format::Unknown || at_ == held_.size()) return true;
  if (format_ == Format::Plain) {  // the few bytes held while deciding
    text = std::string_view(held_).substr(at_);
    at_ = held_.size();
    return true;
  }
  cap = std::max<std::size_t>(cap, 1);
  if (out_.size() < cap) out_.resize(cap);
  if (format_ == Format::Gzip) return inflateSome(cap, text);
  ZSTD_inBuffer in{held_.data() + at_, held_.size() - at_, 0};
  ZSTD_outBuffer out{out_.data(), cap, 0};
  for (;;) {
    std::size_t inBefore = in.pos, outBefore = out.pos;
    std::size_t r = ZSTD_decompressStream(codecs_->zstd, &out, &in);
    if (ZSTD_isError(r)) {
      error_ = std::string("not valid zstd data: ") + ZSTD_getErrorName(r);
      return false;
    }
    if (in.pos == inBefore && out.pos == outBefore) break;  // it needs more input
    midFrame_ = r != 0;  // 0: a frame ended and is all given
    if (out.pos == out.size) break;
  }
  at_ += in.pos;
  text = std::string_view(out_.data(), out.pos);
  return true;
}

// gzip: members one after another (as `cat a.gz b.gz` makes) are one text.
bool Decoder::inflateSome(std::size_t cap, std::string_view& text) {
  z_stream& z = codecs_->gzip;
  const std::size_t avail = held_.size() - at_;
  z.next_in = reinterpret_cast<Bytef*>(held_.data() + at_);
  z.avail_in = static_cast<uInt>(std::min<std::size_t>(avail, 1u << 30));
  z.next_out = reinterpret_cast<Bytef*>(out_.data());
  z.avail_out = static_cast<uInt>(std::min<std::size_t>(cap, 1u << 30));
  const uInt outSize = z.avail_out;
  while (z.avail_out > 0 && z.avail_in > 0) {
    uInt inBefore = z.avail_in;
    int r = inflate(&z, Z_NO_FLUSH);
    if (r == Z_STREAM_END) {
      midFrame_ = false;
      inflateReset(&z);
      continue;
    }
    if (r != Z_OK && r != Z_BUF_ERROR) {
      error_ = std::string("not valid gzip data: ") + (z.msg ? z.msg : "data error");
      return false;
    }
    midFrame_ = true;
    if (z.avail_in == inBefore && r == Z_BUF_ERROR) break;
  }
  at_ += static_cast<std::size_t>(z.next_in - reinterpret_cast<Bytef*>(held_.data() + at_));
  text = std::string_view(out_.data(), outSize - z.avail_out);
  return true;
}

std::string Decoder::end() {
  decide(true);
  if (!compressed() || !error_.empty()) return {};
  if (!midFrame_ && at_ == held_.size()) return {};
  return std::string("the ") + formatName(format_) +
         " data ends inside a frame (the file is truncated, or its writer stopped between two flushes)";
}

}  // namespace xab
