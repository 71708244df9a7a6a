// local_intake.h -- event messages from tasks on abmon's own host, through
// a Unix socket instead of PVM (wire.h, "The local socket").
//
// One listening SOCK_SEQPACKET socket at an abstract address; one
// connection per task, whose first datagram (the hello) names its tid.
// Every later datagram is handed to the sink as one event message of that
// task.  Everything runs on the io_context's one thread, like the rest of
// abmon.
#ifndef XAB_ABMON_LOCAL_INTAKE_H
#define XAB_ABMON_LOCAL_INTAKE_H

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace xab::abmon {

class LocalIntake {
 public:
  // One event message of `tid`, read at `recv_ns`.
  using Sink = std::function<void(std::int32_t tid, std::span<const std::byte> body, std::int64_t recv_ns)>;
  // Called after a burst of messages has gone to the sink (to write them out).
  using Done = std::function<void()>;

  LocalIntake(boost::asio::io_context& io, Sink sink, Done done);
  ~LocalIntake();
  LocalIntake(const LocalIntake&) = delete;
  LocalIntake& operator=(const LocalIntake&) = delete;

  // A listening socket at "\0xab-abmon.<pid>.<n>": its fd, or -1 and *error.
  // Opened before abmon registers (the name goes in the mailbox entry).
  static int listen_at(std::string& name, std::string& error);
  // Takes over a socket from listen_at (-1: none, PVM messages only) and
  // waits for connections and datagrams in the io_context.
  void start(int listen_fd);
  // Reads (now, without waiting) whatever `tid` has written: before its
  // PVM messages and its exit are taken, so its records stay in order.
  void drain(std::int32_t tid);
  // Accepts and reads every connection dry; true if anything came.
  bool drain_all();
  void close();
  bool open() const { return listener_ != nullptr; }

  std::uint64_t messages() const { return messages_; }
  std::size_t connections() const { return conns_.size(); }

 private:
  struct Conn {
    explicit Conn(boost::asio::io_context& io, int fd) : sd(io, fd) {}
    boost::asio::posix::stream_descriptor sd;
    std::int32_t tid = 0;  // 0 until the hello
  };
  void wait_accept();
  bool accept_all();
  void wait_read(const std::shared_ptr<Conn>& c);
  // Reads until the socket is empty (or `limit` datagrams); false once the
  // connection is over.
  bool read_all(Conn& c, bool& got, std::size_t limit = SIZE_MAX);
  void drop(const std::shared_ptr<Conn>& c);
  bool read_dry(std::int32_t tid);

  boost::asio::io_context& io_;
  Sink sink_;
  Done done_;
  std::unique_ptr<boost::asio::posix::stream_descriptor> listener_;
  std::vector<std::shared_ptr<Conn>> conns_;
  std::vector<std::byte> buf_;
  std::uint64_t messages_ = 0;
  bool warned_bad_ = false;
};

}  // namespace xab::abmon

#endif
