#include "control.h"

#include <spdlog/spdlog.h>
#include <xab/control_protocol.h>
#include <xab/events.h>
#include <xab/filter.h>
#include <xab/wire.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
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

// Always accepting: the one client is served, any other is told it is busy
// (a client left waiting for a greeting could wait forever).
void Control::waitAccept() {
  if (!acceptor_) return;
  next_ = std::make_unique<boost::asio::local::stream_protocol::socket>(io_);
  acceptor_->async_accept(*next_, [this](const boost::system::error_code& ec) {
    if (ec == boost::asio::error::operation_aborted || !acceptor_) return;
    if (ec) return waitAccept();
    ucred cred{};
    socklen_t len = sizeof cred;
    boost::system::error_code ignored;
    if (getsockopt(next_->native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.uid != geteuid()) {
      spdlog::warn("control: refused a client of another user (uid {})", cred.uid);
      next_->close(ignored);
    } else if (connected_ || quitting_) {
      refuseBusy();
    } else {
      client_ = std::move(next_);
      ++generation_;
      connected_ = true;
      in_ = std::make_shared<boost::asio::streambuf>(kMaxLine);
      spdlog::info("control: a client connected; every task stops before its next communicating call");
      stepping_ = true;
      send(XAB_CONTROL_GREETING);
      readLine();
    }
    waitAccept();
  });
}

void Control::refuseBusy() {
  static const char kBusy[] = XAB_CONTROL_BUSY ": another client is connected to this abmon's control socket\n";
  // A fresh socket's buffer takes the line: never blocks.
  (void)::send(next_->native_handle(), kBusy, sizeof kBusy - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
  spdlog::info("control: refused a second client");
  boost::system::error_code ignored;
  next_->close(ignored);
}

// The next request line, unless the client has answers enough to read
// first (writeQueued reads on once they are written).
void Control::readLine() {
  if (!connected_ || quitting_ || reading_ || queued_.size() + (out_ ? out_->size() : 0) > kMaxQueued) return;
  reading_ = true;
  auto in = in_;
  boost::asio::async_read_until(*client_, *in, '\n',
                                [this, in, gen = generation_](const boost::system::error_code& ec, std::size_t n) {
    if (gen != generation_) return;
    reading_ = false;
    if (ec) {  // gone, or a line longer than kMaxLine (not_found: the buffer is full)
      if (ec == boost::asio::error::not_found) spdlog::warn("control: a request line longer than {} bytes: client dropped", kMaxLine);
      return endClient();
    }
    std::string line(boost::asio::buffers_begin(in->data()),
                     boost::asio::buffers_begin(in->data()) + static_cast<std::ptrdiff_t>(n) - 1);
    in->consume(n);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    send(handle(line));
    readLine();
  });
}

// Every held task goes, every breakpoint goes: nobody is left to decide.
void Control::releaseAll() {
  stepping_ = false;
  breakCalls_.clear();
  breakTags_.clear();
  breakTasks_.clear();
  std::size_t n = waiting_.size();
  while (!waiting_.empty()) release(waiting_.begin()->first);
  spdlog::info("control: the client left; {} held task(s) released, breakpoints cleared", n);
}

// The client has gone (or quit, its answers written).
void Control::endClient() {
  if (!connected_) return;
  connected_ = false;
  ++generation_;  // its handlers still to come do nothing
  boost::system::error_code ignored;
  client_->close(ignored);
  client_.reset();
  in_.reset();
  queued_.clear();
  out_.reset();
  reading_ = false;
  if (quitting_)
    quitting_ = false;
  else
    releaseAll();
}

void Control::send(const std::string& line) {
  if (!connected_ || line.empty()) return;
  queued_ += line;
  queued_ += '\n';
  writeQueued();
}

// One write at a time, of all that is queued; the buffer lives in the
// handler, so a client gone meanwhile leaves nothing dangling.
void Control::writeQueued() {
  if (!connected_ || out_) return;
  if (queued_.empty()) {
    if (quitting_) endClient();
    return;
  }
  out_ = std::make_shared<std::string>(std::move(queued_));
  queued_.clear();
  boost::asio::async_write(*client_, boost::asio::buffer(*out_),
                           [this, keep = out_, gen = generation_](const boost::system::error_code& ec, std::size_t) {
                             if (gen != generation_) return;
                             out_.reset();
                             if (ec) return endClient();
                             writeQueued();
                             readLine();  // it may have waited for the client to read
                           });
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
  send(XAB_CONTROL_EVENT_WAIT " " + describe(tid, p));
}

void Control::gone(std::int32_t tid, const std::string& why) {
  if (waiting_.erase(tid) > 0) send(XAB_CONTROL_EVENT_GONE " " + tidText(tid) + (why.empty() ? "" : " " + why));
}

bool Control::release(std::int32_t tid) {
  auto it = waiting_.find(tid);
  if (it == waiting_.end()) return false;
  std::int32_t seq = it->second.seq;
  waiting_.erase(it);
  if (!go_(tid, seq)) send(XAB_CONTROL_EVENT_GONE " " + tidText(tid));
  return true;
}

std::string Control::breakCmd(bool set, const std::string& what, const std::string& arg) {
  std::int32_t n = 0;
  if (what == XAB_CONTROL_ALL && !set) {
    breakCalls_.clear();
    breakTags_.clear();
    breakTasks_.clear();
    return XAB_CONTROL_OK;
  }
  if (what == XAB_CONTROL_CALL && !arg.empty()) {
    if (set) breakCalls_.insert(arg); else breakCalls_.erase(arg);
    return XAB_CONTROL_OK;
  }
  if (what == XAB_CONTROL_TAG && parseTid(arg, n) && arg[0] != 't') {
    if (set) breakTags_.insert(n); else breakTags_.erase(n);
    return XAB_CONTROL_OK;
  }
  if (what == XAB_CONTROL_TASK && parseTid(arg, n)) {
    if (set) breakTasks_.insert(n); else breakTasks_.erase(n);
    return XAB_CONTROL_OK;
  }
  return XAB_CONTROL_ERROR " usage: " + std::string(set ? XAB_CONTROL_BREAK : XAB_CONTROL_CLEAR) +
         " " XAB_CONTROL_CALL " NAME | " XAB_CONTROL_TAG " N | " XAB_CONTROL_TASK " TID" +
         (set ? "" : " | " XAB_CONTROL_ALL);
}

// "filter TID|all WORDS": every word is checked before any task is told.
std::string Control::filterCmd(const std::string& target, std::istream& words) {
  static const std::string kUsage = XAB_CONTROL_ERROR " usage: " XAB_CONTROL_FILTER " TID|" XAB_CONTROL_ALL
                                    " " XAB_FILTER_NAME_PACK "|" XAB_FILTER_NAME_CLOCK "|" XAB_FILTER_NAME_NONE "...";
  std::string list, w;
  while (words >> w) list += (list.empty() ? "" : ",") + w;
  std::int32_t tid = kAllTasks;
  if (list.empty() || (target != XAB_CONTROL_ALL && !parseTid(target, tid))) return kUsage;
  unsigned omit = 0;
  for (std::size_t at = 0; at <= list.size();) {
    std::size_t end = std::min(list.find(',', at), list.size());
    std::string word = list.substr(at, end - at);
    unsigned ignored = 0;
    if (!word.empty() && xab_filter_parse(word.c_str(), &ignored) != 0)
      return XAB_CONTROL_ERROR " unknown filter word \"" + word.substr(0, 40) + "\" (" XAB_FILTER_NAME_PACK
             ", " XAB_FILTER_NAME_CLOCK " or " XAB_FILTER_NAME_NONE ")";
    at = end + 1;
  }
  xab_filter_parse(list.c_str(), &omit);
  if (!filter_) return XAB_CONTROL_ERROR " this abmon cannot filter";
  std::vector<std::int32_t> told;
  std::string error = filter_(tid, omit, told);
  if (!error.empty()) return XAB_CONTROL_ERROR " " + error;
  std::string names;
  if (omit & XAB_FILTER_PACK) names += " " XAB_FILTER_NAME_PACK;
  if (omit & XAB_FILTER_CLOCK) names += " " XAB_FILTER_NAME_CLOCK;
  if (names.empty()) names = " " XAB_FILTER_NAME_NONE;
  for (std::int32_t t : told) send(XAB_CONTROL_FILTER " " + tidText(t) + names);
  spdlog::info("control: filter{} sent to {} task(s)", names, told.size());
  return XAB_CONTROL_OK " " + std::to_string(told.size());
}

std::string Control::handle(const std::string& line) {
  std::istringstream in(line);
  std::string cmd, a, b;
  in >> cmd >> a;
  if (cmd == XAB_CONTROL_FILTER) return filterCmd(a, in);
  in >> b;
  if (cmd == XAB_CONTROL_LIST) {
    for (const auto& [tid, p] : waiting_) send(XAB_CONTROL_WAIT " " + describe(tid, p));
    return XAB_CONTROL_OK " " + std::to_string(waiting_.size());
  }
  if (cmd == XAB_CONTROL_STEP && a == XAB_CONTROL_ALL) {
    std::size_t n = waiting_.size();
    while (!waiting_.empty()) release(waiting_.begin()->first);
    return XAB_CONTROL_OK " " + std::to_string(n);
  }
  std::int32_t tid = 0;
  if (cmd == XAB_CONTROL_STEP && parseTid(a, tid))
    return release(tid) ? XAB_CONTROL_OK " 1" : XAB_CONTROL_ERROR " " + tidText(tid) + " is not waiting";
  if (cmd == XAB_CONTROL_CONTINUE || cmd == XAB_CONTROL_STOP) {
    stepping_ = cmd == XAB_CONTROL_STOP;
    if (!stepping_) {
      std::vector<std::int32_t> go;
      for (const auto& [t, p] : waiting_) go.push_back(t);
      for (std::int32_t t : go) release(t);
    }
    return XAB_CONTROL_OK;
  }
  if (cmd == XAB_CONTROL_BREAK || cmd == XAB_CONTROL_CLEAR) return breakCmd(cmd == XAB_CONTROL_BREAK, a, b);
  if (cmd == XAB_CONTROL_BREAKS) {
    for (const auto& c : breakCalls_) send(XAB_CONTROL_BREAK " " XAB_CONTROL_CALL " " + c);
    for (auto t : breakTags_) send(XAB_CONTROL_BREAK " " XAB_CONTROL_TAG " " + std::to_string(t));
    for (auto t : breakTasks_) send(XAB_CONTROL_BREAK " " XAB_CONTROL_TASK " " + tidText(t));
    return XAB_CONTROL_OK;
  }
  if (cmd == XAB_CONTROL_QUIT) {  // the tasks go now; the socket closes once "ok" is written
    releaseAll();
    quitting_ = true;
    return XAB_CONTROL_OK;
  }
  return XAB_CONTROL_ERROR " unknown request \"" + line.substr(0, 80) + "\"";
}

void Control::close() {
  boost::system::error_code ignored;
  connected_ = false;
  ++generation_;
  if (client_) client_->close(ignored);
  client_.reset();
  if (next_) next_->close(ignored);
  if (acceptor_) {
    acceptor_->close(ignored);
    acceptor_.reset();
    unlink(path_.c_str());
  }
}

}  // namespace xab::abmon
