#include <xab/translators/cli.h>

#include <xab/model/reader.h>
#include <xab/translators/io.h>
#include <xab/version.h>

#include <cstdio>

namespace xab::tr {
namespace {

void printHelp(const CliSpec& s) {
  std::printf("usage: %.*s %.*s\n\n%.*s\n\noptions:\n", int(s.program.size()), s.program.data(),
              int(s.synopsis.size()), s.synopsis.data(), int(s.summary.size()), s.summary.data());
  auto row = [](std::string_view opt, std::string_view help) {
    std::printf("  %-22.*s %.*s\n", int(opt.size()), opt.data(), int(help.size()), help.data());
  };
  row("-o, --output OUTPUT", s.outputHelp);
  for (const CliOption& o : s.options)
    row(std::string(o.name) + (o.argName.empty() ? "" : " " + std::string(o.argName)), o.help);
  row("--lenient", "skip malformed lines (each reported) instead of stopping at the first");
  row("--no-progress", "no progress bar (it is shown only on a terminal anyway)");
  if (s.readsXabTrace) {
    row("--raw-time", "times as each task's clock recorded them, not global time (docs/global-time.md)");
    row("--compensate", "take xab's measured cost out of the times (reads the whole trace first; docs/compensation.md)");
    row("--replay-of DIR", "the trace is of a replay of record DIR: dates corrected to the recorded run's (DIR may be a full trace: abreplay --from-trace; reads the whole trace first; docs/replay.md)");
  }
  row("-h, --help", "this help");
  row("--version", "the version, and the trace format it reads and writes");
  std::printf("\nexit status: 0 ok, 1 usage or I/O error, 2 malformed input (FILE:LINE: reason).\n"
              "See man %.*s and docs/translators.md.\n", int(s.program.size()), s.program.data());
}

int usage(const CliSpec& s, const std::string& why) {
  std::fprintf(stderr, "%.*s: %s\nTry '%.*s --help'.\n", int(s.program.size()), s.program.data(),
               why.c_str(), int(s.program.size()), s.program.data());
  return kExitUsage;
}

}  // namespace

int parseCommandLine(int argc, char** argv, const CliSpec& spec, CommonArgs& out) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value = [&](std::string& v) {
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    if (a == "-h" || a == "--help") {
      printHelp(spec);
      return kExitOk;
    }
    if (a == "--version") {
      std::printf("%.*s (xab) %s, trace format %d\n", int(spec.program.size()), spec.program.data(),
                  XAB_VERSION_STRING, kTraceFormatVersion);
      return kExitOk;
    }
    if (a == "-o" || a == "--output") {
      if (!value(out.output)) return usage(spec, "option " + std::string(a) + " needs an argument");
      continue;
    }
    if (a == "--lenient") { out.lenient = true; continue; }
    if (a == "--no-progress") { out.progress = false; continue; }
    if (a == "--raw-time" && spec.readsXabTrace) { out.rawTime = true; continue; }
    if (a == "--compensate" && spec.readsXabTrace) { out.compensate = true; continue; }
    if (a == "--replay-of" && spec.readsXabTrace) {
      if (!value(out.replayOf)) return usage(spec, "option --replay-of needs an argument");
      continue;
    }
    if (a.size() > 1 && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
      const CliOption* opt = nullptr;
      for (const CliOption& o : spec.options)
        if (o.name == a) opt = &o;
      if (!opt) return usage(spec, "unknown option " + std::string(a));
      std::string arg;
      if (!opt->argName.empty() && !value(arg))
        return usage(spec, "option " + std::string(a) + " needs an argument");
      std::string why = opt->take(arg);
      if (!why.empty()) return usage(spec, std::string(a) + ": " + why);
      continue;
    }
    out.positional.emplace_back(a);
  }
  if (out.positional.size() > spec.maxOperands)
    return usage(spec, "too many operands (" + out.positional.back() + ")");
  if (spec.maxOperands == 1 && !out.positional.empty()) out.input = out.positional.back();
  return -1;
}

}  // namespace xab::tr
