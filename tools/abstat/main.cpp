// abstat: summarise an xab trace (see docs/man/abstat.1).
#include "analysis.h"
#include "input.h"
#include "options.h"
#include "reports.h"

#include <xab/model/memory.h>

#include <cstdio>

using namespace xab;
using namespace xab::abstat;

namespace xab::abstat {

Report analyseReader(const Options& o, const TraceReader& r, std::shared_ptr<const Trace> trace) {
  Report a;
  a.globalTime = !o.rawTime;
  a.compensated = o.compensate;
  a.replayOf = o.replayOf;
  TimeBase base{.globalTime = a.globalTime, .compensate = a.compensated, .correct = {}};
  if (o.record) base.correct = replay::correctionTo(*o.record, a.replay, {.holdOutEvery = o.replayCheck});
  TimeBaseReport timeBase;
  trace = prepare(std::move(trace), base, timeBase);
  // What global time freed goes back before the analyses allocate: the
  // message chain's, on a second thread, come from another malloc arena.
  returnFreedPages();
  a.clock = std::move(timeBase.clock);
  a.compensation = std::move(timeBase.compensation);
  AnalyseOptions options;
  options.parallel = true;  // the messages' chain on a second core
  options.why = o.sections.why || !o.compare.empty();
  options.messages = std::move(timeBase.messages);
  static_cast<xab::Analysis&>(a) = xab::analyse(std::move(trace), options);
  if (a.globalTime) a.clockQuality = assessClocks(*a.trace, a.clock);
  a.source = o.input;
  a.errors = r.errors();
  if (a.errors.size() > o.showErrors) a.errors.resize(o.showErrors);
  a.errorCount = r.errorCount();
  a.bytes = r.byteCount();
  return a;
}

}  // namespace xab::abstat

namespace {

void print(const Options& o, const Report& a, bool live) {
  std::string out = o.json ? jsonReport(a, o.sections, !live && !o.follow) : textReport(a, o.sections);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  returnFreedArrays();
  Options o;
  if (int rc = parseOptions(argc, argv, o); rc >= 0) return rc;
  if (!o.compare.empty()) return compareMain(o);
  if (!o.replayOf.empty()) try {
      o.record = std::make_shared<const replay::RecordSet>(replay::RecordSet::open(o.replayOf));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "abstat: %s\n", e.what());
      return kExitError;
    }
  TraceSource source = openInput(o);

  // In --follow mode the hang diagnosis is printed each time progress stops.
  Sections stallSections;
  stallSections.hang = true;
  auto window = [&](Report::Window& w) {
    w = {o.windowed(), o.budget, source.cuts(), source.reader().runRecords()};
  };
  auto onStall = [&](const TraceReader& r, double stalled) {
    Report a = analyseReader(o, r, r.snapshot());
    window(a.window);
    if (!a.hang.hung) return;
    a.stalledFor = stalled;
    Options so = o;
    so.sections = stallSections;
    print(so, a, true);
  };
  readInput(o, source, onStall);
  if (!inputUsable(o, source)) return kExitError;
  TraceReader& reader = source.reader();
  Report::Window read{};
  window(read);  // before take(), which empties the reader
  std::shared_ptr<const Trace> trace = reader.take();
  // The output section merges the tasks' lines by their times as recorded:
  // it keeps the trace as read (else global time re-dates it in place).
  std::shared_ptr<const Trace> recorded = o.sections.output ? trace : nullptr;
  Report a = analyseReader(o, reader, std::move(trace));
  a.window = read;
  if (!a.messages.consistent())
    std::fprintf(stderr, "abstat: %s: warning: %s\n", source.name().c_str(), inconsistencyWarning(a.messages).c_str());
  Sections rest = o.sections;
  rest.output = false;
  if (rest.any()) {
    Options ro = o;
    ro.sections = rest;
    print(ro, a, false);
  }
  if (o.sections.output) {
    bool found = false;
    std::string out = outputReport(*recorded, o.outputTask, found);
    if (!found) {
      std::fprintf(stderr, "abstat: no task %s in %s\n", o.outputTask.c_str(), source.name().c_str());
      return kExitError;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  return exitStatus(a);
}
