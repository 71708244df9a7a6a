// monitor_program.cpp -- `abmon -- PROGRAM` (monitor.h): starting the
// program, its output lines, its tasks' names, the spawned tasks abmon
// watches, and telling when it and its tasks have ended.
#include "monitor.h"

#include <pvm3.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <unistd.h>

#include "output_lines.h"

namespace xab::abmon {
namespace {

// The program's lines written before its task is known: kept up to this
// many bytes, pvmd asked for its task at most this often.
constexpr std::size_t kHeldLinesMax = 1024 * 1024;
constexpr std::int64_t kTidAskNs = 50'000'000;

}  // namespace

// A task's spawn record names these tids.  They are the program's if the
// spawner is (`abmon -- PROGRAM`), and tasks whose exit abmon watches: one
// whose only PVM call is pvm_exit never enrols (libpvm's pvm_exit does
// nothing for a task without a tid), so it never speaks, and the spawn
// record is all that tells of it (its identity: Formatter::spawnedIdentity).
// Those of this host only: another host's are its relay's.  Under
// --pvm-tracer pvmd tells of every spawned task (PvmTracer).
void Monitor::spawned(int parent, const std::vector<int>& tids) {
  program_.spawned(parent, tids);
  if (tracer_) return;
  for (int t : tids)
    if (t > 0 && pvm_tidtohost(t) == pvm_tidtohost(setup_.tid) &&
        std::find(ended_.begin(), ended_.end(), t) == ended_.end())
      watchTask(t);
}

// A libab task has told its parent and process: one without a parent that
// the program's processes run (or whose process has gone: most likely one
// of the program's, as under --pvm-tracer, programName) is one of the
// program's own, which Program::statusTid counts.  pvmd's list, asked every
// 200 ms, misses a task that comes and goes between two looks.
void Monitor::identified(int tid, int parent, pid_t pid) {
  if (!programRunning_ || parent > 0 || pid <= 0 || pvm_tidtohost(tid) != pvm_tidtohost(setup_.tid)) return;
  if (pid == program_.pid()) program_.adopt(tid, pid);
  if (program_.runsProcess(pid) || !processRunning(pid)) program_.rootTask(tid);
}

// The program pvmd has for a task, without its directory; for the process
// abmon started (pvmd has no name for a task it did not spawn), that
// program's name; else "".  A busy abmon may read a task's first events
// after it has left PVM (pvmd no longer lists it, or lists it while its
// process has gone): a task without a parent that has gone while the
// program's task is still unknown is taken for the program's (abmon runs
// one program).  PvmTracer asks again, until a name is found.
std::string Monitor::programName(int tid, bool orphan) {
#ifdef XAB_TEST_KNOBS
  // XAB_TEST_NAME_MISSES=N (docs/abmon.md "The program's name"): the first
  // N lookups find nothing, as when the task's process cannot be told yet.
  static int misses = [] {
    const char* v = std::getenv("XAB_TEST_NAME_MISSES");
    return v ? std::atoi(v) : 0;
  }();
  if (misses > 0) {
    --misses;
    return {};
  }
#endif
  drainSoon();  // pvm_tasks may read messages into PVM's queue
  int n = 0;
  pvmtaskinfo* info = nullptr;
  bool listed = false;
  std::string name;
  if (pvm_tasks(tid, &n, &info) >= 0) {
    for (int i = 0; i < n && !listed; ++i) {
      if (info[i].ti_tid != tid) continue;
      listed = true;
      name = info[i].ti_a_out ? info[i].ti_a_out : "";
      if (!name.empty() || info[i].ti_host != pvm_tidtohost(setup_.tid)) continue;
      // A task pvmd did not spawn (the program abmon started, the console,
      // a program started from a shell or by the program's wrapper, as in
      // `abmon -- timeout 5 ./prog`): its process's program.
      if (programRunning_ && program_.isProcess(info[i])) {
        program_.adopt(tid, info[i].ti_pid);
        program_.rootTask(tid);
      }
      if (programRunning_ && info[i].ti_pid == program_.pid()) name = setup_.opts.program.front();
      else name = processName(info[i].ti_pid);
      // Its process has gone, pvmd has not noticed yet: as if not listed.
      if (name.empty() && !processRunning(info[i].ti_pid)) listed = false;
    }
  }
  if (!listed && orphan && programRunning_ && program_.tid() == 0) {
    program_.adopt(tid);
    name = setup_.opts.program.front();
  } else if (!listed && orphan && programRunning_) {
    program_.rootTask(tid);  // gone already: most likely one of the program's too
  }
  // Found earlier by its process (Program::findTid), read now.
  if (name.empty() && tid == program_.tid()) name = program_.name();
  if (auto slash = name.rfind('/'); slash != std::string::npos) name.erase(0, slash + 1);
  return name;
}

// Registered, the header written: only now may the program's tasks start,
// so none of them runs unmonitored.
void Monitor::startProgram() {
  std::string error;
  // Its stdout goes on to abmon's stderr when the trace is on stdout.
  programOutput_ = std::make_unique<ProgramOutput>(
      io_, setup_.out == stdout ? STDERR_FILENO : STDOUT_FILENO, STDERR_FILENO,
      [this](std::string_view stream, std::string_view line, std::int64_t ns) { programLine(stream, line, ns); });
  if (!programOutput_->open(error) ||
      !program_.start(setup_.opts.program, programOutput_->childOut(), programOutput_->childErr(), error)) {
    spdlog::error("cannot start {}: {}", setup_.opts.program.front(), error);
    programOutput_.reset();
    return finish(kExitUsage);
  }
  programOutput_->start();
  programRunning_ = true;
  armProgramTimer();
}

// A line of the program abmon started: an `output` record of its task
// (stream known, unlike PVM's collected output).  Lines from before it has
// one wait (kHeldLinesMax); pvmd is asked every kTidAskNs meanwhile.
void Monitor::programLine(std::string_view stream, std::string_view line, std::int64_t ns) {
  if (program_.tid() == 0 && ns - tidAskedNs_ >= kTidAskNs && !finished_) {
    tidAskedNs_ = ns;
    program_.findTid();
    drainSoon();  // pvm_tasks may read messages into PVM's queue
  }
  heldLines_.push_back({stream, std::string(line), ns});
  heldBytes_ += line.size();
  while (heldBytes_ > kHeldLinesMax && heldLines_.size() > 1) {
    heldBytes_ -= heldLines_.front().text.size();
    heldLines_.pop_front();
    ++linesUntraced_;
  }
  writeProgramLines();
  if (!finished_) writeOut();
}

void Monitor::writeProgramLines() {
  int tid = program_.tid();
  if (tid == 0) return;
  for (const HeldLine& l : heldLines_) appendOutputRecord(pending_, l.ns, tid, l.stream, l.text);
  heldLines_.clear();
  heldBytes_ = 0;
}

void Monitor::armProgramTimer() {
  programTimer_.expires_after(std::chrono::milliseconds(200));
  programTimer_.async_wait([this](const auto& ec) { onProgramTimer(ec); });
}

// Every 200 ms: has the program ended, and has every task it started?  Then
// stop as on SIGINT (a task's last records still come in).
void Monitor::onProgramTimer(const boost::system::error_code& ec) {
  if (ec || finished_) return;
  bool ended = program_.ended();
  bool remain = program_.tasksRemain();
  drainSoon();  // pvm_tasks may read messages into PVM's queue
  if (!heldLines_.empty()) {
    writeProgramLines();
    writeOut();
  }
  // Every task of the program's that abmon watches has ended too (one it
  // spawned just before it ended may not be listed by pvmd's answer yet,
  // but its spawn record names it).
  bool open = std::any_of(program_.tasks().begin(), program_.tasks().end(),
                          [this](int tid) { return watched_.count(tid) > 0; });
  if (ended && !remain && !open) {
    spdlog::info("{} and its tasks have ended (status {}): stopping", setup_.opts.program.front(),
                 program_.exitCode());
    return stopGracefully();
  }
  armProgramTimer();
}

}  // namespace xab::abmon
