#include "pvm_unpacker.h"

#include <pvm3.h>

#include <climits>
#include <cstring>

namespace xab::abmon {

// values.cpp names PVM's data types without including pvm3.h.
static_assert(PVM_STR == 0 && PVM_BYTE == 1 && PVM_INT == 3 && PVM_DCPLX == 7 && PVM_ULONG == 11,
              "PVM data type codes as values.cpp spells them");

PvmUnpacker::PvmUnpacker(int bufid) {
  int bytes = 0, tag = 0, src = 0;
  if (pvm_bufinfo(bufid, &bytes, &tag, &src) >= 0 && bytes > 0)
    length_ = static_cast<std::size_t>(bytes);
}

bool PvmUnpacker::ints(std::int32_t* out, int n) {
  static_assert(sizeof(int) == sizeof(std::int32_t));
  return pvm_upkint(reinterpret_cast<int*>(out), n, 1) >= 0;
}

bool PvmUnpacker::str(std::string& out) {
  if (scratch_.size() < length_ + 1) scratch_.assign(length_ + 1, '\0');
  scratch_[0] = '\0';
  if (pvm_upkstr(scratch_.data()) < 0) return false;
  out.assign(scratch_.data(), strnlen(scratch_.data(), scratch_.size()));
  return true;
}

bool PvmUnpacker::bytes(void* out, std::size_t n) {
  if (n > INT_MAX) return false;
  return pvm_upkbyte(static_cast<char*>(out), static_cast<int>(n), 1) >= 0;
}

}  // namespace xab::abmon
