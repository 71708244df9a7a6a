// local_intake.h -- event messages from tasks on abmon's own host, through
// a Unix socket instead of PVM (wire.h, "The local socket").
//
// One listening SOCK_SEQPACKET socket at an abstract address; one
// connection per task, whose first datagram (the hello) names its tid.
// The tid is believed only if the Verify callback says the connecting
// process (SO_PEERCRED) is that task; every later datagram is handed to the
// sink as one event message of that task if that same process sent it
// (SCM_CREDENTIALS).  Connections are bounded in number and in how long
// they may take to say hello (docs/abmon.md, "Security" and "Bounds").
// Everything runs on the io_context's one thread, like the rest of abmon.
#ifndef XAB_ABMON_LOCAL_INTAKE_H
#define XAB_ABMON_LOCAL_INTAKE_H

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

struct xab_step_ask;

namespace xab::abmon {

class LocalIntake {
 public:
  // One event message of `tid`, read at `recvNs`.
  using Sink = std::function<void(std::int32_t tid, std::span<const std::byte> body, std::int64_t recvNs)>;
  // Called after a burst of messages has gone to the sink (to write them out).
  using Done = std::function<void()>;
  // Whether process `pid` is the task `tid`: Accept, Refuse (with why), or
  // Wait (cannot tell yet: asked again every second until kHelloTimeoutNs).
  struct Verdict {
    enum What : std::uint8_t { Accept, Refuse, Wait } what;
    std::string why;
  };
  using Verify = std::function<Verdict(std::int32_t tid, pid_t pid)>;

  // Why a connection or a datagram was refused (counted, reported once).
  enum class Refusal : std::uint8_t {
    OtherUser,  // the connecting process is not abmon's user
    BadHello,   // the first datagram is not xab's hello
    Forged,     // the hello names a task the process is not
    NoHello,    // no hello within kHelloTimeoutNs
    TooMany,    // kMaxConnections reached (or the descriptor limit)
    OtherProcess,  // a datagram sent by a process other than the one that connected
    Count_
  };
  static constexpr std::int64_t kHelloTimeoutNs = 5'000'000'000;

  LocalIntake(boost::asio::io_context& io, Sink sink, Done done, Verify verify);
  ~LocalIntake();
  LocalIntake(const LocalIntake&) = delete;
  LocalIntake& operator=(const LocalIntake&) = delete;

  // A listening socket at "\0xab-abmon.<pid>.<n>": its fd, or -1 and *error.
  // Opened before abmon registers (the name goes in the mailbox entry).
  static int listenAt(std::string& name, std::string& error);
  // Takes over a socket from listenAt (-1: none, PVM messages only) and
  // waits for connections and datagrams in the io_context.
  void start(int listenFd);
  // Reads (now, without waiting) whatever `tid` has written: before its
  // PVM messages and its exit are taken, so its records stay in order.
  void drain(std::int32_t tid);
  // Accepts and reads every connection dry; true if anything came.
  bool drainAll();
  // Judges now every hello still waiting for its verdict (when stopping),
  // and reads the connections believed; true if anything came.
  bool judgeWaiting();
  void close();
  bool open() const { return listener_ != nullptr; }

  // Control mode (control.h): a task's step ask goes to
  // `ask`; `gone` hears of a task whose connection went.
  using StepAsk = std::function<void(std::int32_t tid, const xab_step_ask& ask)>;
  using StepGone = std::function<void(std::int32_t tid)>;
  void onStep(StepAsk ask, StepGone gone) { stepAsk_ = std::move(ask), stepGone_ = std::move(gone); }
  // Lets `tid` make the call of ask `seq`: false when it has no connection.
  bool sendStepGo(std::int32_t tid, std::int32_t seq);

  std::uint64_t messages() const { return messages_; }
  // Every datagram read so far: messages, hellos, clock pings, step asks.
  // A task making its clock exchanges sends no message for a while, yet
  // its last records come right after (ab_clock.c).
  std::uint64_t datagrams() const { return datagrams_; }
  std::size_t connections() const { return conns_.size(); }
  std::uint64_t refused(Refusal r) const { return refused_[static_cast<std::size_t>(r)]; }
  // One warning line with every refusal counted, if there was any.
  void reportRefusals() const;

 private:
  struct Conn {
    Conn(boost::asio::io_context& io, int fd, pid_t pid, std::int64_t since)
        : sd(io, fd), pid(pid), acceptedNs(since) {}
    boost::asio::posix::stream_descriptor sd;
    pid_t pid;                // the process that connected (SO_PEERCRED)
    std::int64_t acceptedNs; // CLOCK_MONOTONIC, for the hello timeout
    std::int32_t claimed = 0; // the hello's tid, while its verdict is Wait
    std::int32_t tid = 0;     // 0 until the hello is believed
    int pings = 0;            // clock pings answered (XAB_TEST_SLOW_PONGS)
    bool deferred() const { return tid == 0 && claimed != 0; }
  };
  void waitAccept();
  bool acceptAll();
  bool acceptFailed(int err);
  void refuse(Refusal r, const std::string& detail);
  bool takeHello(Conn& c, std::span<const std::byte> body);
  bool judge(Conn& c);
  void armSweep();
  void sweep();
  void waitRead(const std::shared_ptr<Conn>& c);
  // Reads until the socket is empty (or `limit` datagrams); false once the
  // connection is over.
  bool readAll(Conn& c, bool& got, std::size_t limit = SIZE_MAX);
  bool answerClockPing(Conn& c, std::span<const std::byte> body, std::int64_t readNs);
  bool takeStepAsk(const Conn& c, std::span<const std::byte> body);
  void drop(const std::shared_ptr<Conn>& c);
  bool readDry(std::int32_t tid);

  boost::asio::io_context& io_;
  Sink sink_;
  Done done_;
  Verify verify_;
  StepAsk stepAsk_;
  StepGone stepGone_;
  std::unique_ptr<boost::asio::posix::stream_descriptor> listener_;
  std::vector<std::shared_ptr<Conn>> conns_;
  std::vector<std::byte> buf_;
  std::uint64_t messages_ = 0;
  std::uint64_t datagrams_ = 0;
  std::array<std::uint64_t, static_cast<std::size_t>(Refusal::Count_)> refused_{};
  // The most connections kept at once: half the descriptor limit less 16
  // (PVM's own sockets need the rest), 4 .. 4096.
  std::size_t maxConns_ = 4;
  // Kept open to be given up at the descriptor limit: with it, a pending
  // connection can be accepted and closed instead of waking abmon forever.
  int spareFd_ = -1;
  // Test knob XAB_TEST_ACCEPT_PAUSE_MS (docs/abmon.md): abmon stops this
  // long after taking a connection, so that a test can write on it then.
  int acceptPauseMs_ = 0;
  // Test knob XAB_TEST_SLOW_PONGS (docs/abmon.md): each connection's first
  // this many clock pings are answered late, as by an abmon busy elsewhere;
  // XAB_TEST_SLOW_PONG_MS says how late: by default well after libab has
  // given up waiting for the answer (ab_clock.c, 200 ms).
  int slowPongs_ = 0;
  int slowPongMs_ = 600;
  boost::asio::steady_timer acceptPause_;  // after an accept error: wait, do not spin
  boost::asio::steady_timer sweepTimer_;   // closes connections without a hello
  bool sweepArmed_ = false;
  std::uint64_t acceptErrors_ = 0;
};

}  // namespace xab::abmon

#endif
