// program.h -- `abmon -- PROGRAM [ARGS]`: the program abmon starts once it
// is registered (so no task of it can run unmonitored), and how abmon tells
// that the program and every task it started have ended.
#ifndef XAB_ABMON_PROGRAM_H
#define XAB_ABMON_PROGRAM_H

#include <pvm3.h>
#include <sys/types.h>

#include <string>
#include <unordered_set>
#include <vector>

namespace xab::abmon {

// The program a process on this host runs, without its directory ("": not
// known).
std::string processName(pid_t pid);

class Program {
 public:
  // Starts argv[0] (searched on PATH) with abmon's environment and stdin,
  // `out` and `err` as its standard output and error (ProgramOutput's).  It
  // gets none of abmon's other descriptors (PVM's, the local socket) and
  // default signal dispositions.  False and `error` set if it cannot be
  // started.
  bool start(const std::vector<std::string>& argv, int out, int err, std::string& error);

  // Reaps the program if it has ended; true once it has.
  bool ended();
  // Its exit status as a shell gives it: the code, or 128 + the signal.
  int exitCode() const { return exitCode_; }
  int signal() const { return signal_; }  // the signal that ended it, 0 if none
  pid_t pid() const { return pid_; }

  // Asks pvmd for its tasks and says whether one of the program's is still
  // there: a task of the program's process, or one started by such a task
  // (by its parent tid, remembered across calls so a task whose parent has
  // gone still counts).  PVM's group server (pvmgs), which a group call
  // starts and which stays, does not count.  Calls pvm_tasks.
  bool tasksRemain();
  // The program's own task (the one of its process), 0 while it has none:
  // asks pvmd (pvm_tasks) until it has one.
  int findTid();
  int tid() const { return tid_; }  // as last found, without asking
  // Found otherwise (Monitor::programName); pid: its process, if known.
  void adopt(int tid, pid_t pid = 0) {
    if (tid_ == 0) found(tid, pid);
  }
  // The program its task runs (its process's, found with its tid), "" if
  // not known: `abmon -- timeout 5 ./prog` runs prog, not timeout.
  const std::string& name() const { return name_; }
  // Whether pvmd's task is the program's process, or a process it started
  // (`abmon -- timeout 5 ./prog`: ./prog's): its pid on abmon's host (another
  // host's task may have the same pid).
  bool isProcess(const pvmtaskinfo& t);
  // Whether a process of abmon's host is the program's or one it started.
  bool runsProcess(pid_t pid) const;
  // A task without a PVM parent that the program's process, or a process
  // it started, runs (pvmd's list; a task that enrolled from a shell,
  // whose process may have gone by now): one of the program's own.
  void rootTask(int tid) { roots_.insert(tid); }
  // The task the program's exit status belongs to: its own when its
  // process enrolled, else the one task of its processes (a wrapper's:
  // `timeout 5 ./prog`); 0 when there are several (a shell's loop running
  // the program again and again: the shell's status is none of theirs) or
  // none.
  int statusTid() const;
  // A task of the program's has spawned `tids` (its spawn record): they
  // are the program's too, whenever they end and whatever pvmd lists.
  void spawned(int parent, const std::vector<int>& tids);
  // The program's tasks seen so far (no group server among them).
  const std::unordered_set<int>& tasks() const { return ours_; }

 private:
  pid_t pid_ = -1;
  bool ended_ = false;
  int exitCode_ = 0;
  int signal_ = 0;
  int tid_ = 0;
  bool ownProcess_ = false;  // tid_ is the task of the process abmon started
  std::string name_, argv0_;
  void found(int tid, pid_t pid);
  int host_ = 0;  // abmon's pvmd
  std::unordered_set<int> ours_;  // tids of the program's tasks seen so far
  std::unordered_set<int> roots_;  // of those, the ones its processes run (rootTask)
  std::unordered_set<int> groupServers_;  // pvmgs tasks: never the program's
};

}  // namespace xab::abmon

#endif
