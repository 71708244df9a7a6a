#include "xab/model/memory.h"

#include <malloc.h>

namespace xab {

void returnFreedArrays() { mallopt(M_MMAP_THRESHOLD, 1 << 20); }

}  // namespace xab
