#include "program.h"

#include <pvm3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
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
  argv0_ = argv.front();
  return true;
}

bool Program::ended() {
  if (ended_ || pid_ < 0) return ended_;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    ended_ = true;
    exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    signal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
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
  if (tid_ != 0) ours_.insert(tid_);
  for (int i = 0; i < n; ++i)
    if (isGroupServer(tasks[i].ti_a_out)) groupServers_.insert(tasks[i].ti_tid);
  // Grow the set to a fixed point: a parent may come after its child.
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < n; ++i) {
      const pvmtaskinfo& t = tasks[i];
      const bool process = isProcess(t);
      if (tid_ == 0 && process) found(t.ti_tid, t.ti_pid);
      if (process && groupServers_.count(t.ti_tid) == 0) roots_.insert(t.ti_tid);
      bool mine = process || (t.ti_ptid > 0 && ours_.count(t.ti_ptid) > 0);
      if (mine && groupServers_.count(t.ti_tid) == 0 && ours_.insert(t.ti_tid).second) grew = true;
    }
  }
  for (int i = 0; i < n; ++i)
    if (ours_.count(tasks[i].ti_tid) > 0) return true;
  return false;
}

void Program::spawned(int parent, const std::vector<int>& tids) {
  if (parent != tid_ && ours_.count(parent) == 0) return;
  ours_.insert(parent);
  for (int t : tids)
    if (t > 0 && groupServers_.count(t) == 0) ours_.insert(t);
}

namespace {
// The parent of a process, from /proc (0: unknown).
pid_t parentOf(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return 0;
  char line[512] = {};
  std::size_t n = std::fread(line, 1, sizeof line - 1, f);
  std::fclose(f);
  std::string_view stat(line, n);
  auto paren = stat.rfind(')');  // the command may hold spaces and parentheses
  if (paren == std::string_view::npos || paren + 4 >= stat.size()) return 0;
  return static_cast<pid_t>(std::atol(line + paren + 4));  // ") S PPID"
}
}  // namespace

// The program a process on abmon's host runs, without its directory ("":
// not known).
std::string processName(pid_t pid) {
  std::string proc = "/proc/" + std::to_string(pid);
  char path[4096] = {};
  ssize_t n = readlink((proc + "/exe").c_str(), path, sizeof path - 1);
  std::string name = n > 0 ? std::string(path, static_cast<std::size_t>(n)) : "";
  if (name.empty()) {  // another user's process: its command name
    if (std::FILE* f = std::fopen((proc + "/comm").c_str(), "r")) {
      char comm[64] = {};
      if (std::fgets(comm, sizeof comm, f)) name = comm;
      std::fclose(f);
      if (!name.empty() && name.back() == '\n') name.pop_back();
    }
  }
  if (auto slash = name.rfind('/'); slash != std::string::npos) name.erase(0, slash + 1);
  return name;
}

int Program::statusTid() const {
  return ownProcess_ || roots_.size() <= 1 ? tid_ : 0;
}

void Program::found(int tid, pid_t pid) {
  tid_ = tid;
  ownProcess_ = pid == pid_;
  roots_.insert(tid);
  if (pid == pid_) name_ = argv0_.substr(argv0_.rfind('/') + 1);  // as started: a script's, not its shell's
  else if (pid > 0) name_ = processName(pid);
}

bool Program::isProcess(const pvmtaskinfo& t) {
  if (host_ == 0) host_ = pvm_tidtohost(pvm_mytid());
  return t.ti_host == host_ && runsProcess(t.ti_pid);
}

bool Program::runsProcess(pid_t pid) const {
  if (pid_ <= 0) return false;
  // The process itself, or one it started (a few generations: a wrapper
  // such as timeout, env or a shell script).
  pid_t p = pid;
  for (int depth = 0; depth < 8 && p > 1; ++depth, p = parentOf(p))
    if (p == pid_) return true;
  return false;
}

int Program::findTid() {
  if (tid_ != 0 || pid_ < 0) return tid_;
  int n = 0;
  pvmtaskinfo* tasks = nullptr;
  if (pvm_tasks(0, &n, &tasks) < 0) return 0;
  for (int i = 0; i < n && tid_ == 0; ++i)
    if (isProcess(tasks[i])) found(tasks[i].ti_tid, tasks[i].ti_pid);
  return tid_;
}

}  // namespace xab::abmon
