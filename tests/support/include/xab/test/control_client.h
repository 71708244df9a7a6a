// xab/test/control_client.h -- a client of abmon's control socket for
// tests (the line protocol of xab/control_protocol.h, docs/abmon.md
// "Control mode"), written here rather than taken from xabview's.
#ifndef XAB_TEST_CONTROL_CLIENT_H
#define XAB_TEST_CONTROL_CLIENT_H

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace xab::test {

// One connection to abmon's control socket: lines in, lines out.
class ControlClient {
 public:
  explicit ControlClient(const std::string& path) {
    for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20); std::chrono::steady_clock::now() < end;
         std::this_thread::sleep_for(std::chrono::milliseconds(100))) {
      fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
      if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return;
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~ControlClient() { close(); }
  ControlClient(const ControlClient&) = delete;
  ControlClient& operator=(const ControlClient&) = delete;
  bool connected() const { return fd_ >= 0; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // The next line, or nothing within `wait`.
  std::optional<std::string> line(std::chrono::milliseconds wait) {
    auto end = std::chrono::steady_clock::now() + wait;
    for (;;) {
      if (auto nl = buf_.find('\n'); nl != std::string::npos) {
        std::string l = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return l;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
      char chunk[4096];
      ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n <= 0) {
        eof = true;
        return std::nullopt;
      }
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // Sends a request; its answer ("ok ..." or "error ..."); events met on the
  // way go to `events`, data lines (list's, breaks', filter's) to `data`.
  std::string request(const std::string& req) {
    std::string out = req + "\n";
    if (write(fd_, out.data(), out.size()) != static_cast<ssize_t>(out.size())) return "write failed";
    while (auto l = line(std::chrono::seconds(30))) {
      if (l->rfind("event ", 0) == 0)
        events.push_back(*l);
      else if (l->rfind("ok", 0) == 0 || l->rfind("error", 0) == 0)
        return *l;
      else
        data.push_back(*l);
    }
    return "no answer";
  }
  // The next "event wait ..." line (from events first), or nothing.
  std::optional<std::string> nextWait(std::chrono::milliseconds wait) {
    for (auto it = events.begin(); it != events.end(); ++it)
      if (it->rfind("event wait ", 0) == 0) {
        std::string e = *it;
        events.erase(it);
        return e;
      }
    while (auto l = line(wait))
      if (l->rfind("event wait ", 0) == 0) return l;
    return std::nullopt;
  }
  // Bytes as they are: partial lines, several lines, no waiting for answers.
  bool raw(const std::string& bytes) {
    return write(fd_, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  }
  int fd() const { return fd_; }
  std::vector<std::string> events;
  std::vector<std::string> data;
  bool eof = false;  // abmon closed the connection

 private:
  int fd_ = -1;
  std::string buf_;
};

}  // namespace xab::test

#endif
