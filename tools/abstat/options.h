// abstat's command line.
#pragma once

#include <xab/replay/record_set.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xab::abstat {

// Exit statuses (documented in docs/man/abstat.1 and docs/abstat-json.md).
enum ExitCode : int {
  kExitOk = 0,        // no hang, no mismatch
  kExitError = 1,     // bad usage, unreadable input, refused format version, --strict error
  kExitHang = 2,      // some task is blocked at the end of the trace
  kExitMismatch = 3,  // some message was unpacked unlike it was packed
  kExitBoth = 4,      // hang and mismatch
};

struct Sections {
  bool tasks = false, messages = false, barriers = false, hang = false, mismatch = false,
       breakdown = false;
  bool output = false;  // the tasks' output lines (only when asked for)
  bool failures = false;  // calls that returned an error
  // The clock table: always with --clocks; with the task table only when
  // the fit is poor (xab/model/clock_quality.h).
  bool clocks = false;
  bool races = false;  // receives from any task whose message depends on timing
  bool why = false;    // wait states, their root causes, the critical path (only when asked for)
  bool any() const {
    return tasks || messages || barriers || hang || mismatch || breakdown || output || failures || clocks ||
           races || why;
  }
};

struct Options {
  std::string input = "-";
  Sections sections;      // all when none is named
  bool json = false;
  bool follow = false;
  double stallSeconds = 5.0;
  // --budget: the memory abstat keeps within (bytes; 0: none), by a window
  // of the newest records (docs/model.md, "A run of any length").  Used
  // with --follow, or on any input when given.
  std::uint64_t budget = std::uint64_t{1} << 30;
  bool budgetGiven = false;
  bool windowed() const { return budget > 0 && (follow || budgetGiven); }
  bool strict = false;
  bool progress = true;   // on a terminal only
  bool compensate = false;  // xab's measured cost taken out (docs/compensation.md)
  std::string replayOf;     // --replay-of DIR: the record the trace is a replay of (docs/replay.md)
  std::shared_ptr<const replay::RecordSet> record;  // DIR read (main)
  std::uint32_t replayCheck = 0;  // --replay-check N: every N-th anchor held out and measured
  bool rawTime = false;   // task clocks as recorded, not global time (docs/global-time.md)
  std::size_t showErrors = 10;
  std::string outputTask;  // --task: the output of this task only (tid, name or label)
  std::vector<std::string> compare;  // --compare A B [C...]: the runs compared (empty: none)
};

// Parses argv.  Returns -1 to go on, or an exit status (after --help, or
// with a message on stderr for bad usage).
int parseOptions(int argc, char** argv, Options& out);

}  // namespace xab::abstat
