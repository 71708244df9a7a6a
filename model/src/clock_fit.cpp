// Global time, the fit: each task's `clock` records read as samples and
// fitted to a line on the reference clock, through relays too
// (xab/model/clock.h, docs/global-time.md).  The re-dating of a trace
// through the fits is clock_retime.cpp's.
#include <xab/model/clock.h>

#include <algorithm>
#include <cmath>

namespace xab {

namespace {

// A `clock` record's slots, in events.h's order.
enum ClockSlot { kRef, kRefS, kRefNs, kTurn, kRtt, kPhase };

// Of each phase's exchanges, those within this much of the phase's
// fastest: a slower exchange waited somewhere, and half its wait is error.
constexpr TimeNs kTransitSlack = 20'000;  // ns
constexpr double kOutlierFactor = 4.0;    // residuals beyond this many times the median one go
// Dates beyond 146 years from the epoch are not a clock's: a sample with
// one is skipped, so that every difference of two dates fits in int64.
constexpr TimeNs kSaneTime = TimeNs{1} << 62;

bool sane(TimeNs t) { return t > -kSaneTime && t < kSaneTime; }

struct Point {
  double x, y;  // local, reference - local (ns, relative to the first point)
  double w = 1;  // weight: 1 / (the sample's possible error)^2
  double half = 0;  // half its transit: no honest sample is further off the true line
};

struct Line {
  double a = 0, b = 0;  // y = a + b x
};

Line leastSquares(const std::vector<Point>& p, bool fitRate) {
  double n = 0, sx = 0, sy = 0;
  for (const Point& q : p) n += q.w, sx += q.w * q.x, sy += q.w * q.y;
  double mx = sx / n, my = sy / n;
  if (!fitRate) return {my, 0};
  double sxx = 0, sxy = 0;
  for (const Point& q : p) sxx += q.w * (q.x - mx) * (q.x - mx), sxy += q.w * (q.x - mx) * (q.y - my);
  double b = sxx > 0 ? sxy / sxx : 0;
  return {my - b * mx, b};
}

// Across the whole run, not only within a phase: a running phase whose
// every exchange waited (abmon busy writing, the machine loaded) would
// otherwise keep its least slow one, whose wait on one way is an error of
// half that wait.  Kept: transits within kGateFactor times the run's
// fastest (and at least kGateSlack above it), unless that leaves less than
// half the run's span, when the weights alone must do.
constexpr TimeNs kGateFactor = 3;
constexpr TimeNs kGateSlack = 40'000;  // ns

std::vector<ClockSample> gated(const std::vector<ClockSample>& kept, TimeNs fastest) {
  const TimeNs gate = std::max(kGateFactor * fastest, fastest + kGateSlack);
  std::vector<ClockSample> in;
  for (const ClockSample& s : kept)
    if (s.transit() <= gate) in.push_back(s);
  auto span = [](const std::vector<ClockSample>& v) {
    auto [lo, hi] = std::minmax_element(v.begin(), v.end(), [](const ClockSample& a, const ClockSample& b) {
      return a.local() < b.local();
    });
    return static_cast<double>(hi->local() - lo->local());
  };
  if (in.size() < 2 || span(in) < span(kept) / 2) return kept;
  return in;
}

// A sample's error is at most half of what its transit exceeds the
// fastest by (the rest both ways share), plus what no exchange can see:
// weighted by 1 / that squared, a sample that waited 50 us counts some 100
// times less than one that did not, yet a run of slow ones is still a line.
double weight(TimeNs transit, TimeNs fastest) {
  const double floor = std::max(static_cast<double>(fastest) / 2, 2'000.0);
  const double e = static_cast<double>(transit - fastest) / 2 + floor;
  return 1.0 / (e * e);
}

// Lowest-transit filter: per phase block (a new block starts at each
// exchange numbered 0), the exchanges close to the block's fastest.
std::vector<ClockSample> fastest(const std::vector<ClockSample>& all) {
  std::vector<ClockSample> kept;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i + 1;
    while (j < all.size() && all[j].number != 0) ++j;
    TimeNs best = all[i].transit();
    for (std::size_t k = i; k < j; ++k) best = std::min(best, all[k].transit());
    for (std::size_t k = i; k < j; ++k)
      if (all[k].transit() <= best + std::max(best / 2, kTransitSlack)) kept.push_back(all[k]);
    i = j;
  }
  return kept;
}

// What the samples give evidence for.  Each exchange bounds the task's
// clock against the reference's: the reference read its clock after the
// ping left (t2 >= t1) and before the pong came back (t3 <= t4), so
// reference - local lay in [t3 - t4, t2 - t1], its point +- half its
// transit.  Any line through every interval is as true as the fitted one,
// and a loaded machine (every exchange waited on one way or the other)
// gives wide intervals whose points a line through a few of them turns
// into offsets and drifts of hundreds of us and ppm.  So the fit takes
// the simplest line the intervals allow: none, when the reference's clock
// lies in every sample's interval (tasks that read abmon's own clock, or
// a relay's on its host: nothing to correct); a constant offset, when one
// lies in the interval of every sample used (a drift from a few samples,
// or over a short span, is their noise); else the least-squares line.
// Both within the clocks' resolution.
bool agreeEverywhere(const std::vector<ClockSample>& all) {
  for (const ClockSample& s : all)
    if (s.t3 - s.t4 > kClockResolution || s.t2 - s.t1 < -kClockResolution) return false;
  return true;
}

// The offsets (as Point::y) inside every point's interval: empty when lo > hi.
std::pair<double, double> commonOffsets(const std::vector<Point>& p) {
  double lo = -9.0e18, hi = 9.0e18;
  for (const Point& q : p) lo = std::max(lo, q.y - q.half), hi = std::min(hi, q.y + q.half);
  const auto slack = static_cast<double>(kClockResolution);
  return {lo - slack, hi + slack};
}

}  // namespace

namespace {

// The clock records among events [from, size()): read(i) gives event i,
// its shape first (a store reads its records' shapes without decoding
// them: the window after a budget's cut is scanned again whole).
template <class Read>
std::size_t appendSamples(std::size_t size, std::size_t from, std::vector<ClockSample>& out, Read&& read) {
  for (std::size_t i = from; i < size; ++i) {
    const Event* ep = read(i);
    if (!ep) continue;
    const Event& e = *ep;
    if (e.kind != Kind::CLOCK || (e.present & 0x3f) != 0x3f) continue;
    ClockSample s;
    s.t1 = e.time;
    s.t2 = std::int64_t{e.a[kRefS]} * 1'000'000'000 + e.a[kRefNs];
    s.t3 = addTime(s.t2, e.a[kTurn]);
    s.t4 = addTime(s.t1, e.a[kRtt]);
    s.ref = e.a[kRef];
    s.phase = e.a[kPhase];
    s.number = e.rc;
    if (e.a[kTurn] < 0 || e.a[kRtt] < e.a[kTurn]) continue;  // not a possible exchange
    if (!sane(s.t1) || !sane(s.t4) || !sane(s.t2) || !sane(s.t3)) continue;
    out.push_back(s);
  }
  return std::max(from, size);
}

std::size_t appendSamples(const std::vector<Event>& ev, std::size_t from, std::vector<ClockSample>& out) {
  return appendSamples(ev.size(), from, out, [&](std::size_t i) { return &ev[i]; });
}

std::size_t appendSamples(const EventStore& ev, std::size_t from, std::vector<ClockSample>& out) {
  EventStore::Cursor c(ev);
  return appendSamples(ev.size(), from, out,
                       [&](std::size_t i) { return c.shape(i).kind == Kind::CLOCK ? &c[i] : nullptr; });
}

}  // namespace

std::size_t appendClockSamples(const Trace& trace, TaskIndex t, std::size_t from, std::vector<ClockSample>& out) {
  if (from == 0) appendSamples(trace.cutClocks(t), 0, out);  // a cut trace's clock records from before its cut
  return appendSamples(trace.events(t), from, out);
}

std::unordered_map<Tid, ClockFit> referenceFits(const Trace& trace) {
  std::unordered_map<Tid, ClockFit> out;
  for (const auto& [tid, ev] : trace.referenceClocks()) {
    std::vector<ClockSample> s;
    appendSamples(ev, 0, s);
    out[tid] = fitClock(s);
  }
  return out;
}

// PVM's tid holds the host's number (TIDHOST): a relay's fit is its host's.
constexpr Tid kTidHostMask = 0x3ffc0000;

static ClockFit relayOfHost(Tid task, const std::unordered_map<Tid, ClockFit>& relays) {
  for (const auto& [tid, fit] : relays)
    if ((tid & kTidHostMask) == (task & kTidHostMask) && tid != task) return fit;
  return {};
}

// reference = R(T(local)): both linear, so one line with T's anchor.  The
// error of the two adds up: the residuals and R's half transit are kept.
ClockFit composeFit(const ClockFit& fit, const std::unordered_map<Tid, ClockFit>& refs) {
  auto it = refs.find(fit.ref);
  if (!fit.valid || it == refs.end() || !it->second.valid || it->second.ref == fit.ref) return fit;
  const ClockFit& r = it->second;
  ClockFit c = fit;
  c.refAt = r.toReference(fit.refAt);
  c.rate = fit.rate * r.rate;
  c.via = fit.ref;
  c.ref = r.ref;
  c.maxResidual = fit.maxResidual + r.maxResidual;
  c.maxBeyond = fit.maxBeyond + r.maxBeyond;
  c.rmsResidual = std::sqrt(fit.rmsResidual * fit.rmsResidual + r.rmsResidual * r.rmsResidual);
  return c;
}

ClockFit taskClockFit(const ClockFit& own, Tid tid, const std::unordered_map<Tid, ClockFit>& relays) {
  return own.valid ? composeFit(own, relays) : relayOfHost(tid, relays);
}

std::vector<ClockSample> clockSamples(const Trace& trace, TaskIndex t) {
  std::vector<ClockSample> out;
  appendClockSamples(trace, t, 0, out);
  return out;
}

bool LiveClockFit::update(const Trace& trace) {
  if (trace.cut().position != cutAt_) {
    cutAt_ = trace.cut().position;
    tasks_.clear();
    refs_.clear();
  }
  std::unordered_map<Tid, ClockFit> relays;
  for (const auto& [tid, ev] : trace.referenceClocks()) {
    TaskClock& c = refs_[tid];
    const std::size_t before = c.samples.size();
    c.scanned = appendSamples(ev, c.scanned, c.samples);
    if (c.samples.size() != before) c.fit = fitClock(c.samples);
    relays[tid] = c.fit;
    anySamples_ = anySamples_ || !c.samples.empty();  // a relay's clock is a clock record too
  }
  bool moves = false;
  for (TaskIndex t = 0; t < trace.taskCount(); ++t) {
    const TaskInfo& task = trace.task(t);
    TaskClock& c = tasks_[task.tid];
    const std::size_t before = c.samples.size();
    c.scanned = appendClockSamples(trace, t, c.scanned, c.samples);
    if (c.samples.size() != before) {
      c.fit = fitClock(c.samples);
      anySamples_ = true;
    }
    // Checked again as the task's times grow: a drift moves later times more.
    moves = moves || fitMoves(taskClockFit(c.fit, task.tid, relays), task.firstTime, task.lastTime);
  }
  return moves;
}

bool fitMoves(const ClockFit& fit, TimeNs first, TimeNs last) {
  if (!fit.valid) return false;
  const double error = std::max(static_cast<double>(fit.minTransit) / 2, static_cast<double>(kClockResolution));
  return std::fabs(fit.offsetAt(first)) > error || std::fabs(fit.offsetAt(last)) > error;
}

TimeNs ClockFit::toReference(TimeNs local) const {
  TimeNs since;
  if (!valid || __builtin_sub_overflow(local, localAt, &since)) return local;  // a corrupt date: as it is
  double moved = static_cast<double>(since) * rate;
  if (std::fabs(moved) >= 9.0e18) return local;
  return addTime(refAt, static_cast<TimeNs>(std::llround(moved)));
}

ClockFit fitClock(const std::vector<ClockSample>& samples) {
  ClockFit f;
  f.samples = samples.size();
  if (samples.empty()) return f;
  std::vector<ClockSample> kept = fastest(samples);
  f.minTransit = kept.front().transit();
  for (const ClockSample& s : kept) f.minTransit = std::min(f.minTransit, s.transit());
  kept = gated(kept, f.minTransit);
  // Relative to the first sample: doubles then hold nanoseconds exactly.
  f.localAt = kept.front().local();
  TimeNs off0 = kept.front().reference() - f.localAt;
  auto points = [&](const std::vector<ClockSample>& ss) {
    std::vector<Point> p;
    for (const ClockSample& s : ss)
      p.push_back({static_cast<double>(s.local() - f.localAt),
                   static_cast<double>(s.reference() - s.local()) - static_cast<double>(off0),
                   weight(s.transit(), f.minTransit), static_cast<double>(s.transit()) / 2});
    return p;
  };
  std::vector<Point> p = points(kept);
  double span = p.back().x - p.front().x;
  for (const Point& q : p) span = std::max(span, q.x);
  f.rateFitted = span >= static_cast<double>(kMinDriftSpan);
  Line l = leastSquares(p, f.rateFitted);
  // One outlier pass: drop what lies far beyond the median residual and
  // beyond what its own transit allows (a slower sample may honestly be
  // further off: the weights already count it less).  A pass that would
  // leave the samples spanning less than kMinDriftSpan keeps them all: a
  // rate fitted over one phase's milliseconds is noise (a tight start
  // phase made the median tiny, and the end phase was cut as outliers).
  std::vector<double> res;
  for (const Point& q : p) res.push_back(std::fabs(q.y - (l.a + l.b * q.x)));
  std::vector<double> sorted = res;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  double cut = std::max(kOutlierFactor * sorted[sorted.size() / 2], 1000.0);
  std::vector<Point> good;
  double lo = 0, hi = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (res[i] > std::max(cut, p[i].half)) continue;
    lo = good.empty() ? p[i].x : std::min(lo, p[i].x);
    hi = good.empty() ? p[i].x : std::max(hi, p[i].x);
    good.push_back(p[i]);
  }
  if (f.rateFitted && hi - lo < static_cast<double>(kMinDriftSpan)) good = p;
  if (good.size() >= 2 && good.size() < p.size()) l = leastSquares(good, f.rateFitted);
  if (good.empty()) good = p;
  f.used = good.size();
  if (agreeEverywhere(samples)) {
    l = {-static_cast<double>(off0), 0};
    f.rateFitted = false;
  } else if (auto [lo, hi] = commonOffsets(good); lo <= hi) {
    if (f.rateFitted) l = leastSquares(good, false);
    l = {std::clamp(l.a, lo, hi), 0};
    f.rateFitted = false;
  }
  double ss = 0, worst = 0, beyond = 0;
  for (const Point& q : good) {
    double r = q.y - (l.a + l.b * q.x);
    ss += r * r;
    worst = std::max(worst, std::fabs(r));
    beyond = std::max(beyond, std::fabs(r) - q.half);
  }
  f.maxBeyond = static_cast<TimeNs>(beyond);
  f.rmsResidual = std::sqrt(ss / static_cast<double>(good.size()));
  f.maxResidual = static_cast<TimeNs>(worst);
  f.refAt = addTime(f.localAt + off0, static_cast<TimeNs>(std::llround(std::clamp(l.a, -9.0e18, 9.0e18))));
  f.rate = 1.0 + l.b;
  f.ref = samples.back().ref;
  f.valid = true;
  return f;
}


void ClockFitter::add(const Trace& piece) {
  for (TaskIndex t = 0; t < piece.taskCount(); ++t) {
    auto s = clockSamples(piece, t);
    if (s.empty()) continue;
    auto& all = samples_[piece.task(t).tid];
    all.insert(all.end(), s.begin(), s.end());
  }
  for (const auto& [tid, ev] : piece.referenceClocks()) appendSamples(ev, 0, samples_[tid]);
}

std::unordered_map<Tid, ClockFit> ClockFitter::fit() const {
  std::unordered_map<Tid, ClockFit> out;
  for (const auto& [tid, s] : samples_) out[tid] = fitClock(s);
  std::unordered_map<Tid, ClockFit> composed;
  for (const auto& [tid, f] : out) composed[tid] = composeFit(f, out);
  return composed;
}

}  // namespace xab
