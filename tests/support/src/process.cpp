// Child processes for tests: fork/exec, pipes, a deadline, and a kill that
// only ever targets the pid we forked.
#include "xab/test/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace xab::test {
namespace {

using Clock = std::chrono::steady_clock;

// argv/envp arrays built before fork(): the child may only call
// async-signal-safe functions, so it must not allocate.
struct ExecArgs {
  std::vector<std::string> args;
  std::vector<std::string> envs;
  std::vector<char*> argv;
  std::vector<char*> envp;

  ExecArgs(const std::vector<std::string>& a, const EnvVars& extra) : args(a) {
    if (args.empty()) throw std::invalid_argument("xab::test: empty command");
    EnvVars merged;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      auto eq = kv.find('=');
      if (eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& [k, v] : extra) merged[k] = v;
    for (const auto& [k, v] : merged) envs.push_back(k + "=" + v);
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    for (auto& s : envs) envp.push_back(s.data());
    envp.push_back(nullptr);
  }
};

[[noreturn]] void exec_child(const ExecArgs& ea) {
  ::close_range(3, ~0U, 0);  // no inherited pipe may outlive us in a grandchild
  ::execvpe(ea.argv[0], ea.argv.data(), ea.envp.data());
  const char* msg = "xab::test: exec failed: ";
  (void)!::write(2, msg, std::strlen(msg));
  (void)!::write(2, ea.argv[0], std::strlen(ea.argv[0]));
  (void)!::write(2, "\n", 1);
  ::_exit(127);
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is available; false at EOF or on error.
bool read_some(int fd, std::string& into) {
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && errno == EAGAIN;
  }
}

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) throw std::runtime_error("xab::test: pipe2 failed");
  }
  ~Pipe() { close_both(); }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  void close_both() { close_end(0), close_end(1); }
};

}  // namespace

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string make_temp_dir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl + ": " + std::strerror(errno));
  return tmpl;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

bool process_alive(pid_t pid) {
  if (pid <= 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  auto paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return false;
  char state = line[paren + 2];
  return state != 'Z' && state != 'X';
}

std::string bin_dir() { return XAB_TEST_BIN_DIR; }
std::string source_dir() { return XAB_TEST_SOURCE_DIR; }

RunResult run(const std::vector<std::string>& argv, const EnvVars& env,
              std::chrono::milliseconds timeout, const std::string& input) {
  ExecArgs ea(argv, env);
  Pipe in, out, err;
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("xab::test: fork failed");
  if (pid == 0) {
    ::dup2(in.fd[0], 0), ::dup2(out.fd[1], 1), ::dup2(err.fd[1], 2);
    exec_child(ea);
  }
  in.close_end(0), out.close_end(1), err.close_end(1);
  set_nonblocking(in.fd[1]), set_nonblocking(out.fd[0]), set_nonblocking(err.fd[0]);

  RunResult r;
  size_t written = 0;
  if (input.empty()) in.close_end(1);
  auto deadline = Clock::now() + timeout;
  int status = 0;
  for (;;) {
    pollfd fds[3] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}, {in.fd[1], POLLOUT, 0}};
    ::poll(fds, in.fd[1] >= 0 ? 3 : 2, 20);
    if (out.fd[0] >= 0 && !read_some(out.fd[0], r.out)) out.close_end(0);
    if (err.fd[0] >= 0 && !read_some(err.fd[0], r.err)) err.close_end(0);
    if (in.fd[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = ::write(in.fd[1], input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) written = input.size();
      if (written == input.size()) in.close_end(1);
    }
    if (::waitpid(pid, &status, WNOHANG) == pid) break;
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
  }
  // The child is gone; take what is buffered, but do not wait for EOF from
  // a grandchild (a daemon) that inherited the pipe.
  if (out.fd[0] >= 0) read_some(out.fd[0], r.out);
  if (err.fd[0] >= 0) read_some(err.fd[0], r.err);
  r.exit_code = exit_code_of(status);
  return r;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv,
                                     std::string stdout_path, const EnvVars& env)
    : stdout_path_(std::move(stdout_path)) {
  ExecArgs ea(argv, env);
  std::string err_path = stdout_path_ + ".err";
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("xab::test: fork failed");
  if (pid_ == 0) {
    int in = ::open("/dev/null", O_RDONLY);
    int out = ::open(stdout_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0), ::dup2(out, 1), ::dup2(err, 2);
    exec_child(ea);
  }
}

BackgroundProcess::~BackgroundProcess() { stop(SIGTERM, 3s); }

std::string BackgroundProcess::read_stdout() const { return read_file(stdout_path_); }
std::string BackgroundProcess::read_stderr() const { return read_file(stdout_path_ + ".err"); }

bool BackgroundProcess::running() {
  if (pid_ <= 0 || exit_code_ >= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_code_ = exit_code_of(status);
    return false;
  }
  return true;
}

bool BackgroundProcess::wait_for_output(const std::function<bool(const std::string&)>& pred,
                                        std::chrono::milliseconds deadline) {
  auto end = Clock::now() + deadline;
  do {
    if (pred(read_stdout())) return true;
    std::this_thread::sleep_for(20ms);
  } while (Clock::now() < end);
  return pred(read_stdout());
}

int BackgroundProcess::wait(std::chrono::milliseconds deadline) {
  auto end = Clock::now() + deadline;
  while (running()) {
    if (Clock::now() >= end) return -1;
    std::this_thread::sleep_for(10ms);
  }
  return exit_code_;
}

int BackgroundProcess::stop(int sig, std::chrono::milliseconds grace) {
  if (!running()) return exit_code_;
  ::kill(pid_, sig);
  if (wait(grace) >= 0) return exit_code_;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  exit_code_ = exit_code_of(status);
  return exit_code_;
}

InteractiveProcess::InteractiveProcess(const std::vector<std::string>& argv) {
  Pipe in, out;
  std::signal(SIGPIPE, SIG_IGN);  // a write to a child that ended must not kill the test
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::dup2(in.fd[0], 0);
    ::dup2(out.fd[1], 1);
    in.close_both();
    out.close_both();
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    _exit(127);
  }
  in_ = in.fd[1];
  out_fd_ = out.fd[0];
  in.fd[1] = out.fd[0] = -1;  // ours now
}

InteractiveProcess::~InteractiveProcess() {
  close_input();
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);  // our own child, by pid
    ::waitpid(pid_, nullptr, 0);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
}

void InteractiveProcess::write(const std::string& s) {
  std::size_t done = 0;
  while (in_ >= 0 && done < s.size()) {
    ssize_t w = ::write(in_, s.data() + done, s.size() - done);
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
}

void InteractiveProcess::close_input() {
  if (in_ >= 0) ::close(in_);
  in_ = -1;
}

bool InteractiveProcess::read_until(const std::string& needle, std::chrono::milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (out_.find(needle) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= end) return false;
    pollfd p{out_fd_, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    char buf[65536];
    ssize_t got = ::read(out_fd_, buf, sizeof buf);
    if (got <= 0) return false;
    out_.append(buf, static_cast<std::size_t>(got));
  }
  return true;
}

int InteractiveProcess::wait() {
  close_input();
  char buf[65536];
  ssize_t got;
  while ((got = ::read(out_fd_, buf, sizeof buf)) > 0) out_.append(buf, static_cast<std::size_t>(got));
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return exit_code_of(status);
}

}  // namespace xab::test
