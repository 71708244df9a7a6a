// ab2picl -- an xab trace as PICL 2.0, for ParaGraph.
#include <xab/model/memory.h>
#include <xab/translators/cli.h>
#include <xab/translators/io.h>
#include <xab/translators/picl.h>

#include <cstdio>

using namespace xab::tr;

int main(int argc, char** argv) {
  xab::returnFreedArrays();
  std::string nodesFile;
  bool quiet = false;
  CliSpec spec{
      "ab2picl", "[options] [INPUT|-]",
      "Translates an xab trace (abmon's output) to PICL 2.0, the trace format ParaGraph reads.\n"
      "One record per line, sorted by time; each task becomes a node (0..P-1).  The node\n"
      "table (node, tid, task) and the user event codes of marks go to stderr or --nodes FILE.\n"
      "Receives that would end before their message was sent are moved (and counted).",
      "write the PICL trace to OUTPUT instead of standard output",
      1,
      {{"--nodes", "FILE", "write the node table and mark codes to FILE instead of stderr",
        [&](std::string_view v) { nodesFile = v; return std::string(); }},
       {"--quiet", "", "no node table or summary on stderr",
        [&](std::string_view) { quiet = true; return std::string(); }}}};
  CommonArgs args;
  if (int rc = parseCommandLine(argc, argv, spec, args); rc >= 0) return rc;
  Sink out;
  if (std::string err = out.open(args.output); !err.empty()) {
    std::fprintf(stderr, "ab2picl: %s\n", err.c_str());
    return kExitUsage;
  }
  Input in = readTrace({args.input, "ab2picl", args.lenient, args.progress, !args.rawTime, args.compensate, args.replayOf});
  if (!in.trace) return in.exitCode;
  PiclWriteStats stats = writePicl(*in.trace, out);
  if (std::string err = out.finish(); !err.empty()) {
    std::fprintf(stderr, "ab2picl: %s\n", err.c_str());
    return kExitUsage;
  }
  if (!nodesFile.empty() || !quiet) {
    Sink table;
    if (nodesFile.empty()) table.openStderr();
    else if (std::string err = table.open(nodesFile); !err.empty()) {
      std::fprintf(stderr, "ab2picl: %s\n", err.c_str());
      return kExitUsage;
    }
    writeNodeTable(*in.trace, stats, table);
    table.finish();
  }
  if (!quiet)
    std::fprintf(stderr, "ab2picl: %llu records, %llu receives moved after their send (%llu events moved with them)\n",
                 static_cast<unsigned long long>(stats.records), static_cast<unsigned long long>(stats.moved),
                 static_cast<unsigned long long>(stats.shifted));
  return kExitOk;
}
