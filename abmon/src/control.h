// control.h -- abmon's control mode (docs/abmon.md "Control
// mode"): stepping the live program.
//
// With --control PATH, tasks on abmon's host stop before each
// communicating call and ask (wire.h, struct xab_step_ask) through their
// local socket; LocalIntake hands the asks here.  A client of the control
// socket at PATH (xabview --control, or any program that speaks the line
// protocol, xab/control_protocol.h) decides when each task goes on.
// Without a client every ask is answered at once; a client that leaves
// releases every task and clears its breakpoints, so no client can leave
// the program hung.
//
// One client at a time: another that connects meanwhile is told
// "error busy ..." and closed, never left waiting for a greeting.  Requests
// may come in any pieces (partial lines are kept until their newline) and
// many at once; answers are queued and written as the client reads them,
// so a client that does not read stalls only itself: abmon stops reading
// its requests once kMaxQueued bytes of answers wait, and goes on taking
// the trace.  A line longer than kMaxLine ends the client.
#ifndef XAB_ABMON_CONTROL_H
#define XAB_ABMON_CONTROL_H

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/streambuf.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

struct xab_step_ask;

namespace xab::abmon {

class Control {
 public:
  // Sends the go for ask `seq` to task `tid`: false when the task is gone.
  using Go = std::function<bool(std::int32_t tid, std::int32_t seq)>;

  Control(boost::asio::io_context& io, Go go);
  // The "filter" request (xab/control_protocol.h): tells task `tid`
  // (kAllTasks: every task that takes pokes) to omit the XAB_FILTER_*
  // families `omit` from now on.  Fills `told` with the tasks told; an
  // error's text (no "error " prefix), or empty.
  static constexpr std::int32_t kAllTasks = -1;
  using Filter = std::function<std::string(std::int32_t tid, unsigned omit, std::vector<std::int32_t>& told)>;
  void onFilter(Filter filter) { filter_ = std::move(filter); }
  ~Control();
  Control(const Control&) = delete;
  Control& operator=(const Control&) = delete;

  // A listening Unix stream socket at `path` (a stale socket file left by
  // an abmon that died is replaced): its fd, or -1 and *error.
  static int listenAt(const std::string& path, std::string& error);
  // Takes over listenAt's socket (-1: no control mode).
  void start(int fd, std::string path);
  bool on() const { return acceptor_ != nullptr; }
  static constexpr std::size_t kMaxLine = 4096;           // a longer request ends the client
  static constexpr std::size_t kMaxQueued = 256 * 1024;   // answers waiting: stop reading requests
  // A task asks to make a call.
  void ask(std::int32_t tid, const xab_step_ask& a);
  // A task's connection went: forget its ask.  `why` (may be empty) is
  // appended to the event, e.g. "host node1 delete" when its host went.
  void gone(std::int32_t tid, const std::string& why = {});
  void close();

 private:
  struct Pending {
    std::int32_t seq, kind, peer, tag;
  };
  void waitAccept();
  void refuseBusy();
  void readLine();
  void endClient();
  void releaseAll();
  void send(const std::string& line);
  void writeQueued();
  std::string handle(const std::string& line);
  std::string breakCmd(bool set, const std::string& what, const std::string& arg);
  std::string filterCmd(const std::string& target, std::istream& words);
  bool holds(std::int32_t tid, const Pending& p) const;
  bool release(std::int32_t tid);
  std::string describe(std::int32_t tid, const Pending& p) const;

  boost::asio::io_context& io_;
  Go go_;
  Filter filter_;
  std::string path_;
  std::unique_ptr<boost::asio::local::stream_protocol::acceptor> acceptor_;
  std::unique_ptr<boost::asio::local::stream_protocol::socket> client_;
  std::unique_ptr<boost::asio::local::stream_protocol::socket> next_;  // being accepted
  std::shared_ptr<boost::asio::streambuf> in_;  // shared: a cancelled read still commits to it
  std::string queued_;                  // answers and events not yet being written
  std::shared_ptr<std::string> out_;    // being written (alive until its handler ran)
  bool reading_ = false;                // a read of requests is under way
  bool quitting_ = false;               // "quit": close once the answers are written
  unsigned generation_ = 0;             // of the client: a late handler of a gone one does nothing
  std::map<std::int32_t, Pending> waiting_;  // held tasks, by tid
  bool connected_ = false;                    // client_ is a connected client
  bool stepping_ = false;                     // hold every call, not only at breakpoints
  std::set<std::string> breakCalls_;
  std::set<std::int32_t> breakTags_, breakTasks_;
};

}  // namespace xab::abmon

#endif
