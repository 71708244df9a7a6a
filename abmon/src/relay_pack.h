// relay_pack.h -- what abmon and its relays both write: ints in PVM
// messages (relay.h, the message layout) and an int field of a relay or
// clock record.
#ifndef XAB_ABMON_RELAY_PACK_H
#define XAB_ABMON_RELAY_PACK_H

#include <pvm3.h>
#include <xab/traceformat/schema.h>
#include <xab/traceformat/write.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

namespace xab::abmon {

inline int packInts(const std::vector<int>& v) {
  int n = static_cast<int>(v.size());
  int rc = pvm_pkint(&n, 1, 1);
  if (rc >= 0 && n > 0) rc = pvm_pkint(const_cast<int*>(v.data()), n, 1);
  return rc;
}

inline std::vector<int> unpackInts() {
  int n = 0;
  if (pvm_upkint(&n, 1, 1) < 0 || n < 0 || n > (1 << 24)) return {};
  std::vector<int> v(static_cast<std::size_t>(n));
  if (n > 0 && pvm_upkint(v.data(), n, 1) < 0) return {};
  return v;
}

inline int sendInts(int to, int tag, const int* v, int n) {
  int buf = pvm_mkbuf(PvmDataRaw);
  int old = pvm_setsbuf(buf);
  int rc = pvm_pkint(const_cast<int*>(v), n, 1);
  if (rc >= 0) rc = pvm_send(to, tag);
  pvm_setsbuf(old);
  pvm_freebuf(buf);
  return rc;
}

inline void intField(std::string& out, Key key, std::int64_t v) {
  text::appendKey(out, keyName(key));
  text::appendInt(out, std::min<std::int64_t>(v, INT32_MAX));
}

}  // namespace xab::abmon

#endif
