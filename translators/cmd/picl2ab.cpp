// picl2ab -- a PICL 2.0 trace (MPICL, or anything written for ParaGraph)
// as an xab trace, for xabview and abstat.
#include <xab/translators/cli.h>
#include <xab/translators/io.h>
#include <xab/translators/picl.h>

#include <cstdio>
#include <string>

using namespace xab::tr;

int main(int argc, char** argv) {
  bool quiet = false;
  CliSpec spec{
      "picl2ab", "[options] [INPUT|-]",
      "Translates a PICL 2.0 trace to the xab text trace (docs/trace-format.md).  Node n becomes\n"
      "task t40001+n; sends and receives become matched messages (serials per sender, matched\n"
      "per source, destination and tag in order); barriers stay barriers; user events become\n"
      "marks; records of unknown types are skipped and counted.",
      "write the xab trace to OUTPUT instead of standard output",
      1,
      {{"--quiet", "", "no summary on stderr", [&](std::string_view) { quiet = true; return std::string(); }}},
      false};
  CommonArgs args;
  if (int rc = parseCommandLine(argc, argv, spec, args); rc >= 0) return rc;
  std::string text;
  if (std::string err = slurp(args.input, "picl2ab", args.progress, text); !err.empty()) {
    std::fprintf(stderr, "picl2ab: %s\n", err.c_str());
    return kExitUsage;
  }
  Sink out;
  if (std::string err = out.open(args.output); !err.empty()) {
    std::fprintf(stderr, "picl2ab: %s\n", err.c_str());
    return kExitUsage;
  }
  PiclReadOptions o;
  o.name = displayName(args.input);
  o.lenient = args.lenient;
  PiclReadResult r = piclToXab(text, out, o);
  for (const std::string& w : r.warnings) std::fprintf(stderr, "picl2ab: %s (line skipped)\n", w.c_str());
  if (!r.error.empty()) {
    std::fprintf(stderr, "picl2ab: %s\n", r.error.c_str());
    return kExitBadInput;
  }
  if (std::string err = out.finish(); !err.empty()) {
    std::fprintf(stderr, "picl2ab: %s\n", err.c_str());
    return kExitUsage;
  }
  if (!quiet) {
    std::fprintf(stderr, "picl2ab: %llu records, %d nodes, %llu unknown records skipped, %llu receives without a send, %llu malformed lines skipped\n",
                 static_cast<unsigned long long>(r.records), r.nodes, static_cast<unsigned long long>(r.unknown),
                 static_cast<unsigned long long>(r.unmatched), static_cast<unsigned long long>(r.malformed));
    if (r.unknown > 0) {
      std::string what;
      for (auto& [code, n] : r.skipped) what += " event " + std::to_string(code) + ": " + std::to_string(n) + ",";
      for (auto& [type, n] : r.skippedTypes) what += " record type " + std::to_string(type) + ": " + std::to_string(n) + ",";
      what.pop_back();
      std::fprintf(stderr, "picl2ab: skipped:%s\n", what.c_str());
    }
    if (r.shift > 0)
      std::fprintf(stderr, "picl2ab: the file has negative times: every time moved %.9f s later\n",
                   static_cast<double>(r.shift) / 1e9);
  }
  return kExitOk;
}
