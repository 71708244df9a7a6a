#include "control.h"

#include <spdlog/spdlog.h>
#include <xab/events.h>
#include <xab/wire.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>
#include <vector>

namespace xab::abmon {
namespace {

constexpr const char* kCallNames[] = {
#define XAB_NAME_(id, name, flags, rck, b, e) name,
    XAB_CALLS(XAB_NAME_)
#undef XAB_NAME_
};
constexpr std::size_t kMaxLine = 4096;  // a longer request ends the client

std::string callName(std::int32_t kind) {
  return kind >= 0 && kind < XAB_EV_COUNT_ ? kCallNames[kind] : "kind" + std::to_string(kind);
}

std::string tidText(std::int32_t tid) {
  if (tid < 0) return std::to_string(tid);
  return fmt::format("t{:x}", tid);
}

// "t40001" (hex, as in the trace) or a decimal number.
bool parseTid(const std::string& s, std::int32_t& tid) {
  bool hex = s.size() > 1 && s[0] == 't';
  const char* b = s.data() + (hex ? 1 : 0);
  auto [p, ec] = std::from_chars(b, s.data() + s.size(), tid, hex ? 16 : 10);
  return ec == std::errc() && p == s.data() + s.size();
}

int bindAt(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  // Only abmon's user may step the program (accepted peers are checked too).
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && chmod(path.c_str(), 0600) == 0 &&
      listen(fd, 4) == 0)
    return fd;
  int err = errno;
  ::close(fd);
  errno = err;
  return -1;
}

// A socket file nobody listens on (an abmon that died): true if removed.
bool removeStale(const std::string& path) {
  struct stat st{};
  if (lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  bool live = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return !live && unlink(path.c_str()) == 0;
}

}  // namespace

Control::Control(boost::asio::io_context& io, Go go) : io_(io), go_(std::move(go)) {}

Control::~Control() { close(); }

int Control::listenAt(const std::string& path, std::string& error) {
  if (path.empty() || path.size() >= sizeof(sockaddr_un::sun_path)) {
    error = "the control socket's path \"" + path + "\" is empty or too long";
    return -1;
  }
  int fd = bindAt(path);
  if (fd < 0 && errno == EADDRINUSE && removeStale(path)) fd = bindAt(path);
  if (fd < 0) error = "cannot listen on the control socket " + path + ": " + std::strerror(errno);
  return fd;
}

void Control::start(int fd, std::string path) {
  if (fd < 0) return;
  path_ = std::move(path);
  acceptor_ = std::make_unique<boost::asio::local::stream_protocol::acceptor>(
      io_, boost::asio::local::stream_protocol(), fd);
  waitAccept();
}

// One client at a time: the next is accepted once this one has gone.
void Control::waitAccept() {
  if (!acceptor_) return;
  client_ = std::make_unique<boost::asio::local::stream_protocol::socket>(io_);
  acceptor_->async_accept(*client_, [this](const boost::system::error_code& ec) {
    if (ec) {
      if (ec != boost::asio::error::operation_aborted) waitAccept();
      return;
    }
    ucred cred{};
    socklen_t len = sizeof cred;
    if (getsockopt(client_->native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != geteuid()) {
      spdlog::warn("control: refused a client of another user (uid {})", cred.uid);
      boost::system::error_code ignored;
      client_->close(ignored);
      waitAccept();
      return;
    }
    connected_ = true;
    spdlog::info("control: a client connected; every task stops before its next communicating call");
    stepping_ = true;
    send("xab-control 1");
    readLine();
  });
}

void Control::readLine() {
  boost::asio::async_read_until(*client_, in_, '\n', [this](const boost::system::error_code& ec, std::size_t n) {
    if (ec || n > kMaxLine) {
      endClient();
      return;
    }
    std::string line(boost::asio::buffers_begin(in_.data()),
                     boost::asio::buffers_begin(in_.data()) + static_cast<std::ptrdiff_t>(n) - 1);
    in_.consume(n);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string answer = handle(line);
    if (!connected_) return;  // quit
    send(answer);
    readLine();
  });
}

// The client has gone: nobody is left to let the tasks go, so they all go.
void Control::endClient() {
  if (!connected_) return;
  connected_ = false;
  boost::system::error_code ignored;
  client_->close(ignored);
  client_.reset();
  in_.consume(in_.size());
  stepping_ = false;
  breakCalls_.clear();
  breakTags_.clear();
  breakTasks_.clear();
  std::size_t n = waiting_.size();
  while (!waiting_.empty()) release(waiting_.begin()->first);
  spdlog::info("control: the client left; {} held task(s) released, breakpoints cleared", n);
  waitAccept();
}

void Control::send(const std::string& line) {
  if (!connected_) return;
  boost::system::error_code ec;
  // Blocking write of a short line: a client that does not read its answers
  // stalls abmon, as a reader of the trace that does not read would.
  client_->non_blocking(false, ec);
  boost::asio::write(*client_, boost::asio::buffer(line + "\n"), ec);
  if (ec) boost::asio::post(io_, [this] { endClient(); });
}

std::string Control::describe(std::int32_t tid, const Pending& p) const {
  return fmt::format("{} seq {} call {} peer {} tag {}", tidText(tid), p.seq, callName(p.kind),
                     tidText(p.peer), p.tag);
}

bool Control::holds(std::int32_t tid, const Pending& p) const {
  if (!connected_) return false;
  if (stepping_) return true;
  return breakCalls_.contains(callName(p.kind)) || (p.tag >= 0 && breakTags_.contains(p.tag)) ||
         breakTasks_.contains(tid);
}

void Control::ask(std::int32_t tid, const xab_step_ask& a) {
  Pending p{a.seq, a.kind, a.peer, a.tag};
  if (!holds(tid, p)) {
    go_(tid, p.seq);
    return;
  }
  waiting_[tid] = p;
  send("event wait " + describe(tid, p));
}

void Control::gone(std::int32_t tid) {
  if (waiting_.erase(tid) > 0) send("event gone " + tidText(tid));
}

bool Control::release(std::int32_t tid) {
  auto it = waiting_.find(tid);
  if (it == waiting_.end()) return false;
  std::int32_t seq = it->second.seq;
  waiting_.erase(it);
  if (!go_(tid, seq)) send("event gone " + tidText(tid));
  return true;
}

std::string Control::breakCmd(bool set, const std::string& what, const std::string& arg) {
  std::int32_t n = 0;
  if (what == "all" && !set) {
    breakCalls_.clear();
    breakTags_.clear();
    breakTasks_.clear();
    return "ok";
  }
  if (what == "call" && !arg.empty()) {
    if (set) breakCalls_.insert(arg); else breakCalls_.erase(arg);
    return "ok";
  }
  if (what == "tag" && parseTid(arg, n) && arg[0] != 't') {
    if (set) breakTags_.insert(n); else breakTags_.erase(n);
    return "ok";
  }
  if (what == "task" && parseTid(arg, n)) {
    if (set) breakTasks_.insert(n); else breakTasks_.erase(n);
    return "ok";
  }
  return "error usage: " + std::string(set ? "break" : "clear") + " call NAME | tag N | task TID" +
         (set ? "" : " | all");
}

std::string Control::handle(const std::string& line) {
  std::istringstream in(line);
  std::string cmd, a, b;
  in >> cmd >> a >> b;
  if (cmd == "list") {
    for (const auto& [tid, p] : waiting_) send("wait " + describe(tid, p));
    return "ok " + std::to_string(waiting_.size());
  }
  if (cmd == "step" && a == "all") {
    std::size_t n = waiting_.size();
    while (!waiting_.empty()) release(waiting_.begin()->first);
    return "ok " + std::to_string(n);
  }
  std::int32_t tid = 0;
  if (cmd == "step" && parseTid(a, tid))
    return release(tid) ? "ok 1" : "error " + tidText(tid) + " is not waiting";
  if (cmd == "continue" || cmd == "stop") {
    stepping_ = cmd == "stop";
    if (!stepping_) {
      std::vector<std::int32_t> go;
      for (const auto& [t, p] : waiting_) go.push_back(t);
      for (std::int32_t t : go) release(t);
    }
    return "ok";
  }
  if (cmd == "break" || cmd == "clear") return breakCmd(cmd == "break", a, b);
  if (cmd == "breaks") {
    for (const auto& c : breakCalls_) send("break call " + c);
    for (auto t : breakTags_) send("break tag " + std::to_string(t));
    for (auto t : breakTasks_) send("break task " + tidText(t));
    return "ok";
  }
  if (cmd == "quit") {
    send("ok");
    endClient();
    return {};
  }
  return "error unknown request \"" + line.substr(0, 80) + "\"";
}

void Control::close() {
  boost::system::error_code ignored;
  connected_ = false;
  if (client_) client_->close(ignored);
  client_.reset();
  if (acceptor_) {
    acceptor_->close(ignored);
    acceptor_.reset();
    unlink(path_.c_str());
  }
}

}  // namespace xab::abmon
