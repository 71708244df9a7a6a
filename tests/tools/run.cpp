#include "run.h"

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace xab::test {

RunResult run(const std::vector<std::string>& argv, const std::string* input) {
  int in[2], out[2], err[2];
  if (pipe(in) || pipe(out) || pipe(err)) return {};
  signal(SIGPIPE, SIG_IGN);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  std::size_t written = 0;
  if (!input) { close(in[1]); in[1] = -1; }
  RunResult r;
  bool outOpen = true, errOpen = true;
  while (outOpen || errOpen) {
    pollfd p[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {in[1], POLLOUT, 0}};
    int n = poll(p, in[1] >= 0 ? 3 : 2, -1);
    if (n < 0 && errno == EINTR) continue;
    char buf[65536];
    for (int k = 0; k < 2; ++k) {
      if (!(p[k].revents & (POLLIN | POLLHUP))) continue;
      ssize_t got = read(p[k].fd, buf, sizeof buf);
      if (got <= 0) { (k == 0 ? outOpen : errOpen) = false; continue; }
      (k == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(got));
    }
    if (in[1] >= 0 && (p[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t w = write(in[1], input->data() + written, input->size() - written);
      if (w > 0) written += static_cast<std::size_t>(w);
      if (w < 0 || written == input->size()) { close(in[1]); in[1] = -1; }
    }
  }
  if (in[1] >= 0) close(in[1]);
  close(out[0]);
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace xab::test

namespace xab::test {

Child::Child(const std::vector<std::string>& argv) {
  int in[2], out[2];
  if (pipe(in) || pipe(out)) return;
  signal(SIGPIPE, SIG_IGN);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  in_ = in[1];
  outFd_ = out[0];
}

Child::~Child() {
  closeInput();
  if (pid_ > 0) {
    kill(pid_, SIGTERM);  // our own child, by pid
    waitpid(pid_, nullptr, 0);
  }
  if (outFd_ >= 0) close(outFd_);
}

void Child::write(const std::string& s) {
  std::size_t done = 0;
  while (in_ >= 0 && done < s.size()) {
    ssize_t w = ::write(in_, s.data() + done, s.size() - done);
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
}

void Child::closeInput() {
  if (in_ >= 0) close(in_);
  in_ = -1;
}

bool Child::readUntil(const std::string& needle, int limitSeconds) {
  for (int waited = 0; out_.find(needle) == std::string::npos; ) {
    pollfd p{outFd_, POLLIN, 0};
    if (poll(&p, 1, 1000) == 0) {
      if (++waited >= limitSeconds) return false;
      continue;
    }
    char buf[65536];
    ssize_t got = read(outFd_, buf, sizeof buf);
    if (got <= 0) return out_.find(needle) != std::string::npos;
    out_.append(buf, static_cast<std::size_t>(got));
  }
  return true;
}

int Child::wait() {
  closeInput();
  char buf[65536];
  ssize_t got;
  while ((got = read(outFd_, buf, sizeof buf)) > 0) out_.append(buf, static_cast<std::size_t>(got));
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace xab::test
