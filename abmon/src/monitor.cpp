#include "monitor.h"

#include <boost/asio/post.hpp>
#include <pvm3.h>
#include <spdlog/spdlog.h>
#include <xab/wire.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "byte_message.h"
#include "mailbox.h"
#include "output_lines.h"
#include "pvm_unpacker.h"
#include "ready.h"

namespace xab::abmon {
namespace {

constexpr int kDrainRounds = 64;
// PVM's trace and output messages: their tags (wire.h's table).
constexpr int kTracerTagOffset = XAB_TRACE_TAG_OFFSET;
static_assert(XAB_OUTPUT_TAG_OFFSET == kTracerTagOffset + 1, "PvmTracer takes the output tag after the trace tag");
constexpr std::int64_t kExitGraceNs = 2'000'000'000;
// On SIGINT/SIGTERM: events still on their way (queued in pvmd behind a
// busy sender, or in a task's local socket) belong to the trace too.  Read
// until nothing has come for kStopQuietNs, for kStopMaxNs at most, looking
// at the local sockets every kStopPollUs.
constexpr std::int64_t kStopQuietNs = 100'000'000;
constexpr int kStopPollUs = 10'000;
constexpr std::int64_t kStopMaxNs = 5'000'000'000;
// How long a quiet abmon waits for its relays' last batches (a relay reads
// its tasks dry within kStopQuietNs of its own, normally).
constexpr std::int64_t kRelayStopWaitNs = 3'000'000'000;
// A task that stays quiet is poked ever less often, at least every 5 s (a
// poke that waits in a busy task's socket costs it nothing until it reads).
constexpr std::int64_t kPokeMaxNs = 5'000'000'000;

// The program's lines written before its task is known: kept up to this
// many bytes, pvmd asked for its task at most this often.
constexpr std::size_t kHeldLinesMax = 1024 * 1024;
constexpr std::int64_t kTidAskNs = 50'000'000;
// Text held before it is written (or, in a relay, batched) at the latest.
constexpr std::size_t kPendingMaxBytes = 1 << 20;

// A relay sends what it has at least this often.
constexpr int kUplinkMs = 50;

// A relay's clock exchanges with abmon: phases and counts as libab's (wire.h).
constexpr int kClockStart = XAB_CLOCK_START, kClockRunning = XAB_CLOCK_RUN, kClockEnd = XAB_CLOCK_END;
constexpr int kClockEdgeExchanges = XAB_CLOCK_EDGE_EXCHANGES, kClockRunExchanges = XAB_CLOCK_RUN_EXCHANGES;
constexpr std::int64_t kClockPeriodNs = XAB_CLOCK_PERIOD_NS;

}  // namespace

Monitor::Monitor(MonitorSetup setup)
    : setup_(std::move(setup)),
      exitTag_(setup_.opts.tag + XAB_EXIT_TAG_OFFSET),
      formatter_(setup_.tid, sessions_, [this](const Problem& p) { report(p); }),
      signals_(io_, SIGINT, SIGTERM),
      local_(
          io_, [this](std::int32_t tid, std::span<const std::byte> body,
                      std::int64_t recvNs) { takeLocal(tid, body, recvNs); },
          [this] { localDone(); },
          [this](std::int32_t tid, pid_t pid) { return verifyLocal(tid, pid); }),
      control_(io_, [this](std::int32_t tid, std::int32_t seq) { return stepGo(tid, seq); }),
      pokeTimer_(io_),
      programTimer_(io_),
      uplinkTimer_(io_) {
  // The tasks a program's task spawns are the program's (`abmon -- PROGRAM`).
  formatter_.onSpawn([this](std::int32_t parent, const std::vector<int>& tids) { program_.spawned(parent, tids); });
}

Monitor::~Monitor() { releaseFds(); }

int Monitor::run() {
  std::int64_t now = realtimeNs();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  if (isRelay()) {
    uplink_ = std::make_unique<RelayUplink>(setup_.opts.relayOf, setup_.opts.tag + kRelayTagOffset);
    if (setup_.opts.relayPort > 0) connectUplink();
    // abmon gone: nobody to relay to.
    pvm_notify(PvmTaskExit, exitTag_, 1, &setup_.opts.relayOf);
    if (uplink_->send(RelayMsg::Start) < 0) return kExitPvmLost;
    uplink_->syncClock(kClockStart, kClockEdgeExchanges);  // docs/global-time.md: as libab's tasks do
#ifdef XAB_TEST_KNOBS
    if (const char* feed = std::getenv("XAB_TEST_RELAY_FEED")) uplink_->testFeed(std::atoi(feed));
#endif
    armUplinkTimer();
  } else {
    formatter_.header(pending_, host, static_cast<long>(getpid()), now);
    formatter_.start(pending_, now, setup_.opts.batch, setup_.opts.flushMs);
    if (!setup_.opts.noRelays) startRelays();
  }
  if (!writeOut()) return exitCode_;
  if (setup_.opts.pvmTracer) startTracer();
  signals_.async_wait([this](const auto& ec, int signo) { onSignal(ec, signo); });
  local_.start(setup_.localFd);
  control_.start(setup_.controlFd, setup_.opts.control);
  if (control_.on()) {
    local_.onStep([this](std::int32_t tid, const xab_step_ask& a) { control_.ask(tid, a); },
                  [this](std::int32_t tid) { control_.gone(tid); });
    if (hub_) hub_->onStep([this](const StepAskFields& a) { control_.ask(a.tid, {XAB_STEP_MAGIC, a.seq, a.kind, a.peer, a.tag}); },
                           [this](int tid, const std::string& why) { control_.gone(tid, why); });
  }
  if (isRelay() && setup_.opts.relayStep) relaySteps();
  // Messages may have come between registering and now: read them first.
  if (drain()) watchPvmFds();
  armPokeTimer();
  if (!isRelay() && !finished_) announceReady(setup_.opts.readyFd, setup_.tid);
  if (!setup_.opts.program.empty() && !finished_) startProgram();
  if (!finished_) io_.run();
  // With -- PROGRAM: the program's status, unless abmon itself failed.
  if (exitCode_ == kExitOk && programRunning_ && program_.ended()) return program_.exitCode();
  return exitCode_;
}

// PVM's tracer: its messages come in abmon's context with two tags of
// their own (docs/abmon.md "PVM's tracer").  A task that libab reports is
// one whose events abmon has read: PVM's events of it are dropped.
void Monitor::startTracer() {
  tracer_ = std::make_unique<PvmTracer>(
      pvm_getcontext(), setup_.opts.tag + kTracerTagOffset, setup_.opts.tag + kTracerTagOffset + 1,
      [this](int tid) { watchTask(tid); },
      // Tasks that report themselves: libab's, and abmon's relays (a relay
      // started on a host added later is traced by pvmd like any task).
      [this](int tid) { return sessions_.lastSeq(tid) >= 0 || (hub_ && hub_->isRelay(tid)); },
      [this](int tid, bool orphan) { return programName(tid, orphan); });
  if (!tracer_->registerTracer()) return tracer_.reset();
  tracer_->onSpawn([this](int parent, const std::vector<int>& tids) { program_.spawned(parent, tids); });
}

// The program pvmd has for a task, without its directory; for the process
// abmon started (pvmd has no name for a task it did not spawn), that
// program's name; else "".  A busy abmon may read a task's first events
// after it has left PVM (pvmd no longer lists it): a task without a parent
// that has gone while the program's task is still unknown is taken for the
// program's (abmon runs one program).
std::string Monitor::programName(int tid, bool orphan) {
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
      if (programRunning_ && program_.isProcess(info[i])) program_.adopt(tid, info[i].ti_pid);
      if (programRunning_ && info[i].ti_pid == program_.pid()) name = setup_.opts.program.front();
      else name = processName(info[i].ti_pid);
    }
  }
  if (!listed && orphan && programRunning_ && program_.tid() == 0) {
    program_.adopt(tid);
    name = setup_.opts.program.front();
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

// PVM's set of sockets changes (a task that asks for a direct route gets a
// socket of its own), so after every drain the set is read again and
// wrapped afresh.  Registering a socket that already has data makes epoll
// report it at once, so nothing that came meanwhile is missed.
void Monitor::watchPvmFds() {
  releaseFds();
  ++generation_;
  int* fds = nullptr;
  int n = pvm_getfds(&fds);
  if (n <= 0) {
    spdlog::error("pvm_getfds: {}", pvmErrorName(n));
    return finish(kExitPvmLost);
  }
  fds_.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    fds_.emplace_back(io_, fds[i]);
    fds_.back().async_wait(boost::asio::posix::descriptor_base::wait_read,
                           [this, gen = generation_](const auto& ec) { onReadable(ec, gen); });
  }
  spdlog::trace("watching {} PVM socket(s)", n);
}

// The sockets are PVM's: give them back without closing them.
void Monitor::releaseFds() {
  for (auto& fd : fds_) {
    boost::system::error_code ignored;
    fd.cancel(ignored);
    fd.release();
  }
  fds_.clear();
}

void Monitor::onReadable(const boost::system::error_code& ec, unsigned generation) {
  if (ec == boost::asio::error::operation_aborted || generation != generation_ || finished_)
    return;
  if (ec) spdlog::debug("waiting on a PVM socket: {}", ec.message());
  if (drain()) watchPvmFds();
}

void Monitor::onSignal(const boost::system::error_code& ec, int signo) {
  if (ec) return;
  spdlog::info("{}: stopping", signo == SIGINT ? "SIGINT" : "SIGTERM");
  stopGracefully();
}

void Monitor::stopGracefully() {
  // Whatever the tasks still hold belongs to the trace too: ask for it
  // (a task killed while blocked sends its last records on this poke).
  if (!drain()) return;
  if (hub_) hub_->stopAll();  // each sends its last batch when its tasks have
  local_.judgeWaiting();  // tasks that left before abmon could tell who they were
  for (const auto& [tid, due] : pokes_) poke(tid, nullptr);
  if (drainInFlight() && drain()) finish(kExitOk);
}

// One received message (or a receive's error): formatted and written out,
// one write per message, not per line.  False once abmon must stop.
bool Monitor::take(int bufid) {
  if (bufid < 0) {
    spdlog::error("lost the connection to pvmd: {}", pvmErrorName(bufid));
    finish(kExitPvmLost);
    return false;
  }
  handleMessage(bufid, realtimeNs());
  pvm_freebuf(bufid);
  return writeOut();
}

bool Monitor::drainInFlight() {
  std::int64_t start = realtimeNs();
  std::int64_t last = start;
  for (std::int64_t now = start; now - start < kStopMaxNs; now = realtimeNs()) {
    if (local_.drainAll() || (hub_ && hub_->pollStreams())) {
      last = now;
      if (!writeOut()) return false;
    }
    // The relays' streams are read as soon as they have something: their
    // last clock exchanges (SBA) come now, and want their pongs at once.
    timeval wait{0, kStopPollUs};
    bool streamed = false;
    int bufid = hub_ ? hub_->receive(-1, kStopPollUs / 1000, streamed) : pvm_trecv(-1, -1, &wait);
    if (streamed) {
      last = now;
      if (!writeOut()) return false;
    }
    if (bufid != 0) {
      if (!take(bufid)) return false;
      last = now;
    } else if (now - last >= kStopQuietNs &&
               (!hub_ || hub_->allStopped() || now - start >= kRelayStopWaitNs)) {
      return true;  // a relay that has not answered by then may be cut off (a dead host)
    }
  }
  spdlog::warn("still receiving events {} s after the stop signal: stopping anyway", kStopMaxNs / 1'000'000'000);
  return true;
}

// Reads every message that has arrived.  pvm_nrecv looks at PVM's sockets
// once per call, so it may say "nothing" while a socket still holds the
// rest of a message: the loop goes on until every socket is quiet (or for
// a bounded number of rounds, so signals are still heard under load).
bool Monitor::drain() {
  bool quiet = false;
  for (int round = 0; round < kDrainRounds && !quiet; ++round) {
    for (;;) {
      int bufid = pvm_nrecv(-1, -1);
      if (bufid == 0) break;
      if (!take(bufid)) return false;
    }
    quiet = socketsQuiet();
  }
  local_.drainAll();  // read dry: quiet stays as it is
  writeExits(quiet);
  return writeOut();
}

bool Monitor::socketsQuiet() const {
  int* fds = nullptr;
  int n = pvm_getfds(&fds);
  if (n <= 0) return true;
  std::vector<pollfd> polls(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) polls[static_cast<std::size_t>(i)] = {fds[i], POLLIN, 0};
  return poll(polls.data(), polls.size(), 0) == 0;
}

// pvmd's exit notice can overtake the task's last events, which may still
// sit in the task's own (direct route) socket.  task.exit is written once
// the task's final message has come, or every socket has been read dry,
// or (under endless load) after kExitGraceNs.
void Monitor::writeExits(bool quiet) {
  std::int64_t now = realtimeNs();
  std::erase_if(exits_, [&](const Exit& e) {
    if (!quiet && !sessions_.finalSeen(e.tid) && now - e.notifiedNs < kExitGraceNs)
      return false;
    if (tracer_) tracer_->flushTask(pending_, e.tid, now);  // records PVM's tracer held back
    formatter_.taskExit(pending_, e.tid, now, "notify", tracer_ ? tracer_->taskClock(e.tid, now) : std::nullopt);
    if (tracer_) tracer_->taskEnded(e.tid);
    if (uplink_) uplink_->closed(e.tid);
    rememberEnded(e.tid);
    watched_.erase(e.tid);  // PVM may reuse the tid for a new task
    pokes_.erase(e.tid);
    return true;
  });
}

void Monitor::handleMessage(int bufid, std::int64_t recvNs) {
  int bytes = 0, tag = 0, src = 0;
  pvm_bufinfo(bufid, &bytes, &tag, &src);
  if (relayMessage(tag, src, bufid, recvNs)) return;
  if (tracer_ && tracer_->owns(tag)) {
    tracer_->take(pending_, bufid, tag, src, recvNs);
  } else if (tag == setup_.opts.tag) {
    // A task that fell back from the local socket to PVM wrote its earlier
    // messages to the socket: they come first.
    local_.drain(src);
    PvmUnpacker msg(bufid);
    formatter_.message(pending_, src, recvNs, msg);
    watchTask(src);
    heardFrom(src, recvNs, true);
  } else if (tag == exitTag_) {
    int tid = 0;
    spdlog::trace("exit notice from t{:x}", src);
    if (!fromPvmd(src)) {
      // Any task may send to abmon's context with this tag: a notice that
      // does not come from a pvmd would end another task's records.
      if (forgedExits_++ == 0)
        spdlog::warn("ignoring an exit notice sent by task t{:x}, not by pvmd (reported once)", src);
    } else if (pvm_upkint(&tid, 1, 1) < 0) {
    } else if (hub_ && hub_->relayExited(tid)) {
    } else if (isRelay() && tid == setup_.opts.relayOf) {
      spdlog::warn("abmon t{:x} has exited: the relay stops", tid);
      boost::asio::post(io_, [this] { finish(kExitOk); });
    } else {
      local_.drain(tid);  // all it wrote is in its socket by now
      exits_.push_back({tid, recvNs});
    }
  } else if (foreign_++ == 0) {
    // Nothing else should arrive in abmon's own context.
    spdlog::warn("ignoring a message with tag {} from t{:x} (reported once)", tag, src);
  }
}

// Whether `pid` is the process of task `tid` (a hello on the local socket,
// docs/abmon.md "Security").  pvmd knows every task's pid (it spawned it,
// or the task told it when it enrolled).  A task that has already left PVM
// (it wrote everything, called pvm_exit, and abmon reads its hello only
// now) is known to pvmd no more: its connection is believed once its
// process has exited, if abmon has not ended that tid and no other process
// holds it; a process that stays alive under a tid pvmd does not know is
// refused after LocalIntake::kHelloTimeoutNs.
LocalIntake::Verdict Monitor::verifyLocal(std::int32_t tid, pid_t pid) {
  using V = LocalIntake::Verdict;
  if (tid == setup_.tid) return {V::Refuse, "that is abmon's own tid"};
  if (pvm_tidtohost(tid) != pvm_tidtohost(setup_.tid)) return {V::Refuse, "that tid is not on abmon's host"};
  if (auto it = bound_.find(tid); it != bound_.end() && it->second != pid)
    return {V::Refuse, fmt::format("that task's connection came from pid {}", it->second)};
  drainSoon();  // pvm_tasks may read messages into PVM's queue
  int n = 0;
  pvmtaskinfo* info = nullptr;
  int rc = pvm_tasks(tid, &n, &info);
  for (int i = 0; rc >= 0 && i < n; ++i) {
    if (info[i].ti_tid != tid) continue;
    if (info[i].ti_pid != pid) return {V::Refuse, fmt::format("pvmd says that task is pid {}", info[i].ti_pid)};
    bound_[tid] = pid;
    return {V::Accept, {}};
  }
  if (std::find(ended_.begin(), ended_.end(), tid) != ended_.end())
    return {V::Refuse, "that task has exited and its trace is closed"};
  if (processRunning(pid)) return {V::Wait, "pvmd knows no such task"};
  if (unverified_++ == 0)
    spdlog::info("t{:x}'s local connection is read after it left PVM (pid {} has exited too)", tid, pid);
  bound_[tid] = pid;
  return {V::Accept, {}};
}

// Whether `pid` is a process that has not exited (a zombie has).
bool Monitor::processRunning(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return false;
  char line[512] = {};
  std::size_t n = std::fread(line, 1, sizeof line - 1, f);
  std::fclose(f);
  std::string_view stat(line, n);
  auto paren = stat.rfind(')');
  if (paren == std::string_view::npos || paren + 2 >= stat.size()) return true;
  char state = stat[paren + 2];
  return state != 'Z' && state != 'X';
}

// A PVM call outside drain() may have read messages into PVM's own queue,
// where no socket wakes the loop for them: take them on the loop's next turn.
void Monitor::drainSoon() {
  pvmTouched_ = true;
  if (drainPosted_) return;
  drainPosted_ = true;
  boost::asio::post(io_, [this] {
    drainPosted_ = false;
    if (!finished_ && drain()) watchPvmFds();
  });
}

// A tid whose task.exit is written: no later local connection may claim it
// while its task is not running (the last kEndedKept are kept).
void Monitor::rememberEnded(int tid) {
  bound_.erase(tid);
  if (ended_.size() >= kEndedKept) ended_.pop_front();
  ended_.push_back(tid);
}

// pvmd's own tids have the TIDPVMD bit (pvmtev.h) set; a task's never do.
bool Monitor::fromPvmd(int src) { return (static_cast<unsigned>(src) & 0x80000000u) != 0; }

// After a burst of local messages.  A pvm_notify for a new task may have
// read PVM messages (an exit notice, say) into PVM's own queue, where no
// socket wakes the loop for them: take them now.
void Monitor::localDone() {
  if (!writeOut()) return;
  if (pvmTouched_) {
    pvmTouched_ = false;
    if (drain()) watchPvmFds();
  }
}

void Monitor::takeLocal(std::int32_t tid, std::span<const std::byte> body, std::int64_t recvNs) {
  ByteReader msg(body);
  formatter_.message(pending_, tid, recvNs, msg);
  watchTask(tid);
  heardFrom(tid, recvNs, false);
  // Reading every task's socket dry (drainAll) may take in up to a socket
  // buffer of each: written on the way, so memory does not grow with the
  // number of tasks (bench/run-load-bench.sh).
  if (pending_.size() >= kPendingMaxBytes) writeOut();
}

// Once per task: pvmd tells us when it exits, however it exits.
void Monitor::watchTask(int tid) {
  if (!watched_.insert(tid).second) return;
  // A new task: the program's own, or one it started, so the program's is
  // known by now (its output may come only when it has left PVM).
  if (programRunning_ && program_.tid() == 0) program_.findTid();
  if (uplink_) uplink_->opened(tid);
  pvmTouched_ = true;
  int rc = pvm_notify(PvmTaskExit, exitTag_, 1, &tid);
  if (rc < 0) spdlog::warn("pvm_notify(PvmTaskExit, t{:x}): {}", tid, pvmErrorName(rc));
}

// A task's message has come.  If it takes pokes: poke it once it has been
// quiet for pokeMs; if that was its final message and came through PVM,
// confirm it (a task killed while blocked waits for this before it dies;
// one that writes to the local socket does not need to).
void Monitor::heardFrom(int tid, std::int64_t nowNs, bool throughPvm) {
  if (setup_.opts.pokeMs <= 0 || !sessions_.takesPokes(tid)) {
    pokes_.erase(tid);
    return;
  }
  if (sessions_.finalSeen(tid)) {
    std::int32_t seq = sessions_.lastSeq(tid);
    if (throughPvm) poke(tid, &seq);
    pokes_.erase(tid);
    return;
  }
  std::int64_t gap = std::int64_t{setup_.opts.pokeMs} * 1'000'000;
  pokes_[tid] = {nowNs + gap, gap};
}

void Monitor::armPokeTimer() {
  if (setup_.opts.pokeMs <= 0 || finished_) return;
  // A quarter of the poke time: a quiet task is poked within 1.25 x pokeMs.
  pokeTimer_.expires_after(std::chrono::milliseconds(std::max(1, setup_.opts.pokeMs / 4)));
  pokeTimer_.async_wait([this](const auto& ec) { onPokeTimer(ec); });
}

void Monitor::onPokeTimer(const boost::system::error_code& ec) {
  if (ec || finished_) return;
  std::int64_t now = realtimeNs();
  bool poked = false;
  for (auto& [tid, due] : pokes_) {
    if (now < due.atNs) continue;
    poke(tid, nullptr);
    poked = true;
    due.gapNs = std::min(due.gapNs * 2, kPokeMaxNs);
    due.atNs = now + due.gapNs;
  }
  // pvm_send reads whatever has come in meanwhile into PVM's own queue,
  // where no socket wakes us for it: take it now.
  if (poked && drain()) watchPvmFds();
  armPokeTimer();
}

// The task's poke key (wire.h, Pokes), then, for a confirmation, the seq
// of its final message.  Always through pvmd (main.cpp refuses direct
// routes), and PvmDataDefault: libab packs its answer into the poke's own
// buffer, over the key (ab_poke.c).
void Monitor::poke(int tid, const int* finalSeq) {
  auto key = sessions_.pokeKey(tid);
  int buf = pvm_mkbuf(PvmDataDefault);
  int old = pvm_setsbuf(buf);
  pvm_pkint(key.data(), 2, 1);
  if (finalSeq) pvm_pkint(const_cast<int*>(finalSeq), 1, 1);
  int rc = pvm_send(tid, setup_.opts.tag + XAB_POKE_TAG_OFFSET);
  pvm_setsbuf(old);
  pvm_freebuf(buf);
  if (rc < 0)
    spdlog::debug("poking t{:x}: {}", tid, pvmErrorName(rc));
  else
    ++pokesSent_;
  spdlog::trace("poked t{:x}{}", tid, finalSeq ? " (final message received)" : "");
}

bool Monitor::writeOut() {
  if (pending_.empty()) return true;
  if (uplink_) {  // a relay: the text goes to abmon in batches
    uplink_->text().append(pending_);
    pending_.clear();
    uplink_->addEvents(formatter_.counters().events - eventsSent_);
    eventsSent_ = formatter_.counters().events;
    if (uplink_->full() && uplink_->send(RelayMsg::Batch) < 0 && !finished_) {
      spdlog::error("cannot send to abmon t{:x}: it has gone?", setup_.opts.relayOf);
      finish(kExitPvmLost);
      return false;
    }
    return true;
  }
  bool ok = std::fwrite(pending_.data(), 1, pending_.size(), setup_.out) == pending_.size() &&
            std::fflush(setup_.out) == 0;
  pending_.clear();
  if (!ok && !finished_) {
    spdlog::error("cannot write the trace: {}", std::strerror(errno));
    finish(kExitOutput);
  }
  return ok;
}

// The one way out of the loop: abmon.stop, mailbox entry gone, loop ends.
void Monitor::finish(int code) {
  if (finished_) return;
  finished_ = true;
  exitCode_ = code;
  writeExits(true);
  if (programOutput_) {
    programOutput_->drainNow();
    writeProgramLines();
    linesUntraced_ += heldLines_.size();
    if (linesUntraced_ > 0)
      spdlog::info("{} line(s) of {} not in the trace (written before it enrolled in PVM, or it never did)",
                   linesUntraced_, setup_.opts.program.front());
    programOutput_.reset();
  }
  if (tracer_) {
    tracer_->flushOutput(pending_, realtimeNs());
    tracer_->unregisterTracer();
    spdlog::info("PVM's tracer: {} records, {} events of libab tasks and pvmgs dropped, {} unreadable", tracer_->events(),
                 tracer_->dropped(), tracer_->bad());
    if (tracer_->forged() > 0)
      spdlog::warn("ignored {} trace event(s) or output message(s) not sent by the task (or pvmd) they name", tracer_->forged());
  }
  if (uplink_) {
    formatter_.flushAll(pending_, realtimeNs());
    writeOut();
    if (code != kExitPvmLost) uplink_->syncClock(kClockEnd, kClockEdgeExchanges);
    // Without its pvmd the relay's tasks are cut off: abmon ends them at once.
    uplink_->send(code == kExitPvmLost ? RelayMsg::Lost : RelayMsg::Stop);
  } else {
    if (programRunning_ && program_.ended())
      formatter_.programExit(pending_, realtimeNs(), program_.tid(), program_.exitCode(), program_.signal());
    formatter_.stop(pending_, realtimeNs(), tracer_ ? tracer_->events() : 0, tracer_ ? tracer_->tasks() : 0);
    if (code != kExitOutput) writeOut();
  }
  if (code != kExitPvmLost) unregisterAbmon(setup_.mailboxIndex, setup_.mailboxName);
  const Counters& c = formatter_.counters();
  spdlog::info("stopped: {} messages ({} through the local socket), {} events, {} tasks, {} bad, {} pokes",
               c.messages, local_.messages(), c.events, c.tasks, c.bad, pokesSent_);
  local_.reportRefusals();
  if (forgedExits_ > 0) spdlog::warn("ignored {} exit notice(s) not sent by pvmd", forgedExits_);
  releaseFds();
  control_.close();
  local_.close();
  signals_.cancel();
  pokeTimer_.cancel();
  programTimer_.cancel();
  uplinkTimer_.cancel();
  io_.stop();
}

// A relay: its stream to abmon, once abmon's token has come (relay.h,
// StreamToken); else its batches go as PVM messages.  Anything else abmon
// sent first asks it to stop (relayMessage's reading of it), once started.
void Monitor::connectUplink() {
  std::uint64_t token = 0;
  int got = uplink_->awaitStreamToken(token);
  if (got > 0) uplink_->connectStream(setup_.opts.relayPort, token);
  if (got < 0) {
    spdlog::info("abmon asks the relay to stop");
    boost::asio::post(io_, [this] { if (!finished_) stopGracefully(); });
  }
}

// abmon: a relay on every other host, now and whenever one is added.
void Monitor::startRelays() {
  const Options& o = setup_.opts;
  std::vector<std::string> args = {"--relay", std::to_string(setup_.tid) + "," + std::to_string(pvm_getcontext()),
                                   "--tag", std::to_string(o.tag), "--batch", std::to_string(o.batch),
                                   "--flush-ms", std::to_string(o.flushMs), "--poke-ms", std::to_string(o.pokeMs)};
  if (o.pvmOnly) args.emplace_back("--pvm-only");
  if (!o.control.empty()) args.emplace_back("--relay-step");  // its host's tasks step too
  hub_ = std::make_unique<RelayHub>(setup_.tid, o.tag, std::move(args));
  hub_->attach(io_, pending_, formatter_, [this] { writeOut(); }, !o.relayPvm);
  hub_->start(pending_, exitTag_);
  drainSoon();  // pvm_spawn and pvm_trecv may have queued other messages
}

// abmon: a relay's batch or a host notice.  A relay: abmon asks it to stop.
bool Monitor::relayMessage(int tag, int src, int bufid, std::int64_t recvNs) {
  if (hub_) {
    bool was = hub_->handle(tag, src, bufid, recvNs, pending_, formatter_);
    if (was && tag != setup_.opts.tag + kRelayTagOffset) drainSoon();  // it may have spawned
    return was;
  }
  if (!isRelay() || tag != setup_.opts.tag + kRelayTagOffset) return false;
  if (src == setup_.opts.relayOf) {
    int tid = 0, seq = 0;
    if (RelayUplink::takeStepGo(tid, seq)) {
      local_.sendStepGo(tid, seq);
      return true;
    }
    spdlog::info("abmon asks the relay to stop");
    boost::asio::post(io_, [this] { if (!finished_) stopGracefully(); });
  }
  return true;
}

// Stepping: a go for a task on this host or, through its
// relay, on another.
bool Monitor::stepGo(std::int32_t tid, std::int32_t seq) {
  if (local_.sendStepGo(tid, seq)) return true;
  if (!hub_ || !hub_->stepGo(tid, seq)) return false;
  drainSoon();  // pvm_send may have read messages into PVM's queue
  return true;
}

// A relay of an abmon in control mode: its tasks' asks go to abmon, after
// the text gathered so far (their step.wait records).
void Monitor::relaySteps() {
  local_.onStep(
      [this](std::int32_t tid, const xab_step_ask& a) {
        writeOut();
        if (uplink_->sendStepAsk({tid, a.seq, a.kind, a.peer, a.tag}) < 0) local_.sendStepGo(tid, a.seq);
        drainSoon();
      },
      [this](std::int32_t tid) {
        uplink_->sendStepGone(tid);
        drainSoon();
      });
}

void Monitor::armUplinkTimer() {
  uplinkTimer_.expires_after(std::chrono::milliseconds(kUplinkMs));
  uplinkTimer_.async_wait([this](const auto& ec) {
    if (ec || finished_) return;
    if (realtimeNs() - uplink_->lastClockNs() >= kClockPeriodNs) uplink_->syncClock(kClockRunning, kClockRunExchanges);
    if (!uplink_->empty() && uplink_->send(RelayMsg::Batch) < 0) return finish(kExitPvmLost);
    drainSoon();  // pvm_send may have read messages into PVM's queue
    armUplinkTimer();
  });
}

void Monitor::report(const Problem& p) {
  auto& seen = reported_[static_cast<std::size_t>(p.reason)];
  auto level = seen ? spdlog::level::debug : spdlog::level::warn;
  spdlog::log(level, "bad event message from t{:x}: {} (n={}){}", p.tid, badReasonName(p.reason), p.n, seen ? "" : "; further ones of this kind are counted");
  seen = true;
}

}  // namespace xab::abmon
