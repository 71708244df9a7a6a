// xab/model/why_text.h -- why a run is slow, in words, the same in every
// front end: the root causes ranked by the waiting they cost others, the
// symptoms (tasks that kept others waiting only because they were kept
// waiting), the critical path and the others' slack.
#pragma once

#include <xab/model/analysis.h>

#include <string>
#include <vector>

namespace xab {

struct WhyText {
  std::string headline;                // "4.500 s of waiting in 3 wait states; ..." / "no task waited for another"
  std::vector<std::string> causes;     // one per root-cause task, largest cost first
  std::vector<std::string> symptoms;   // one per task that passed waiting on
  std::string criticalPath;            // "critical path 3.600 s: (c, 0) 3.000 s (83.3 %), ..."
  std::string slack;                   // "slack: (a, 0) 2.100 s, ..." ("" when every task is on the path)
};

// `a` analysed with AnalyseOptions::why; its breakdown and barriers, when
// there, add how much longer a cause computes than its namesakes and how
// often it was the last at a barrier.
WhyText whyText(const Analysis& a);
// The same with the wait states `w` analysed apart from `a` (analyseWaits
// on a's messages; the viewer makes them only when they are shown).
WhyText whyText(const Analysis& a, const WhyReport& w);

// "1.800 s", "12.5 ms", "40 us": a duration in few digits.
std::string shortDuration(TimeNs d);

}  // namespace xab
