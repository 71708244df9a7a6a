#include "analysis.h"

#include "options.h"

namespace xab::abstat {

int exitStatus(const Report& a) {
  bool hang = a.hang.hung, mismatch = !a.mismatch.mismatches.empty();
  if (hang && mismatch) return kExitBoth;
  if (hang) return kExitHang;
  if (mismatch) return kExitMismatch;
  return kExitOk;
}

double seconds(const Trace& t, TimeNs time) { return durationSeconds(time - t.firstTime()); }
double durationSeconds(TimeNs d) { return static_cast<double>(d) / 1e9; }

}  // namespace xab::abstat
