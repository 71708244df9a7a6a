// ab2otf2 -- an xab trace as an OTF2 archive, for Vampir and otf2-print.
#include <xab/translators/cli.h>
#include <xab/translators/io.h>
#include <xab/translators/otf2.h>

#include <cstdio>

using namespace xab::tr;

int main(int argc, char** argv) {
  bool quiet = false;
  CliSpec spec{
      "ab2otf2", "[options] -o DIR [INPUT|-]",
      "Translates an xab trace to an OTF2 archive in DIR (DIR/traces.otf2 is the anchor file),\n"
      "for Vampir and otf2-print: a location per task, a region per PVM call, messages as\n"
      "MpiSend/MpiRecv (one communicator of all tasks, rank = node number as ab2picl numbers\n"
      "them), barriers and reduce/gather/scatter as collectives on a communicator per group.",
      "the archive's directory (required; created if missing, must not hold an archive)",
      1,
      {{"--quiet", "", "no summary on stderr", [&](std::string_view) { quiet = true; return std::string(); }}}};
  CommonArgs args;
  if (int rc = parseCommandLine(argc, argv, spec, args); rc >= 0) return rc;
  if (args.output.empty() || args.output == "-") {
    std::fprintf(stderr, "ab2otf2: an OTF2 archive is a directory: give it with -o DIR\nTry 'ab2otf2 --help'.\n");
    return kExitUsage;
  }
  Otf2Stream otf2(args.output);
  if (!otf2.error().empty()) {
    std::fprintf(stderr, "ab2otf2: %s\n", otf2.error().c_str());
    return kExitUsage;
  }
  if (int rc = streamInput({args.input, "ab2otf2", args.lenient, args.progress, !args.rawTime, args.compensate, args.replayOf}, otf2.stream()); rc != kExitOk)
    return rc;
  Otf2WriteStats s = otf2.finish();
  if (!s.error.empty()) {
    std::fprintf(stderr, "ab2otf2: %s\n", s.error.c_str());
    return kExitUsage;
  }
  if (!quiet)
    std::fprintf(stderr, "ab2otf2: %s/traces.otf2: %u locations, %u regions, %llu events (%llu sends, %llu receives, %llu collectives)\n",
                 args.output.c_str(), s.locations, s.regions, static_cast<unsigned long long>(s.events),
                 static_cast<unsigned long long>(s.sends), static_cast<unsigned long long>(s.receives),
                 static_cast<unsigned long long>(s.collectives));
  return kExitOk;
}
