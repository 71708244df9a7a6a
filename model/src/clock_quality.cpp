// Whether global time's fit is poor (xab/model/clock_quality.h).
#include <xab/model/clock_quality.h>

#include <algorithm>
#include <cstdio>

namespace xab {
namespace {

std::string us(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  return buf;
}

}  // namespace

bool fitIsPoor(const ClockFit& fit) {
  return fit.valid && fit.maxBeyond > std::max(fit.minTransit, kPoorFitFloor);
}

ClockQuality assessClocks(const Trace& trace, const ClockReport& report) {
  ClockQuality q;
  if (!report.clockRecords) return q;
  for (TaskIndex t = 0; t < trace.taskCount() && t < report.fits.size(); ++t) {
    const ClockFit& f = report.fits[t];
    std::string why;
    if (fitIsPoor(f))
      why = trace.label(t) + ": a sample " + us(static_cast<double>(f.maxResidual)) + " off the fitted line, " +
            "the fastest exchange " + us(static_cast<double>(f.minTransit));
    else if (!f.valid && f.samples > 0)
      why = trace.label(t) + ": clock records but no fit";
    if (why.empty()) continue;
    ++q.poorTasks;
    if (q.why.empty()) q.why = why;
  }
  if (report.violationsCorrected > 0 && q.why.empty())
    q.why = std::to_string(report.violationsCorrected) + " receives still before their sends after the correction";
  q.poor = q.poorTasks > 0 || report.violationsCorrected > 0;
  return q;
}

}  // namespace xab
