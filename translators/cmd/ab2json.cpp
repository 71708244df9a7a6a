// ab2json -- an xab trace as Chrome trace-event JSON, for the Perfetto UI
// (ui.perfetto.dev) and chrome://tracing.
#include <xab/translators/cli.h>
#include <xab/translators/io.h>
#include <xab/translators/json.h>

#include <cstdio>

using namespace xab::tr;

int main(int argc, char** argv) {
  bool quiet = false;
  CliSpec spec{
      "ab2json", "[options] [INPUT|-]",
      "Translates an xab trace to Chrome trace-event JSON for the Perfetto UI and chrome://tracing:\n"
      "hosts are processes, tasks threads, each PVM call a slice with its arguments, each\n"
      "message a flow arrow from send to receive, barrier waits slices named \"barrier wait (GROUP)\".",
      "write the JSON to OUTPUT instead of standard output",
      1,
      {{"--quiet", "", "no summary on stderr", [&](std::string_view) { quiet = true; return std::string(); }}}};
  CommonArgs args;
  if (int rc = parseCommandLine(argc, argv, spec, args); rc >= 0) return rc;
  Sink out;
  if (std::string err = out.open(args.output); !err.empty()) {
    std::fprintf(stderr, "ab2json: %s\n", err.c_str());
    return kExitUsage;
  }
  JsonStream json(out);
  if (int rc = streamInput({args.input, "ab2json", args.lenient, args.progress, !args.rawTime, args.compensate, args.replayOf}, json.stream()); rc != kExitOk)
    return rc;
  JsonWriteStats s = json.finish();
  if (std::string err = out.finish(); !err.empty()) {
    std::fprintf(stderr, "ab2json: %s\n", err.c_str());
    return kExitUsage;
  }
  if (!quiet)
    std::fprintf(stderr, "ab2json: %llu slices, %llu instants, %llu message flows\n",
                 static_cast<unsigned long long>(s.slices), static_cast<unsigned long long>(s.instants),
                 static_cast<unsigned long long>(s.flows));
  return kExitOk;
}
