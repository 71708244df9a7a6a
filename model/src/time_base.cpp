// time_base.cpp -- the trace on the time base asked for (xab/model/time_base.h).
#include <xab/model/time_base.h>

namespace xab {

namespace {

// Compensation, then the last pass: what prepare() and prepareLive() share.
TracePtr compensateAndCorrect(TracePtr trace, const TimeBase& base, TimeBaseReport& report) {
  if (base.compensate || base.correct) report.messages.reset();  // the table is of the trace before
  if (base.compensate) {
    trace = compensate(std::move(trace), report.compensation);
    report.compensated = true;
  }
  if (base.correct) {
    trace = base.correct(std::move(trace));
    report.corrected = true;
  }
  return trace;
}

}  // namespace

TracePtr prepare(TracePtr trace, const TimeBase& base, TimeBaseReport& report) {
  report = TimeBaseReport{};
  if (base.globalTime) {
    trace = toGlobalTime(std::move(trace), report.clock, &report.messages);
    report.global = true;
  }
  return compensateAndCorrect(std::move(trace), base, report);
}

TracePtr prepareLive(TracePtr trace, LiveClockFit& fit, const TimeBase& base, bool settled,
                     LiveTimeBaseReport& report) {
  report = LiveTimeBaseReport{};
  if (base.globalTime) {
    report.clocksMove = fit.update(*trace);
    report.clockSamples = fit.anySamples();
    if (report.clocksMove && settled) {
      trace = toGlobalTime(std::move(trace), report.clock);
      report.global = true;
    }
  }
  return compensateAndCorrect(std::move(trace), base, report);
}

void StreamTimeBase::gather(const Trace& piece) {
  if (globalTime_) fitter_.add(piece);
}

std::size_t StreamTimeBase::fit() {
  fits_ = globalTime_ ? fitter_.fit() : std::unordered_map<Tid, ClockFit>{};
  return fits_.size();
}

TracePtr StreamTimeBase::apply(TracePtr piece) const {
  return fits_.empty() ? piece : applyClockFits(*piece, fits_);
}

}  // namespace xab
