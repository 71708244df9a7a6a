// xab/translators/cli.h -- the command line every translator shares:
//   NAME [options] [INPUT|-]   with -o OUTPUT, --lenient, --no-progress, --help
// plus a table of options of its own.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace xab::tr {

struct CliOption {
  std::string_view name;      // "--nodes"
  std::string_view argName;   // "FILE"; empty for a flag
  std::string_view help;      // one line
  // Receives the argument ("" for a flag); returns "" or why it is bad.
  std::function<std::string(std::string_view)> take;
};

struct CommonArgs {
  std::string input = "-";
  std::string output;          // "" = standard output
  bool lenient = false;
  bool progress = true;
  bool rawTime = false;        // --raw-time: task clocks as recorded (docs/global-time.md)
  bool compensate = false;     // --compensate: xab's measured cost taken out (docs/compensation.md)
  std::string replayOf;        // --replay-of DIR: a replay's trace on the record's dates (docs/replay.md)
  std::vector<std::string> positional;  // all operands, input is the last
};

struct CliSpec {
  std::string_view program;   // "ab2picl"
  std::string_view synopsis;  // "[options] [INPUT|-]"
  std::string_view summary;   // what it does, a few lines
  std::string_view outputHelp = "write to OUTPUT instead of standard output";
  std::size_t maxOperands = 1;  // ab2au takes MODE nb length scale first
  std::vector<CliOption> options;
  bool readsXabTrace = true;  // offers --raw-time, --compensate and --replay-of (picl2ab reads PICL: not)
};

// Returns -1 to go on, or an exit status (0 after --help, 1 with a message
// on stderr for bad usage).  With maxOperands == 1 the operand is the input;
// otherwise the operands are left in positional for the caller.
int parseCommandLine(int argc, char** argv, const CliSpec& spec, CommonArgs& out);

}  // namespace xab::tr
