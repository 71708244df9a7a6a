// relay.h -- a relay on every host (docs/abmon.md "Relays").
//
// abmon starts `abmon --relay TID,CONTEXT` on every other host of the
// virtual machine (pvm_spawn, PvmTaskHost), at start and whenever a host is
// added.  A relay is abmon's intake and formatter on its own host: its
// host's tasks find it in the mailbox (wire.h, XAB_RELAY_MBOX_PREFIX) and
// write to its local socket; it stamps its own receive time, pokes them,
// watches their exits, and sends the trace text it made to abmon in large
// batches, one PVM message each (RelayUplink).  abmon writes the text as it
// came, with a relay.batch record per batch, and on a host's deletion a
// host.delete record and a task.exit for every task its relay had open
// (RelayHub).
//
// One message layout, tag (the mailbox tag + kRelayTagOffset), in abmon's
// context, all ints packed with pvm_pkint, then the text with pvm_pkbyte:
//   what (RelayMsg), relay clock ns (high, low 32 bits),
//   n opened, that many tids, n closed, that many tids,
//   events, text length, then the text (trace lines; for Start, the host name)
// abmon sends a relay Stop (what only) with the same tag.
// StreamToken (abmon -> relay, same tag, the first message abmon sends a
// relay, right after pvm_spawn, when the relays have streams): what, the
// stream's token (high, low 32 bits; relay_stream.h, "Hello").  Not an
// argument: a process's command line (/proc/PID/cmdline) is readable by
// every user of its host, and one who read the token could open a stream
// in the relay's name before it.  abmon and its relays refuse PVM's direct
// routes (main.cpp, enrol), so the message goes through the two pvmds,
// which no other task reads.  The relay waits kTokenWaitMs for it before
// it connects its stream; without it, its batches go as PVM messages.
// By default a relay sends its batches (Batch, Stop, Lost) on a TCP stream
// to abmon instead (relay_stream.h: the same fields), and its clock
// exchanges too (ping and pong frames on the same socket: the direct path,
// authenticated by abmon's token, where a PVM direct route's source is not);
// Start, stepping and abmon's Stop stay PVM messages.
#ifndef XAB_ABMON_RELAY_H
#define XAB_ABMON_RELAY_H

#include <xab/wire.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "relay_stream.h"

namespace xab::abmon {

class Formatter;

// The relays' tags: wire.h's table.
inline constexpr int kRelayTagOffset = XAB_RELAY_TAG_OFFSET;            // relay <-> abmon
inline constexpr int kHostAddTagOffset = XAB_HOST_ADD_TAG_OFFSET;       // pvm_notify(PvmHostAdd)
inline constexpr int kHostDeleteTagOffset = XAB_HOST_DELETE_TAG_OFFSET;  // pvm_notify(PvmHostDelete)
inline constexpr int kClockPongTagOffset = XAB_CLOCK_PONG_TAG_OFFSET;   // abmon -> relay: a clock pong

// ClockPing as a PVM message (a relay without a stream): what, the relay's
// clock (2 ints), k (the ping's number, never the same twice) -- no more;
// abmon answers at once with a pong on kClockPongTagOffset: k, its clock
// when it read the ping (t2) and when it answered (t3), each as high, low
// 32 bits.  On a stream, ping and pong are
// frames (relay_stream.h).  RelayMsg is there, with the frame format.

// Stepping through a relay (docs/abmon.md "Control mode").  A
// relay started with --relay-step says control mode in its mailbox entry,
// so its host's tasks ask it before each communicating call.  It sends its
// gathered text first (the task's step.wait record comes before the ask),
// then StepAsk: what, its clock (2 ints), tid, seq, kind, peer, tag; a task
// that was waiting and went: StepGone: what, clock, tid.  abmon's Control
// decides; its go comes back as StepGo: what, tid, seq (same tag), and the
// relay answers the task on its local socket.
struct StepAskFields {
  int tid, seq, kind, peer, tag;
};

std::int64_t realtimeNs();

// The relay's side: text and task changes gathered until a batch is due.
class RelayUplink {
 public:
  RelayUplink(int abmonTid, int tag) : abmonTid_(abmonTid), tag_(tag) {}
  std::string& text() { return text_; }
  void opened(int tid) { opened_.push_back(tid); }
  void closed(int tid) { closed_.push_back(tid); }
  void addEvents(std::uint64_t n) { events_ += n; }
  // A batch is due once it holds kBatchBytes.
  bool full() const { return text_.size() >= kBatchBytes; }
  bool empty() const { return text_.empty() && opened_.empty() && closed_.empty(); }
  // Sends what is gathered (even nothing, for Start and Stop); PVM's status
  // (on the stream: 0, or -1 when it is broken).
  int send(RelayMsg what);
  // Batches on a TCP stream to abmon's host (relay_stream.h) from now on;
  // false (batches stay PVM messages) when it cannot connect.
  bool connectStream(int port, std::uint64_t token);
  // Waits up to kTokenWaitMs for abmon's StreamToken (above): 1 with
  // `token`; 0 when none came; -1 when abmon sent something else first
  // (it asks the relay to stop: abmon could not send the token, or is
  // stopping already).
  int awaitStreamToken(std::uint64_t& token);
  bool streaming() const { return streamFd_ >= 0; }
  ~RelayUplink();
  RelayUplink(const RelayUplink&) = delete;
  RelayUplink& operator=(const RelayUplink&) = delete;

  // Global time across hosts (docs/global-time.md): `count` ping-pong
  // exchanges of the relay's clock with abmon's, each a `clock` record of
  // the relay's tid (ref= abmon) in the next batch.  The relay's tasks
  // sample the relay's clock; the model composes the two fits.  Returns
  // the exchanges answered (each waits kClockWaitMs at most).
  int syncClock(int phase, int count);
  std::int64_t lastClockNs() const { return lastClockNs_; }

  // Stepping (above): a task's ask or its going, after the text gathered
  // so far.  PVM's status.
  int sendStepAsk(const StepAskFields& a);
  int sendStepGone(int tid);
  // A message from abmon, its `what` unpacked: true (and tid, seq) when it
  // is a StepGo; else (a Stop) false.
  static bool takeStepGo(int& tid, int& seq);
#ifdef XAB_TEST_KNOBS
  // XAB_TEST_RELAY_FEED=BATCHES (bench/run-ingest-bench.sh): the relay
  // sends BATCHES full batches of made-up records of a task that does not
  // exist, as fast as it can, before its tasks' own: what abmon's intake
  // of relays sustains.  Returns the records sent.
  std::uint64_t testFeed(int batches);
#endif

  static constexpr std::size_t kBatchBytes = 256 * 1024;
  static constexpr int kClockWaitMs = 500;
  // Less than abmon's wait for a relay's start (relay.cpp), so a relay whose
  // token got lost still starts in time, with PVM batches.
  static constexpr int kTokenWaitMs = 5000;

 private:
  int sendOnStream(RelayMsg what);
  int abmonTid_;
  int tag_;
  int selfTid_ = 0;
  std::int64_t lastClockNs_ = 0;
  int streamFd_ = -1;
  FrameReader pongs_;  // what abmon writes back on the stream: clock pongs
  int pings_ = 0;      // the clock pings sent, on it or as PVM messages
  std::string text_;
  std::string frame_;
  std::vector<int> opened_, closed_;
  std::uint64_t events_ = 0;
};

// abmon's side: its relays, what each has sent, and the hosts they are on.
class RelayHub {
 public:
  RelayHub(int abmonTid, int tag, std::vector<std::string> relayArgs)
      : abmonTid_(abmonTid), tag_(tag), relayArgs_(std::move(relayArgs)) {}

  // Asks pvmd for host additions and deletions, starts a relay on every
  // other host and waits (a few seconds at most) for each to say it is
  // ready, so a program started next has its relays.  Writes their
  // relay.start records.
  void start(std::string& out, int exitTag);
  // Before start: records go to `out`, then `flush` writes them.  With
  // `streams`, the relays send their batches on TCP streams
  // (relay_stream.h), read in `io`; without, as PVM messages.
  void attach(boost::asio::io_context& io, std::string& out, Formatter& fmt, std::function<void()> flush,
              bool streams);
  // Reads whatever the streams hold now (without waiting): abmon's stop.
  // True when something came.
  bool pollStreams();
  // pvm_trecv(-1, tag, waitMs) that reads the relays' streams meanwhile as
  // soon as they have something, so their clock pings are answered at once
  // (`streamed`: records came on them): a message's bufid, 0 when none
  // came in time, PVM's error.
  int receive(int tag, int waitMs, bool& streamed);
  // A message with a relay tag, or a host notice: true when it was one.
  bool handle(int tag, int src, int bufid, std::int64_t recvNs, std::string& out, Formatter& fmt);
  // A task exit notice for one of our relays: true when it was one.
  bool relayExited(int tid);
  ~RelayHub();
  RelayHub(const RelayHub&) = delete;
  RelayHub& operator=(const RelayHub&) = delete;
  void stopAll();
  // Every relay has said its last word: its Stop was read, or its host has
  // gone, or it exited (pvmd's notice) and its stream, if it had one, has
  // ended (what it sent before its exit is read).
  bool allStopped() const;
  // A relay not stopped yet whose stream is open: its Stop may be on its
  // way through a slow or lossy link (TCP retransmits it); a host that has
  // gone ends the stream within kKeepIdleS + kKeepIntervalS * kKeepProbes.
  bool streamsStillOpen() const;
  bool any() const { return !relays_.empty(); }
  bool isRelay(int tid) const { return relays_.count(tid) > 0; }  // PVM's tracer drops its events
  std::uint64_t batches() const { return batches_; }
  // Stepping through relays (above): where a relay's asks and goings go.
  // `gone` hears of a task held through a relay that went: why is empty
  // for the task's own end, "host NAME HOW" when its relay or host went.
  void onStep(std::function<void(const StepAskFields&)> ask, std::function<void(int tid, const std::string& why)> gone) {
    stepAsk_ = std::move(ask), stepGone_ = std::move(gone);
  }
  // The go for ask `seq` of a task that asked through a relay: false when
  // no live relay has that task waiting.
  bool stepGo(int tid, int seq);

 private:
  struct Relay {
    std::string host;
    int hostTid = 0;
    bool started = false;
    bool live = true;
    bool hostGone = false;
    bool exitNoticed = false;     // pvmd said the relay task has exited
    bool stopSent = false;        // abmon asked it to stop: its exit is expected
    bool stopRead = false;        // its Stop came: nothing more will
    bool hadStream = false;       // its stream's hello came (one per relay)
    std::int64_t streamEndNs = 0;  // its stream ended with neither Stop nor Lost
    std::int64_t lostNs = 0;       // it said Lost (checkLost writes host.delete)
    std::unordered_set<int> tasks;  // opened and not yet closed
  };
  struct Stream {
    int fd = -1;
    int tid = 0;  // the relay's, once its hello is read
    std::int64_t acceptedNs = 0;
    std::string hello;
    FrameReader reader;
    std::unique_ptr<boost::asio::posix::stream_descriptor> wait;
    bool ended = false;
    std::uint64_t pongsDropped = 0;
  };
  void spawnOn(int hostTid, std::string& out);
  void sendStreamToken(int relayTid, const std::string& host);
  void awaitStarts(std::string& out);
  void onRelay(Relay& r, int src, std::int64_t recvNs, std::string& out);
  void onBatch(Relay& r, int src, std::int64_t recvNs, const RelayBatch& b, std::string& out);
  void answerClockPing(int src, std::int64_t recvNs);
  void answerClockPing(Stream& s, int id, std::int64_t readNs);
  bool takeStep(int what, int src);
  void drainStreamOf(int relayTid);
  bool streamOpen(int relayTid) const;  // its stream's hello came, and it has not ended
  void forgetSteps(int relayTid, const char* how);
  std::string goneWhy(int relayTid, const char* how) const;
  void hostDeleted(int hostTid, std::int64_t recvNs, std::string& out, Formatter& fmt);
  void hostGone(int tid, Relay& r, std::int64_t nowNs, const char* how, std::string& out, Formatter& fmt);
  void armAccept();
  void acceptStreams();
  void armStream(Stream& s);
  bool readStream(Stream& s);
  bool readHello(Stream& s);
  void streamEnded(Stream& s);
  void armLostCheck();
  void checkLost();
  std::string hostName(int hostTid) const;

  int abmonTid_;
  int tag_;
  int exitTag_ = 0;
  std::vector<std::string> relayArgs_;
  std::unordered_map<int, Relay> relays_;  // by the relay's tid
  std::uint64_t batches_ = 0;
  std::function<void(const StepAskFields&)> stepAsk_;
  std::function<void(int, const std::string&)> stepGone_;
  std::unordered_map<int, int> stepRelay_;  // a task waiting through a relay: that relay's tid
  // The streams (listen): abmon's port, the token its relays say, and
  // where records go.
  boost::asio::io_context* io_ = nullptr;
  std::string* out_ = nullptr;
  Formatter* fmt_ = nullptr;
  std::function<void()> flush_;
  int listenFd_ = -1;
  std::uint64_t token_ = 0;
  std::unique_ptr<boost::asio::posix::stream_descriptor> acceptWait_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::unique_ptr<boost::asio::steady_timer> lostTimer_;
};

}  // namespace xab::abmon

#endif
