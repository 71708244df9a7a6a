// byte_message.h -- an event message held as bytes in memory.
//
// Layout: an int is 4 bytes in host order, a string is its length as an int
// then its bytes, raw bytes are copied as they are.  Unit tests and the
// benchmark build messages with EventMessageBuilder and may cut bytes off or
// change any header field to make bad ones.
#ifndef XAB_ABMON_BYTE_MESSAGE_H
#define XAB_ABMON_BYTE_MESSAGE_H

#include <xab/wire.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "unpacker.h"

namespace xab::abmon {

// Reads a message laid out this way from bytes it does not own: an event
// message that came through the local socket (wire.h).
class ByteReader final : public Unpacker {
 public:
  explicit ByteReader(std::span<const std::byte> data, std::size_t pos = 0) : data_(data), pos_(pos) {}
  std::size_t pos() const { return pos_; }

  std::size_t length() const override { return data_.size(); }
  bool ints(std::int32_t* out, int n) override;
  bool str(std::string& out) override;
  bool bytes(void* out, std::size_t n) override;

 private:
  std::span<const std::byte> data_;
  std::size_t pos_;
};

class ByteMessage final : public Unpacker {
 public:
  ByteMessage() = default;
  explicit ByteMessage(std::vector<std::byte> data) : data_(std::move(data)) {}

  void pkInt(std::int32_t value);
  void pkStr(const std::string& text);
  void pkBytes(const void* data, std::size_t n);

  const std::vector<std::byte>& data() const { return data_; }
  // Cuts the message to n bytes (a truncated message).
  void truncate(std::size_t n) { data_.resize(std::min(n, data_.size())); }
  void rewind() { pos_ = 0; }

  std::size_t length() const override { return data_.size(); }
  bool ints(std::int32_t* out, int n) override;
  bool str(std::string& out) override;
  bool bytes(void* out, std::size_t n) override;

 private:
  // Each read: a ByteReader from where the last one stopped.
  template <class Read>
  bool read(Read&& r);
  std::vector<std::byte> data_;
  std::size_t pos_ = 0;
};

// Builds a well-formed event message; change `header` to make a bad one.
struct EventMessageBuilder {
  std::int32_t header[XAB_HDR_INTS] = {XAB_WIRE_MAGIC, XAB_WIRE_VERSION, 0, 0, 0, 0, 0,
                                       static_cast<std::int32_t>(sizeof(xab_event))};
  std::vector<std::pair<std::int32_t, std::string>> strings;
  std::vector<xab_event> events;

  EventMessageBuilder();
  EventMessageBuilder& seq(std::int32_t s);
  EventMessageBuilder& string(std::int32_t id, std::string text);
  EventMessageBuilder& event(std::int64_t tNs, unsigned kind, unsigned phase, std::int32_t rc,
                             std::initializer_list<std::int32_t> a = {});
  // Counts come from the vectors unless `keepCounts` (to lie about them).
  ByteMessage build(bool keepCounts = false) const;
};

}  // namespace xab::abmon

#endif
