// The heap policy of a tool that holds a whole trace (abstat, xabview,
// ab2picl): call it once, first thing in main().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xab {

// The model's big arrays (the message table, global time's edges, the
// analyses' lists) are allocated and freed pass after pass.  glibc raises
// its mmap threshold to the size of each such array freed, so later ones
// come from the heap and stay resident once freed (50 MB more peak on 10 M
// records in abstat); with a fixed threshold each array of a MiB or more is
// mapped on its own and returned to the system when freed.
void returnFreedArrays();

// A memory budget as the tools take it (--budget): a number of bytes with
// an optional K, M, G or T (powers of 1024; a trailing B or iB allowed, any
// case): "1G", "512M", "1.5GiB", "0" (no budget).  nullopt: not a size.
std::optional<std::uint64_t> parseByteSize(std::string_view text);
// "1 GiB", "512 MiB", "1.5 GiB", "300 KiB", "12 B": for messages.
std::string formatByteSize(std::uint64_t bytes);

// The pages of the heap that hold nothing any more, returned to the system
// (malloc_trim): what a phase of many small allocations (a snapshot's
// chunks, an analysis's lists) freed stays resident otherwise, in the
// arena of the thread that allocated it, and adds to the next phase's peak.
void returnFreedPages();

}  // namespace xab
