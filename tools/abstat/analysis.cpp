#include "analysis.h"

#include "options.h"

namespace xab::abstat {

Analysis analyse(std::shared_ptr<const Trace> trace) {
  Analysis a;
  a.trace = std::move(trace);
  const Trace& t = *a.trace;
  a.messages = matchMessages(t);
  a.barriers = analyzeBarriers(t);
  a.hang = diagnoseHang(t, a.messages, a.barriers);
  a.mismatch = findPackMismatches(t, a.messages);
  a.breakdown = timeBreakdown(t);
  return a;
}

int exitStatus(const Analysis& a) {
  bool hang = a.hang.hung, mismatch = !a.mismatch.mismatches.empty();
  if (hang && mismatch) return kExitBoth;
  if (hang) return kExitHang;
  if (mismatch) return kExitMismatch;
  return kExitOk;
}

double seconds(const Trace& t, TimeNs time) { return durationSeconds(time - t.firstTime()); }
double durationSeconds(TimeNs d) { return static_cast<double>(d) / 1e9; }

}  // namespace xab::abstat
