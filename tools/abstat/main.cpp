// abstat: summarise an xab trace (see docs/man/abstat.1).
#include "analysis.h"
#include "input.h"
#include "options.h"
#include "reports.h"

#include <cstdio>

using namespace xab;
using namespace xab::abstat;

namespace {

Report analyseReader(const Options& o, const TraceReader& r, std::shared_ptr<const Trace> trace) {
  Report a;
  static_cast<xab::Analysis&>(a) = xab::analyse(std::move(trace));
  a.source = o.input;
  a.errors = r.errors();
  if (a.errors.size() > o.showErrors) a.errors.resize(o.showErrors);
  a.errorCount = r.errorCount();
  a.bytes = r.byteCount();
  return a;
}

void print(const Options& o, const Report& a, bool live) {
  std::string out = o.json ? jsonReport(a, o.sections, !live && !o.follow) : textReport(a, o.sections);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

void reportErrors(const Options& o, const TraceReader& r) {
  std::size_t shown = 0;
  for (const ReadError& e : r.errors()) {
    if (shown++ == o.showErrors) break;
    std::fprintf(stderr, "abstat: %s:%llu: %s\n", o.input.c_str(), static_cast<unsigned long long>(e.line),
                 e.reason.c_str());
  }
  if (r.errorCount() > shown)
    std::fprintf(stderr, "abstat: %llu malformed lines in all\n", static_cast<unsigned long long>(r.errorCount()));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (int rc = parseOptions(argc, argv, o); rc >= 0) return rc;
  ReadOptions ro;
  ro.stopOnError = o.strict;
  TraceReader reader(ro);

  // In --follow mode the hang diagnosis is printed each time progress stops.
  Sections stallSections;
  stallSections.hang = true;
  auto onStall = [&](const TraceReader& r, double stalled) {
    Report a = analyseReader(o, r, r.snapshot());
    if (!a.hang.hung) return;
    a.stalledFor = stalled;
    Options so = o;
    so.sections = stallSections;
    print(so, a, true);
  };
  std::string ioError = readInput(o, reader, onStall);
  if (!ioError.empty()) {
    std::fprintf(stderr, "abstat: %s\n", ioError.c_str());
    return kExitError;
  }
  if (reader.stoppedReading()) {
    std::fprintf(stderr, "abstat: %s: %s\n", o.input.c_str(), reader.fatal().c_str());
    return kExitError;
  }
  reportErrors(o, reader);
  std::shared_ptr<const Trace> trace = reader.take();
  if (trace->eventCount() == 0 && trace->monitorEvents().empty() && !trace->header().present) {
    // Not a trace (empty, or every line malformed): a report of "0 events"
    // would pass for a quiet program.  A header alone is a trace of nothing.
    const char* name = o.input.empty() ? "-" : o.input.c_str();
    if (reader.byteCount() == 0)
      std::fprintf(stderr, "abstat: %s: no records read (the input is empty)\n", name);
    else
      std::fprintf(stderr, "abstat: %s: no records read (%llu malformed line%s): is it an xab trace?\n", name,
                   static_cast<unsigned long long>(reader.errorCount()), reader.errorCount() == 1 ? "" : "s");
    return kExitError;
  }
  Report a = analyseReader(o, reader, trace);
  if (!a.messages.consistent())
    std::fprintf(stderr, "abstat: %s: warning: %s\n", o.input.c_str(), inconsistencyWarning(a.messages).c_str());
  print(o, a, false);
  return exitStatus(a);
}
