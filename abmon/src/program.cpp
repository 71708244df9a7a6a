#include "program.h"

#include <pvm3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <string_view>

namespace xab::abmon {

bool Program::start(const std::vector<std::string>& argv, int out, int err, std::string& error) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    // abmon ignores SIGPIPE, and an ignored signal stays ignored across
    // exec: the program gets the defaults and an empty mask, as from a shell.
    std::signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // err first: a message of a failed exec below goes to the program's stderr.
    if (err >= 0) dup2(err, STDERR_FILENO);
    if (out >= 0) dup2(out, STDOUT_FILENO);
    close_range(3, ~0U, 0);  // PVM's sockets, the local socket, the trace file
    execvp(args[0], args.data());
    int e = errno;
    (void)!write(STDERR_FILENO, "abmon: cannot run ", 18);
    (void)!write(STDERR_FILENO, args[0], std::strlen(args[0]));
    (void)!write(STDERR_FILENO, ": ", 2);
    (void)!write(STDERR_FILENO, std::strerror(e), std::strlen(std::strerror(e)));
    (void)!write(STDERR_FILENO, "\n", 1);
    _exit(e == ENOENT ? 127 : 126);
  }
  pid_ = pid;
  return true;
}

bool Program::ended() {
  if (ended_ || pid_ < 0) return ended_;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    ended_ = true;
    exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else if (r < 0 && errno == ECHILD) {
    ended_ = true;  // reaped elsewhere: nothing more to wait for
  }
  return ended_;
}

bool Program::tasksRemain() {
  int n = 0;
  pvmtaskinfo* tasks = nullptr;
  if (pvm_tasks(0, &n, &tasks) < 0) return false;
  auto isGroupServer = [](const char* aOut) {
    std::string_view name = aOut ? aOut : "";
    if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
    return name == "pvmgs";
  };
  // Grow the set to a fixed point: a parent may come after its child.
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < n; ++i) {
      const pvmtaskinfo& t = tasks[i];
      if (tid_ == 0 && isProcess(t)) tid_ = t.ti_tid;
      bool mine = isProcess(t) || (t.ti_ptid > 0 && ours_.count(t.ti_ptid) > 0);
      if (mine && ours_.insert(t.ti_tid).second) grew = true;
    }
  }
  for (int i = 0; i < n; ++i)
    if (ours_.count(tasks[i].ti_tid) > 0 && !isGroupServer(tasks[i].ti_a_out)) return true;
  return false;
}

bool Program::isProcess(const pvmtaskinfo& t) {
  if (host_ == 0) host_ = pvm_tidtohost(pvm_mytid());
  return pid_ > 0 && t.ti_pid == pid_ && t.ti_host == host_;
}

int Program::findTid() {
  if (tid_ != 0 || pid_ < 0) return tid_;
  int n = 0;
  pvmtaskinfo* tasks = nullptr;
  if (pvm_tasks(0, &n, &tasks) < 0) return 0;
  for (int i = 0; i < n && tid_ == 0; ++i)
    if (isProcess(tasks[i])) tid_ = tasks[i].ti_tid;
  return tid_;
}

}  // namespace xab::abmon
