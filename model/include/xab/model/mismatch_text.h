// xab/model/mismatch_text.h -- a pack/unpack mismatch in words, the same in
// every front end (abstat's text and JSON, xabview's hang panel).
//
// findPackMismatches (mismatch.h) finds the facts; this says them.
#pragma once

#include <xab/model/mismatch.h>

#include <string>
#include <vector>

namespace xab {

// "unpacks int x4 where double x8 was packed"
std::string mismatchText(const PackMismatch& m);

// "int x8, double x2"; "(nothing)" when empty
std::string formatPackItems(const std::vector<PackItem>& items);

// What was checked: "checked", "no pack records", "pack records filtered"
// (none left to check) or "pack records partly filtered".
const char* mismatchStatus(const MismatchReport& r);

}  // namespace xab
