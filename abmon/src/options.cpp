#include "options.h"

#include <xab/wire.h>

#include <charconv>
#include <climits>

namespace xab::abmon {
namespace {

bool parseInt(std::string_view text, int min, int max, int& out) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || value < min || value > max)
    return false;
  out = value;
  return true;
}

// --relay TID,CONTEXT[,PORT] (relay.h, relay_stream.h): "" or what is
// wrong.  The stream's token comes in a PVM message (relay.h, StreamToken);
// a fourth part is the old form, which put it on the command line.
std::string parseRelay(std::string_view v, Options& opts) {
  const std::string bad = "option --relay: \"" + std::string(v) + "\" is not TID,CONTEXT[,PORT]";
  std::string_view part[4];
  int n = 0;
  for (bool more = true; more && n < 4; ++n) {  // "a,b," is three parts, the last empty
    auto comma = v.find(',');
    part[n] = v.substr(0, comma);
    more = comma != std::string_view::npos;
    v = more ? v.substr(comma + 1) : std::string_view{};
  }
  if (n == 4 && v.empty() && !part[3].empty())
    return "option --relay: TID,CONTEXT,PORT,TOKEN is an older abmon's (the token no longer goes on the command "
           "line); abmon starts its relays with its own program";
  if (!v.empty() || (n != 2 && n != 3)) return bad;
  if (!parseInt(part[0], 1, INT_MAX, opts.relayOf) || !parseInt(part[1], INT_MIN, INT_MAX, opts.relayContext))
    return bad;
  if (n == 3 && !parseInt(part[2], 1, 65535, opts.relayPort)) return bad;
  return {};
}

// -v, -vv, -vvv ...
bool isRepeatedFlag(std::string_view arg, char letter) {
  return arg.size() >= 2 && arg[0] == '-' && arg.find_first_not_of(letter, 1) == std::string_view::npos;
}

// Options that take a number: name, where it goes, allowed range.
struct NumberOption {
  std::string_view name;
  int Options::*field;
  int min;
  int max;
};
constexpr NumberOption kNumberOptions[] = {
    {"--batch", &Options::batch, 1, 1 << 20},
    {"--flush-ms", &Options::flushMs, 0, 3600 * 1000},
    {"--poke-ms", &Options::pokeMs, 0, 3600 * 1000},
    // abmon uses tag .. tag + XAB_TAG_OFFSET_MAX (wire.h's table of tags).
    {"--tag", &Options::tag, 0, INT_MAX - XAB_TAG_OFFSET_MAX},
    {"--ready-fd", &Options::readyFd, 0, INT_MAX},
    {"--sample-ms", &Options::sampleMs, 0, 3600 * 1000},
};

}  // namespace

int defaultPokeMs(int flushMs) {
  long ms = static_cast<long>(flushMs) * 3 / 2;
  return static_cast<int>(ms < 20 ? 20 : ms > 500 ? 500 : ms);
}

std::string parseOptions(const std::vector<std::string_view>& args, Options& opts) {
  opts = Options{};
  opts.batch = XAB_DEFAULT_BATCH;
  opts.flushMs = XAB_DEFAULT_FLUSH_MS;
  opts.tag = XAB_DEFAULT_TAG;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::string_view value;
    bool hasInline = false;
    if (arg.starts_with("--") && arg.find('=') != std::string_view::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      hasInline = true;
    }
    auto nextValue = [&](std::string_view& v) {
      if (hasInline) { v = value; return true; }
      if (i + 1 >= args.size()) return false;
      v = args[++i];
      return true;
    };
    if (arg == "--" && !hasInline) {
      for (std::size_t j = i + 1; j < args.size(); ++j) opts.program.emplace_back(args[j]);
      if (opts.program.empty()) return "-- needs a program to run";
      break;
    }
    if (arg == "-h" || arg == "--help") { opts.help = true; continue; }
    if (arg == "--version") { opts.version = true; continue; }
    if (arg == "--verbose") { ++opts.verbosity; continue; }
    if (arg == "--quiet") { --opts.verbosity; continue; }
    if (arg == "--pvm-only") { opts.pvmOnly = true; continue; }
    if (arg == "--pvm-tracer") { opts.pvmTracer = true; continue; }
    if (arg == "--no-relays") { opts.noRelays = true; continue; }
    if (arg == "--relay-step") { opts.relayStep = true; continue; }
    if (arg == "--relay-pvm") { opts.relayPvm = true; continue; }
    if (arg == "--relay") {
      std::string_view v;
      if (!nextValue(v)) return "option --relay needs TID,CONTEXT[,PORT]";
      if (std::string error = parseRelay(v, opts); !error.empty()) return error;
      continue;
    }
    if (isRepeatedFlag(arg, 'v')) { opts.verbosity += static_cast<int>(arg.size() - 1); continue; }
    if (isRepeatedFlag(arg, 'q')) { opts.verbosity -= static_cast<int>(arg.size() - 1); continue; }
    if (arg == "--control") {
      std::string_view path;
      if (!nextValue(path) || path.empty()) return "option --control needs a socket path";
      opts.control = path;
      continue;
    }
    if (arg == "-o" || arg == "--output") {
      std::string_view file;
      if (!nextValue(file)) return "option " + std::string(arg) + " needs a file name";
      opts.output = file;
      continue;
    }
    bool known = false;
    for (const NumberOption& opt : kNumberOptions) {
      if (arg != opt.name) continue;
      known = true;
      std::string_view v;
      if (!nextValue(v)) return "option " + std::string(arg) + " needs a number";
      if (!parseInt(v, opt.min, opt.max, opts.*opt.field))
        return "option " + std::string(arg) + ": \"" + std::string(v) + "\" is not a number from " +
               std::to_string(opt.min) + " to " + std::to_string(opt.max);
    }
    if (!known) return "unknown argument \"" + std::string(args[i]) + "\"";
  }
  if (opts.pokeMs < 0) opts.pokeMs = defaultPokeMs(opts.flushMs);
  return {};
}

std::string_view usageText() {
  return "Usage: abmon [-o FILE] [-v|-q] [--batch N] [--flush-ms MS] [--poke-ms MS] [--tag T]\n"
         "             [--sample-ms MS] [--pvm-only] [--pvm-tracer] [--no-relays] [--relay-pvm] [--control PATH]\n"
         "             [--ready-fd N] [-- PROGRAM [ARGS...]]\n"
         "\n"
         "Monitor for xab: receives the events of every instrumented PVM task in\n"
         "this virtual machine and writes one trace record per event\n"
         "(docs/trace-format.md).  Start it before the program; stop it with\n"
         "SIGINT (Ctrl-C) or SIGTERM.\n"
         "\n"
         "  -o, --output FILE  write the trace to FILE (default: standard output)\n"
         "  -v, --verbose      more diagnostics on standard error (-vv, -vvv: more)\n"
         "  -q, --quiet        fewer diagnostics (-q errors only, -qq none)\n"
         "      --batch N      events a task buffers before it sends them (default 512)\n"
         "      --flush-ms MS  longest a busy task holds events back (default 200)\n"
         "      --poke-ms MS   ask a task that has been quiet this long for its\n"
         "                     events, so a blocked task shows (default 1.5 x\n"
         "                     flush-ms, at most 500; 0: never, tasks then send\n"
         "                     before every call that may block)\n"
         "      --tag T        message tag of event messages (default 31408)\n"
         "      --sample-ms MS sample every task of each host (CPU time, time\n"
         "                     waiting for a CPU, state) and the host (load, CPU\n"
         "                     use) this often: abmon its own host, each relay its\n"
         "                     own (default 100; 0: never)\n"
         "      --pvm-only     take events only as PVM messages; by default tasks\n"
         "                     on abmon's host write them to a local socket\n"
         "      --pvm-tracer   also be PVM's tracer and output collector: tasks\n"
         "                     without libab are traced by PVM itself, and every\n"
         "                     task's output lines become output records (abrun(1))\n"
         "      --no-relays    start no relay on the other hosts (their tasks then\n"
         "                     send to abmon as PVM messages)\n"
         "      --relay-pvm    abmon's relays send their batches and clock pings as\n"
         "                     PVM messages (through the pvmds), not on a TCP stream\n"
         "      --relay TID,CONTEXT[,PORT]\n"
         "                     run as a relay of abmon TID (abmon starts its relays\n"
         "                     so on every other host, and sends each its stream's\n"
         "                     token in a PVM message; docs/abmon.md \"Relays\")\n"
         "      --control PATH control mode: tasks on every host stop before each\n"
         "                     communicating call while a client of the socket PATH\n"
         "                     (xabview --control) holds them (docs/abmon.md); PATH\n"
         "                     auto: ${PVM_TMP:-/tmp}/xab-control.UID[.PVM_VMID];\n"
         "                     its filter request changes what tasks omit (pack, clock)\n"
         "      --ready-fd N   once registered (a program started from now on is\n"
         "                     traced), write \"abmon tTID ready\" and a newline to\n"
         "                     the open descriptor N and close it: a script that\n"
         "                     starts abmon in the background waits for that line\n"
         "  -- PROGRAM ARGS    once registered, run PROGRAM; stop when it and every task\n"
         "                     it started have ended, and exit with its status (with\n"
         "                     the trace on standard output, its output goes to\n"
         "                     standard error); its output streams are of the kind\n"
         "                     abmon's are (a terminal, a pipe, a file), and each line\n"
         "                     abmon can read is an output record\n"
         "  -h, --help         this text\n"
         "      --version      print the version and exit\n"
         "\n"
         "Exit status: 0 stopped by a signal, 1 no PVM, 2 bad usage, 3 another\n"
         "abmon is running, 4 output error, 5 lost pvmd; with -- PROGRAM, the\n"
         "program's status when abmon itself had no error.  To bound a run, put\n"
         "the limit around abmon: timeout 5 abmon -- ./prog (abmon -- timeout 5\n"
         "./prog makes timeout the program).  See abmon(1).\n";
}

}  // namespace xab::abmon
