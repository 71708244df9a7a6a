// pvm_unpacker.h -- Unpacker over a PVM receive buffer.
#ifndef XAB_ABMON_PVM_UNPACKER_H
#define XAB_ABMON_PVM_UNPACKER_H

#include <vector>

#include "unpacker.h"

namespace xab::abmon {

// Reads the active receive buffer `bufid` (pvm_setrbuf is the caller's).
class PvmUnpacker final : public Unpacker {
 public:
  explicit PvmUnpacker(int bufid);
  std::size_t length() const override { return length_; }
  bool ints(std::int32_t* out, int n) override;
  bool str(std::string& out) override;
  bool bytes(void* out, std::size_t n) override;

 private:
  std::size_t length_ = 0;
  // pvm_upkstr takes no buffer size; no string in a message is longer
  // than the message, so a buffer of length_+1 is always enough.
  std::vector<char> scratch_;
};

}  // namespace xab::abmon

#endif
