#include "xab/model/memory.h"

#include <malloc.h>

namespace xab {

void returnFreedArrays() { mallopt(M_MMAP_THRESHOLD, 1 << 20); }

void returnFreedPages() { malloc_trim(0); }

}  // namespace xab
