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
// until nothing has come (no message, no clock ping: a task making its last
// exchanges sends its records next) for kStopQuietNs, for kStopMaxNs at
// most, looking at the local sockets every kStopPollUs.
constexpr std::int64_t kStopQuietNs = 100'000'000;
constexpr int kStopPollUs = 10'000;
constexpr std::int64_t kStopMaxNs = 5'000'000'000;
// How long a quiet abmon waits for its relays' last batches (a relay reads
// its tasks dry within kStopQuietNs of its own, normally).  A relay whose
// stream is still open is waited for longer: a lossy link delays its last
// batch by TCP's retransmissions, seconds apart, and a host that has gone
// ends its stream within the stream's keepalive (6 s, relay_hub_streams.cpp).
constexpr std::int64_t kRelayStopWaitNs = 3'000'000'000;
constexpr std::int64_t kRelayStreamWaitNs = 15'000'000'000;
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
      output_(io_, setup_.out, setup_.zstd),
      local_(
          io_, [this](std::int32_t tid, std::span<const std::byte> body,
                      std::int64_t recvNs) { takeLocal(tid, body, recvNs); },
          [this] { localDone(); },
          [this](std::int32_t tid, pid_t pid) { return verifyLocal(tid, pid); }),
      control_(io_, [this](std::int32_t tid, std::int32_t seq) { return stepGo(tid, seq); }),
      pokeTimer_(io_),
      programTimer_(io_),
      uplinkTimer_(io_),
      sampleTimer_(io_) {
  formatter_.onSpawn([this](std::int32_t parent, const std::vector<int>& tids) { spawned(parent, tids); });
  formatter_.onIdentity([this](std::int32_t tid, std::int32_t parent, std::int32_t pid) { identified(tid, parent, pid); });
}

Monitor::~Monitor() { releaseFds(); }

int Monitor::run() {
  std::int64_t now = realtimeNs();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  formatter_.setHost(host);
  if (setup_.opts.sampleMs > 0) sampler_ = std::make_unique<Sampler>(setup_.tid, host);
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
    control_.onFilter([this](std::int32_t tid, unsigned omit, std::vector<std::int32_t>& told) {
      return filterTasks(tid, omit, told);
    });
    local_.onStep([this](std::int32_t tid, const xab_step_ask& a) { control_.ask(tid, a); },
                  [this](std::int32_t tid) { control_.gone(tid); });
    if (hub_) hub_->onStep([this](const StepAskFields& a) { control_.ask(a.tid, {XAB_STEP_MAGIC, a.seq, a.kind, a.peer, a.tag}); },
                           [this](int tid, const std::string& why) { control_.gone(tid, why); });
  }
  if (isRelay() && setup_.opts.relayStep) relaySteps();
  // Messages may have come between registering and now: read them first.
  if (drain()) watchPvmFds();
  armPokeTimer();
  armSampleTimer();
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
  std::uint64_t heard = local_.datagrams();
  auto waitMore = [&](std::int64_t now) {
    return now - start < kStopMaxNs || (hub_ && now - start < kRelayStreamWaitNs && hub_->streamsStillOpen());
  };
  for (std::int64_t now = start; waitMore(now); now = realtimeNs()) {
    bool got = local_.drainAll();
    // A clock ping is no message, but the task's last records follow its
    // exchanges: it is not quiet.
    if (local_.datagrams() != heard) {
      heard = local_.datagrams();
      last = now;
    }
    if (got || (hub_ && hub_->pollStreams())) {
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
               (!hub_ || hub_->allStopped() ||
                (now - start >= kRelayStopWaitNs && !hub_->streamsStillOpen()))) {
      return true;  // a relay without a stream that has not answered by then may be cut off (a dead host)
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
    if (!tracer_ || !tracer_->traces(e.tid)) formatter_.spawnedIdentity(pending_, e.tid, now);
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
  bool ok = output_.write(pending_);
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
  if (sampler_ && code != kExitPvmLost) sampleHost();  // the run's last interval
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
    if (programRunning_ && program_.ended() && !tracer_)
      formatter_.silentProgram(pending_, program_.tid(), program_.name(), realtimeNs());
    if (programRunning_ && program_.ended())
      formatter_.programExit(pending_, realtimeNs(), program_.statusTid(), program_.exitCode(), program_.signal());
    formatter_.stop(pending_, realtimeNs(), tracer_ ? tracer_->events() : 0, tracer_ ? tracer_->tasks() : 0);
    if (code != kExitOutput) writeOut();
    if (!output_.close() && code == kExitOk) exitCode_ = kExitOutput;  // a compressed trace's end
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
  sampleTimer_.cancel();
  io_.stop();
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
