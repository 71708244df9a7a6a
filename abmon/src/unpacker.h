// unpacker.h -- the read side of one received event message.
//
// The formatter reads a message only through this interface, so it can be
// fed a PVM receive buffer (pvm_receiver.cpp) or bytes built in memory
// (byte_message.h, for the unit tests and the benchmark).  Every read may
// fail: a message is untrusted input.
#ifndef XAB_ABMON_UNPACKER_H
#define XAB_ABMON_UNPACKER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace xab::abmon {

class Unpacker {
 public:
  virtual ~Unpacker() = default;
  // The message's length in bytes as its transport counts them (for PVM:
  // pvm_bufinfo).  Bounds every count read from the header.
  virtual std::size_t length() const = 0;
  // Reads n ints (pvm_upkint); false when the message ends first.
  virtual bool ints(std::int32_t* out, int n) = 0;
  // Reads one string (pvm_upkstr); false when the message ends first.
  virtual bool str(std::string& out) = 0;
  // Reads n raw bytes (pvm_upkbyte); false when the message ends first.
  virtual bool bytes(void* out, std::size_t n) = 0;
};

}  // namespace xab::abmon

#endif
