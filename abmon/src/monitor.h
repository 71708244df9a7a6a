// monitor.h -- abmon's event loop: PVM's sockets and the stop signals under
// one Boost.Asio io_context, on one thread.
#ifndef XAB_ABMON_MONITOR_H
#define XAB_ABMON_MONITOR_H

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <deque>
#include <memory>
#include <span>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "control.h"
#include "formatter.h"
#include "local_intake.h"
#include "options.h"
#include "program.h"
#include "program_output.h"
#include "pvm_tracer.h"
#include "relay.h"
#include "trace_output.h"
#include "sampler.h"

namespace xab::abmon {

struct MonitorSetup {
  Options opts;
  int tid = 0;            // abmon's own tid
  int mailboxIndex = 0;  // to delete the entry when stopping
  int localFd = -1;      // LocalIntake::listenAt's socket; -1: PVM messages only
  int controlFd = -1;    // Control::listenAt's socket; -1: no control mode
  std::FILE* out = nullptr;  // abmon's trace; a relay has none (RelayUplink)
  bool zstd = false;         // out gets it zstd-compressed (trace_output.h)
  std::string mailboxName;    // the entry to delete when stopping
};

class Monitor {
 public:
  explicit Monitor(MonitorSetup setup);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  // Writes the header and abmon.start, then runs until a signal or an
  // error; returns the exit code.
  int run();

 private:
  void watchPvmFds();
  void releaseFds();
  void onReadable(const boost::system::error_code& ec, unsigned generation);
  void onSignal(const boost::system::error_code& ec, int signo);
  void stopGracefully();
  void startProgram();
  void programLine(std::string_view stream, std::string_view line, std::int64_t ns);
  void writeProgramLines();
  void startTracer();
  std::string programName(int tid, bool orphan);
  void armProgramTimer();
  void onProgramTimer(const boost::system::error_code& ec);
  bool drain();
  bool drainInFlight();
  bool take(int bufid);
  bool socketsQuiet() const;
  void writeExits(bool quiet);
  void handleMessage(int bufid, std::int64_t recvNs);
  void takeLocal(std::int32_t tid, std::span<const std::byte> body, std::int64_t recvNs);
  void localDone();
  LocalIntake::Verdict verifyLocal(std::int32_t tid, pid_t pid);
  static bool fromPvmd(int src);
  static bool processRunning(pid_t pid);
  void rememberEnded(int tid);
  void drainSoon();
  void watchTask(int tid);
  void spawned(int parent, const std::vector<int>& tids);
  void identified(int tid, int parent, pid_t pid);
  void heardFrom(int tid, std::int64_t nowNs, bool throughPvm);
  void armPokeTimer();
  void onPokeTimer(const boost::system::error_code& ec);
  int sendPoke(int tid, std::span<const int> words);  // the key, then words
  void poke(int tid, const int* finalSeq);
  std::string filterTasks(std::int32_t tid, unsigned omit, std::vector<std::int32_t>& told);
  void pokeFilter(std::int32_t tid, unsigned omit);
  bool writeOut();
  void finish(int code);
  void report(const Problem& p);
  bool isRelay() const { return setup_.opts.relayOf != 0; }
  void startRelays();
  void connectUplink();
  bool relayMessage(int tag, int src, int bufid, std::int64_t recvNs);
  void armUplinkTimer();
  void armSampleTimer();
  void sampleHost();
  bool stepGo(std::int32_t tid, std::int32_t seq);
  void relaySteps();

  MonitorSetup setup_;
  int exitTag_;
  Sessions sessions_;  // before formatter_, which updates it
  Formatter formatter_;
  std::string pending_;  // formatted text not yet written
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  TraceOutput output_;  // setup_.out, as it is or compressed
  std::vector<boost::asio::posix::stream_descriptor> fds_;
  LocalIntake local_;
  Control control_;  // after local_, which it answers through
  bool pvmTouched_ = false;  // a PVM call outside drain() may have queued messages
  bool drainPosted_ = false;  // drainSoon() has a drain waiting in the loop
  unsigned generation_ = 0;  // wait handlers of older fd sets are stale
  std::unordered_set<int> watched_;
  // Pokes (wire.h): a task quiet for pokeMs is asked for its events, again
  // after twice as long while it stays quiet, and so on up to kPokeMaxNs.
  struct PokeDue {
    std::int64_t atNs;
    std::int64_t gapNs;
  };
  std::unordered_map<int, PokeDue> pokes_;
  boost::asio::steady_timer pokeTimer_;
  std::uint64_t pokesSent_ = 0;
  struct Exit {
    int tid;
    std::int64_t notifiedNs;
  };
  std::vector<Exit> exits_;  // tasks pvmd says have gone, task.exit not yet written
  std::array<bool, static_cast<std::size_t>(BadReason::Count_)> reported_{};
  std::uint64_t foreign_ = 0;  // messages with neither of our tags
  std::uint64_t forgedExits_ = 0;  // exit notices not sent by a pvmd
  std::uint64_t unverified_ = 0;    // local connections read after their task had gone
  static constexpr std::size_t kEndedKept = 65536;
  std::deque<int> ended_;  // tids whose task.exit is written, newest last
  std::unordered_map<int, pid_t> bound_;  // tid -> the process its local connection came from
  // `abmon -- PROGRAM`: polled until it and its tasks have ended.
  Program program_;
  std::unique_ptr<ProgramOutput> programOutput_;
  // Its lines before its task is known (it may print before pvm_mytid):
  // written once it is, bounded; dropped if it never enrols.
  struct HeldLine {
    std::string_view stream;  // ProgramOutput's names: static
    std::string text;
    std::int64_t ns;
  };
  std::deque<HeldLine> heldLines_;
  std::size_t heldBytes_ = 0;
  std::uint64_t linesUntraced_ = 0;
  std::int64_t tidAskedNs_ = 0;
  boost::asio::steady_timer programTimer_;
  bool programRunning_ = false;
  int exitCode_ = kExitOk;
  bool finished_ = false;
  std::unique_ptr<PvmTracer> tracer_;  // --pvm-tracer (pvm_tracer.h)
  // Relays (relay.h): abmon's hub of them, or, in a relay, its uplink.
  std::unique_ptr<RelayHub> hub_;
  std::unique_ptr<RelayUplink> uplink_;
  std::uint64_t eventsSent_ = 0;  // the formatter's events already in a batch
  boost::asio::steady_timer uplinkTimer_;
  // Samples of this host (sampler.h), every --sample-ms.
  std::unique_ptr<Sampler> sampler_;
  boost::asio::steady_timer sampleTimer_;
};

}  // namespace xab::abmon

#endif
