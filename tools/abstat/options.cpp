#include "options.h"

#include <xab/model/memory.h>
#include <xab/model/reader.h>
#include <xab/version.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace xab::abstat {
namespace {

constexpr const char* kUsage = R"(Usage: abstat [OPTIONS] [FILE|-]
Summarise an xab trace (written by abmon): tasks, messages, barrier waits,
hang diagnosis, pack/unpack mismatches and each task's time breakdown.
FILE is a trace file; '-' or nothing reads standard input.

Sections (all of them when none is named):
  --tasks        the task table: name, instance, host, parent, events, exit;
                 per host: events, lost, relay batches, deleted
  --messages     messages per pair of tasks; messages never received
  --barriers     each barrier: waits, the last task to arrive and how late
  --hang         blocked tasks, what they wait for, deadlock cycles
  --mismatch     messages unpacked unlike they were packed (packs and
                 unpacks, psend and precv)
  --failures     calls that returned an error: task, call, PVM's error
                 name, how often, the first; a receive's timeout taken
                 for a message (unpacks that failed after it); the
                 pvm_trecv calls that timed out, per task
  --races        message races: receives from any task that could have
                 taken another task's message in another run (harmless
                 when every order is handled alike; a bug when the program
                 assumes one)
  --clocks       the clock fit of every task (global time); shown with the
                 task table by default only when the fit is poor
  --breakdown    time per task: compute, communication, blocked, barrier
  --why          why the run is slow: every wait state (late sender, wrong
                 order, barrier, collective, spawn, join) traced back to
                 the work that caused it, the causes ranked by the waiting
                 they cost others (a cause's host named overloaded where
                 the samples show it waiting for a CPU), the critical path
                 and the others' slack
                 (docs/why-slow.md; not among the sections shown by default)
  --output       every line the tasks wrote (output records, abrun(1)),
                 in time order (not among the sections shown by default)
  --task T       with --output: only task T's lines (a tid such as
                 t40003, a program name, or a label: (slave1, 0))

Comparing runs:
  --compare A B [C ...]
                 compare runs of one program: tasks matched by name and
                 instance, barriers by name and use, messages by tasks and
                 tag; the differences of A and B ranked by how much time
                 they make, a compute that grew before the waits it
                 explains; with more runs, each task's spread (and per
                 host when the runs placed tasks differently).  Runs of a
                 different program shape are told apart: exit status 1
                 (docs/why-slow.md)

Output:
  --json         the same data as JSON (docs/abstat-json.md); with
                 --follow, one JSON object per line (JSON Lines)
  --errors N     show at most N malformed lines (default 10)
  --no-progress  no progress line on stderr (shown only on a terminal)
  --raw-time     times as each task's clock recorded them; by default every
                 task's clock is put on abmon's from the trace's clock
                 records and receives are kept after their sends
                 (docs/global-time.md)
  --compensate   take xab's own cost on each task (libab's cost and flush
                 records) out of the times, and print each task's
                 estimated intrusion (docs/compensation.md)
  --replay-of DIR
                 the trace is of a replay (abreplay DIR -- ...): correct
                 its dates back to estimates of the recorded run's, from
                 the record's own time stamps (docs/replay.md); DIR may
                 be the full trace the replay was made from (--from-trace)
  --replay-check N
                 with --replay-of: leave every N-th anchor of each task out
                 of the correction and print how far the estimate there is
                 from the record's date (a check of the correction)

Input:
  --follow       keep reading a live trace (a pipe, or a file that grows);
                 print the hang diagnosis each time progress stops
  --stall SECS   seconds without a new record that count as a stall
                 (default 5; with --follow)
  --budget SIZE  the memory abstat keeps within, whatever the run's length
                 (SIZE in bytes, or with K, M, G: 512M, 2G; 0: none;
                 default 1G with --follow): beyond it the oldest records
                 are dropped and the reports cover the newest (the window,
                 which they name); without --follow only when given
                 ('abstat FILE' analyses the whole of a file)
  --strict       stop at the first malformed line (exit status 1)

  -h, --help     this text
  --version      abstat's version and the trace format it reads

Exit status: 0 no hang and no mismatch, 1 error, 2 hang, 3 mismatch,
4 hang and mismatch.

Examples:
  1. abstat run.trace
  2. abstat --hang --mismatch run.trace; echo $?
  3. abstat --json run.trace > run.json
  4. abmon | tee run.trace | abstat --follow --stall 3 --hang
  5. abstat --follow --stall 10 --budget 4G growing.trace
  6. abstat --output --task slave1 run.trace
  7. abstat --why run.trace
  8. abstat --compare even.trace slow.trace
)";

// "1G", "512M", "64k", "1000000": bytes (binary multiples).
bool number(const char* s, double& out) {
  std::string_view v(s);
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc{} && p == v.data() + v.size() && out >= 0;
}

int usageError(const char* fmt, const char* arg) {
  std::fprintf(stderr, "abstat: ");
  std::fprintf(stderr, fmt, arg);
  std::fprintf(stderr, "\nTry 'abstat --help'.\n");
  return kExitError;
}

bool section(std::string_view a, Sections& s) {
  struct Row { std::string_view name; bool Sections::*flag; };
  static constexpr Row rows[] = {
      {"--tasks", &Sections::tasks},       {"--messages", &Sections::messages},
      {"--barriers", &Sections::barriers}, {"--hang", &Sections::hang},
      {"--mismatch", &Sections::mismatch}, {"--breakdown", &Sections::breakdown},
      {"--output", &Sections::output},     {"--failures", &Sections::failures},
      {"--clocks", &Sections::clocks},     {"--races", &Sections::races},
      {"--why", &Sections::why}};
  for (const Row& r : rows)
    if (a == r.name) { s.*r.flag = true; return true; }
  return false;
}

}  // namespace

int parseOptions(int argc, char** argv, Options& o) {
  bool haveInput = false, compare = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto needValue = [&](double& out) {
      if (i + 1 >= argc || !number(argv[i + 1], out)) return false;
      ++i;
      return true;
    };
    double v = 0;
    if (a == "-h" || a == "--help") { std::fputs(kUsage, stdout); return kExitOk; }
    if (a == "--version") { std::printf("abstat (xab) %s, trace format %d\n", XAB_VERSION_STRING, kTraceFormatVersion); return kExitOk; }
    if (section(a, o.sections)) continue;
    if (a == "--json") o.json = true;
    else if (a == "--follow") o.follow = true;
    else if (a == "--strict") o.strict = true;
    else if (a == "--raw-time") o.rawTime = true;
    else if (a == "--compensate") o.compensate = true;
    else if (a == "--no-progress") o.progress = false;
    else if (a == "--replay-of") {
      if (i + 1 >= argc) return usageError("--replay-of needs a record directory", "");
      o.replayOf = argv[++i];
    } else if (a == "--replay-check") {
      if (!needValue(v) || v < 2) return usageError("--replay-check needs a number from 2 on", "");
      o.replayCheck = static_cast<std::uint32_t>(v);
    }
    else if (a == "--compare") compare = true;
    else if (a == "--task") {
      if (i + 1 >= argc) return usageError("--task needs a task", "");
      o.outputTask = argv[++i];
      o.sections.output = true;
    } else if (a == "--stall") {
      if (!needValue(o.stallSeconds)) return usageError("--stall needs a number of seconds", "");
    } else if (a == "--budget") {
      const auto bytes = i + 1 < argc ? xab::parseByteSize(argv[i + 1]) : std::nullopt;
      if (bytes) o.budget = *bytes;
      if (!bytes)
        return usageError("--budget needs a size such as 1G, 512M or 0", "");
      ++i;
      o.budgetGiven = true;
    } else if (a == "--errors") {
      if (!needValue(v)) return usageError("--errors needs a count", "");
      o.showErrors = static_cast<std::size_t>(v);
    } else if (a.size() > 1 && a[0] == '-') {
      return usageError("unknown option '%s'", argv[i]);
    } else if (compare) {
      o.compare.push_back(argv[i]);
    } else if (haveInput) {
      return usageError("only one input file, got '%s' too", argv[i]);
    } else {
      o.input = argv[i];
      haveInput = true;
    }
  }
  if (compare) {
    if (haveInput) o.compare.insert(o.compare.begin(), o.input);
    if (o.compare.size() < 2) return usageError("--compare needs two traces or more", "");
    haveInput = false;
  }
  if (!o.compare.empty() && (o.follow || o.sections.output))
    return usageError("--compare takes neither --follow nor --output", "");
  if (o.sections.output && o.json) return usageError("--output is text only (ab2json(1) gives every record as JSON)", "");
  if (!o.sections.any()) o.sections = {true, true, true, true, true, true, false, true, false, true, false};
  return -1;
}

}  // namespace xab::abstat
