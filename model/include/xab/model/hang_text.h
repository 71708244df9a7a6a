// xab/model/hang_text.h -- a hang report in words, the same in every front
// end (abstat's text and JSON, xabview's hang panel and banner).
//
// diagnoseHang (hang.h) finds the facts; this says them: a sentence per
// blocked task (what it waits for, since when, the messages left for it,
// the barrier's members that have not arrived and what each is doing), a
// headline with the counts, and the summary, most important first.
#pragma once

#include <xab/model/hang.h>

#include <string>
#include <vector>

namespace xab {

struct HangText {
  std::string headline;                   // "10 tasks blocked, 1 ended while blocked"; "" when not hung
  std::vector<std::string> summary;       // sentences for people, most important first
  std::vector<std::string> explanations;  // one per HangReport::blocked, in its order
  // One sentence each of HangReport's recordsMissing, crashed, boundedWaits.
  std::vector<std::string> recordsMissing;
  std::vector<std::string> crashed;
  std::vector<std::string> boundedWaits;
};

// A set of tasks in few words: "(cholnode, 0..2)", "(cholnode, 0,2)",
// "(a, 0), (b, 1)".
std::string labelSet(const Trace& trace, const std::vector<TaskIndex>& tasks);

// `trace` is the one the report was made from.
HangText hangText(const Trace& trace, const HangReport& report);

}  // namespace xab
