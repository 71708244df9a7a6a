#include "byte_message.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace xab::abmon {

void ByteMessage::pkInt(std::int32_t value) { pkBytes(&value, sizeof value); }

void ByteMessage::pkStr(const std::string& text) {
  pkInt(static_cast<std::int32_t>(text.size()));
  pkBytes(text.data(), text.size());
}

void ByteMessage::pkBytes(const void* data, std::size_t n) {
  auto* p = static_cast<const std::byte*>(data);
  data_.insert(data_.end(), p, p + n);
}

bool ByteReader::ints(std::int32_t* out, int n) {
  return n >= 0 && bytes(out, static_cast<std::size_t>(n) * sizeof(std::int32_t));
}

bool ByteReader::str(std::string& out) {
  std::int32_t len = 0;
  if (!ints(&len, 1) || len < 0 || static_cast<std::size_t>(len) > data_.size() - pos_)
    return false;
  out.assign(reinterpret_cast<const char*>(data_.data() + pos_), static_cast<std::size_t>(len));
  pos_ += static_cast<std::size_t>(len);
  return true;
}

bool ByteReader::bytes(void* out, std::size_t n) {
  if (n > data_.size() - pos_) return false;
  if (n > 0) std::memcpy(out, data_.data() + pos_, n);
  pos_ += n;
  return true;
}

template <class Read>
bool ByteMessage::read(Read&& r) {
  ByteReader reader(data_, pos_);
  bool ok = r(reader);
  pos_ = reader.pos();
  return ok;
}

bool ByteMessage::ints(std::int32_t* out, int n) {
  return read([&](ByteReader& r) { return r.ints(out, n); });
}
bool ByteMessage::str(std::string& out) {
  return read([&](ByteReader& r) { return r.str(out); });
}
bool ByteMessage::bytes(void* out, std::size_t n) {
  return read([&](ByteReader& r) { return r.bytes(out, n); });
}

EventMessageBuilder::EventMessageBuilder() {
  if constexpr (std::endian::native == std::endian::little)
    header[XAB_HDR_FLAGS] = XAB_HDRF_LITTLE_ENDIAN;
}

EventMessageBuilder& EventMessageBuilder::seq(std::int32_t s) {
  header[XAB_HDR_SEQ] = s;
  return *this;
}

EventMessageBuilder& EventMessageBuilder::string(std::int32_t id, std::string text) {
  strings.emplace_back(id, std::move(text));
  return *this;
}

EventMessageBuilder& EventMessageBuilder::event(std::int64_t tNs, unsigned kind, unsigned phase,
                                                std::int32_t rc,
                                                std::initializer_list<std::int32_t> a) {
  xab_event ev{};
  ev.t_ns = tNs;
  ev.kind = static_cast<std::uint16_t>(kind);
  ev.phase = static_cast<std::uint8_t>(phase);
  ev.rc = rc;
  std::copy_n(a.begin(), std::min<std::size_t>(a.size(), 6), ev.a);
  events.push_back(ev);
  return *this;
}

ByteMessage EventMessageBuilder::build(bool keepCounts) const {
  std::int32_t h[XAB_HDR_INTS];
  std::copy(std::begin(header), std::end(header), h);
  if (!keepCounts) {
    h[XAB_HDR_NSTRINGS] = static_cast<std::int32_t>(strings.size());
    h[XAB_HDR_NEVENTS] = static_cast<std::int32_t>(events.size());
  }
  ByteMessage msg;
  for (std::int32_t v : h) msg.pkInt(v);
  for (const auto& [id, text] : strings) {
    msg.pkInt(id);
    msg.pkStr(text);
  }
  msg.pkBytes(events.data(), events.size() * sizeof(xab_event));
  return msg;
}

}  // namespace xab::abmon
