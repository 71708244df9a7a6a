// options.h -- abmon's command line.
#ifndef XAB_ABMON_OPTIONS_H
#define XAB_ABMON_OPTIONS_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xab::abmon {

// Exit codes (documented in docs/abmon.md and abmon.1).
enum ExitCode : int {
  kExitOk = 0,         // stopped by SIGINT/SIGTERM, or --help
  kExitNoPvm = 1,      // no pvmd to talk to, or a PVM call failed at startup
  kExitUsage = 2,      // bad command line
  kExitBusy = 3,       // another abmon is registered in this VM, or writes the -o file
  kExitOutput = 4,     // the output could not be opened or written
  kExitPvmLost = 5,    // the connection to pvmd broke while running
};

inline constexpr int kDefaultSampleMs = 100;

struct Options {
  std::string output;  // empty or "-": standard output
  int verbosity = 0;   // -v +1, -q -1
  int batch = 0;       // 0 until parsed: XAB_DEFAULT_BATCH
  int flushMs = 0;
  int pokeMs = -1;    // -1 until parsed: defaultPokeMs(flushMs); 0: no pokes
  int tag = 0;
  // --sample-ms: how often abmon and its relays sample their host's tasks
  // and the host (sampler.h); 0: never.
  int sampleMs = kDefaultSampleMs;
  bool pvmOnly = false;  // --pvm-only: no local socket (wire.h)
  bool pvmTracer = false;  // --pvm-tracer: also PVM's tracer and output collector
  bool noRelays = false;  // --no-relays: abmon collects every host's events itself
  // --relay TID,CONTEXT: run as the relay of the abmon TID (relay.h); abmon
  // starts it so, on another host.  0: abmon itself.
  int relayOf = 0;
  int relayContext = 0;
  // --relay-step: a relay of an abmon in control mode: its host's tasks
  // step, their asks go to abmon (relay.h, "Stepping through a relay").
  bool relayStep = false;
  // ...,PORT: abmon's TCP port for the relay's batches (relay_stream.h);
  // 0: batches as PVM messages.  The token the relay says it with comes
  // from abmon in a PVM message (relay.h, StreamToken), not from here.
  int relayPort = 0;
  bool relayPvm = false;  // --relay-pvm: abmon's relays send batches as PVM messages
  std::string control;   // --control PATH: control mode, its socket (control.h)
  // --ready-fd N: once registered (relays started, the trace's header
  // written), write "abmon tTID ready" and a newline to descriptor N and
  // close it (ready.h).  -1: none.
  int readyFd = -1;
  std::vector<std::string> program;  // after "--": run it; stop when it and its tasks end
  bool help = false;
  bool version = false;
};

// How long a task may be quiet before abmon asks for its events, unless
// --poke-ms says: 1.5 x the flush time (a busy task sends that often by
// itself), at most 500 ms (a hung task's last events show within a second),
// at least 20 ms.
int defaultPokeMs(int flushMs);

// Parses argv[1..]; returns an empty string, or what is wrong.
std::string parseOptions(const std::vector<std::string_view>& args, Options& opts);
std::string_view usageText();

}  // namespace xab::abmon

#endif
