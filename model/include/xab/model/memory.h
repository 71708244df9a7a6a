// The heap policy of a tool that holds a whole trace (abstat, xabview,
// ab2picl): call it once, first thing in main().
#pragma once

namespace xab {

// The model's big arrays (the message table, global time's edges, the
// analyses' lists) are allocated and freed pass after pass.  glibc raises
// its mmap threshold to the size of each such array freed, so later ones
// come from the heap and stay resident once freed (50 MB more peak on 10 M
// records in abstat); with a fixed threshold each array of a MiB or more is
// mapped on its own and returned to the system when freed.
void returnFreedArrays();

}  // namespace xab
