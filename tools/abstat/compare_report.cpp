// abstat --compare: runs of one program side by side (the model's
// compareRuns, xab/model/compare.h), as text or JSON.
#include "input.h"
#include "json_writer.h"
#include "reports.h"

#include <cstdio>

namespace xab::abstat {
namespace {

std::string text(const std::vector<Report>& runs, const RunComparison& c, const Options& o) {
  std::string out = "Comparing " + std::to_string(runs.size()) + " runs:";
  for (std::size_t i = 0; i < runs.size(); ++i)
    out += std::string(i ? "," : "") + " " + std::string(1, static_cast<char>('A' + std::min<std::size_t>(i, 25))) + " " +
           o.compare[i] + " (" + fmt("%.6f", durationSeconds(runs[i].trace->lastTime() - runs[i].trace->firstTime())) + " s)";
  out += "\n";
  if (!c.sameShape) {
    out += "\nDifferent program shape: these are not runs of the same program, or it took another path\n";
    for (const std::string& s : c.shape) out += "  " + s + "\n";
    return out;
  }
  out += "\nDifferences, " + o.compare[0] + " -> " + o.compare[1] + " (largest first; a cause before the waits it explains)\n";
  if (c.differences.empty()) out += "  none\n";
  for (const RunDifference& d : c.differences) out += std::string(d.explainedBy >= 0 ? "      " : "  ") + d.words + "\n";
  if (runs.size() > 2) {
    out += "\nSpread over " + std::to_string(runs.size()) + " runs (seconds: min / mean / max)\n";
    for (const TaskSpread& s : c.spread)
      out += "  " + s.task + "  run " + fmt("%.6f", s.minRun) + " / " + fmt("%.6f", s.meanRun) + " / " + fmt("%.6f", s.maxRun) +
             "  compute " + fmt("%.6f", s.minCompute) + " / " + fmt("%.6f", s.meanCompute) + " / " + fmt("%.6f", s.maxCompute) + "\n";
  }
  if (c.placementDiffers) {
    out += "\nPer host (the runs placed tasks differently)\n";
    for (const HostSpread& h : c.hosts)
      out += "  " + (h.host.empty() ? std::string("?") : h.host) + "  " + std::to_string(h.placements) + " tasks, mean compute " +
             fmt("%.6f", h.meanCompute) + " s, mean run " + fmt("%.6f", h.meanRun) + " s\n";
  }
  return out;
}

std::string json(const std::vector<Report>& runs, const RunComparison& c, const Options& o) {
  JsonWriter w(true);
  w.beginObject().field("abstat", 1).key("compare").beginObject();
  w.key("runs").beginArray();
  for (std::size_t i = 0; i < runs.size(); ++i)
    w.beginObject().field("source", o.compare[i])
        .field("duration", durationSeconds(runs[i].trace->lastTime() - runs[i].trace->firstTime())).endObject();
  w.endArray().field("sameShape", c.sameShape).key("shape").beginArray();
  for (const std::string& s : c.shape) w.value(s);
  w.endArray().key("differences").beginArray();
  for (const RunDifference& d : c.differences) {
    w.beginObject().field("what", d.what);
    if (d.task.empty()) w.key("task").null();
    else w.key("task").beginObject().field("label", d.task).field("tid", formatTid(d.tidB ? d.tidB : d.tidA)).endObject();
    w.field("unit", d.unit).field("a", d.a).field("b", d.b).field("delta", d.delta);
    if (d.explainedBy >= 0) w.field("explainedBy", static_cast<std::int64_t>(d.explainedBy));
    if (!d.explains.empty()) {
      w.key("explains").beginArray();
      for (std::size_t e : d.explains) w.value(static_cast<std::uint64_t>(e));
      w.endArray();
    }
    w.field("text", d.words).endObject();
  }
  w.endArray().key("spread").beginArray();
  for (const TaskSpread& s : c.spread) {
    w.beginObject().field("task", s.task).field("minRun", s.minRun).field("meanRun", s.meanRun).field("maxRun", s.maxRun);
    w.field("minCompute", s.minCompute).field("meanCompute", s.meanCompute).field("maxCompute", s.maxCompute);
    w.key("hosts").beginArray();
    for (const std::string& h : s.hosts) w.value(h);
    w.endArray().endObject();
  }
  w.endArray().field("placementDiffers", c.placementDiffers).key("hosts").beginArray();
  for (const HostSpread& h : c.hosts)
    w.beginObject().field("host", h.host).field("placements", static_cast<std::uint64_t>(h.placements))
        .field("meanCompute", h.meanCompute).field("meanRun", h.meanRun).endObject();
  w.endArray().endObject().endObject();
  return w.str() + "\n";
}

}  // namespace

int compareMain(const Options& o) {
  std::vector<Report> runs;
  for (const std::string& file : o.compare) {
    Options one = o;
    one.input = file;
    TraceSource source = openInput(one);
    readInput(one, source, [](const TraceReader&, double) {});
    if (!inputUsable(one, source)) return kExitError;
    TraceReader& reader = source.reader();
    std::shared_ptr<const Trace> trace = reader.take();
    runs.push_back(analyseReader(one, reader, trace));
  }
  std::vector<const Analysis*> views;
  for (const Report& r : runs) views.push_back(&r);
  RunComparison c = compareRuns(views);
  std::string out = o.json ? json(runs, c, o) : text(runs, c, o);
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (!c.sameShape) {
    std::fprintf(stderr, "abstat: %s and %s are of a different program shape\n", o.compare[0].c_str(), o.compare[1].c_str());
    return kExitError;
  }
  return kExitOk;
}

}  // namespace xab::abstat
