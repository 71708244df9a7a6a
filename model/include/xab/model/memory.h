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

// The pages of the heap that hold nothing any more, returned to the system
// (malloc_trim): what a phase of many small allocations (a snapshot's
// chunks, an analysis's lists) freed stays resident otherwise, in the
// arena of the thread that allocated it, and adds to the next phase's peak.
void returnFreedPages();

}  // namespace xab
