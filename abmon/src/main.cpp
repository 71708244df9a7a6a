// abmon -- the xab monitor task.  See docs/abmon.md and abmon(1).
#include <pvm3.h>
#include <pvmtev.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <xab/control_path.h>
#include <xab/wire.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "control.h"
#include "local_intake.h"
#include "mailbox.h"
#include "monitor.h"
#include "options.h"
#include "ready.h"

namespace {

using namespace xab::abmon;

void setupLogging(int verbosity) {
  auto logger = spdlog::stderr_logger_st("abmon");
  logger->set_pattern("abmon: %l: %v");
  static constexpr spdlog::level::level_enum kLevels[] = {
      spdlog::level::off, spdlog::level::err, spdlog::level::warn, spdlog::level::info,
      spdlog::level::debug, spdlog::level::trace};
  int i = std::clamp(verbosity + 2, 0, 5);  // default: warnings and errors
  logger->set_level(kLevels[i]);
  spdlog::set_default_logger(logger);
}

// Opens the trace file, after abmon has registered (a refused abmon never
// touches it).  It is truncated only once abmon holds an exclusive lock on
// it: a file another abmon writes (in any virtual machine) is left alone.
// Returns 0, kExitBusy or kExitOutput (with a message on stderr).
int openOutput(const std::string& path, std::FILE*& out) {
  out = stdout;
  if (path.empty() || path == "-") return 0;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    std::cerr << "abmon: cannot open " << path << ": " << std::strerror(errno) << "\n";
    return kExitOutput;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    std::cerr << "abmon: " << path << " is being written by another abmon; not touching it\n";
    close(fd);
    return kExitBusy;
  }
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) {
    std::cerr << "abmon: cannot truncate " << path << ": " << std::strerror(errno) << "\n";
    close(fd);
    return kExitOutput;
  }
  out = fdopen(fd, "w");
  if (!out) {
    std::cerr << "abmon: cannot open " << path << ": " << std::strerror(errno) << "\n";
    close(fd);
    return kExitOutput;
  }
  return 0;
}

int silenceStderr() {
  std::fflush(stderr);
  int saved = dup(STDERR_FILENO);
  int null = open("/dev/null", O_WRONLY);
  if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
    if (null >= 0) close(null);
    if (saved >= 0) close(saved);
    return -1;
  }
  close(null);
  return saved;
}

void restoreStderr(int saved) {
  if (saved < 0) return;
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
}

// A relay (or an abmon) spawned while abmon is PVM's tracer is traced by
// PVM like any task: its own PVM calls are not the program's.  Its own mask
// emptied; its children's left alone (as libab does, ab_attach.c).
void untraceSelf() {
  if (pvm_getopt(PvmSelfTraceTid) <= 0) return;
  Pvmtmask none;
  TEV_MASK_INIT(none);
  pvm_settmask(PvmTaskSelf, none);
}

// Enrols in PVM and takes a message context of its own, so event messages
// never mix with anything else abmon might receive.  Returns 0 or an exit code.
// --control auto: the path xabview --control auto finds too (control_path.h).
std::string defaultControlPath() {
  char path[sizeof(sockaddr_un::sun_path)];
  return xab_control_default_path(path, sizeof path) < 0 ? std::string() : std::string(path);
}

int enrol(int& tid, int& context, bool quietLibpvm, int relayContext) {
  pvm_setopt(PvmAutoErr, 0);  // abmon says what went wrong itself, once
  // libpvm prints its own lines when there is no pvmd (one per attempt,
  // even with PvmAutoErr off); unless -v, abmon's one line is enough.
  int savedStderr = quietLibpvm ? silenceStderr() : -1;
  tid = pvm_mytid();
  restoreStderr(savedStderr);
  if (tid > 0) untraceSelf();
  // No direct route into abmon or a relay: libpvm believes the source tid a
  // peer writes in a direct route's fragment headers (PVM 3.4.6 lpvm.c,
  // mxinput) and accepts the first connection to a route's listening socket,
  // so a task on one could send as pvmd (exit notices, the tracer's events,
  // output) or as any task.  Refused, every message comes through the
  // pvmds, which set its source (docs/abmon.md, "Security").
  if (tid > 0) pvm_setopt(PvmRoute, PvmDontRoute);
  if (tid < 0) {
    std::cerr << "abmon: cannot contact pvmd (" << pvmErrorName(tid)
              << "): is PVM running? Start it with pvm or pvmd first.\n";
    return kExitNoPvm;
  }
  // A relay takes abmon's context: its tasks, abmon and it talk in it.
  context = relayContext != 0 ? relayContext : pvm_newcontext();
  if (context < 0 || pvm_setcontext(context) < 0) {
    std::cerr << "abmon: pvm_newcontext: " << pvmErrorName(context) << "\n";
    pvm_exit();
    return kExitNoPvm;
  }
  return 0;
}

int registerOrRefuse(const Options& opts, int tid, int context, const std::string& socketName,
                       const std::string& mailboxName, int& index) {
  Registration reg = registerAbmon({tid, context, opts.tag, opts.batch, opts.flushMs, opts.pokeMs, socketName,
                                    (opts.control.empty() && !opts.relayStep) || socketName.empty() ? 0 : 1,
                                    opts.control},
                                   mailboxName);
  if (reg.status == Registration::Ok) {
    index = reg.index;
    return 0;
  }
  if (reg.status == Registration::Busy)
    std::cerr << "abmon: another abmon (t" << std::hex << reg.owner << std::dec
              << ") is already running in this virtual machine; stop it first\n";
  else
    std::cerr << "abmon: " << reg.error << "\n";
  pvm_exit();
  return reg.status == Registration::Busy ? kExitBusy : kExitNoPvm;
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (std::string error = parseOptions(args, opts); !error.empty()) {
    std::cerr << "abmon: " << error << "\n" << "Try 'abmon --help'.\n";
    return kExitUsage;
  }
  if (opts.help) {
    std::cout << usageText();
    return kExitOk;
  }
  if (opts.version) {
    std::cout << "abmon (xab) " << XAB_ABMON_VERSION << ", wire version " << XAB_WIRE_VERSION
              << ", trace format 1\n";
    return kExitOk;
  }
  setupLogging(opts.verbosity);
  if (std::string error; opts.readyFd >= 0 && !claimReadyFd(opts.readyFd, error)) {
    std::cerr << "abmon: " << error << "\n";
    return kExitUsage;
  }
  // A reader that goes away is a write error, not a silent death.
  std::signal(SIGPIPE, SIG_IGN);
  int tid = 0, context = 0, index = 0;
  if (int rc = enrol(tid, context, opts.verbosity <= 0, opts.relayContext)) return rc;
  // A relay (relay.h) registers under its host's name and writes no file.
  std::string mailboxName =
      opts.relayOf != 0 ? relayMailboxName(pvm_tidtohost(tid)) : std::string(XAB_MBOX_NAME);
  // Tasks on this host write their events to a local socket (wire.h);
  // without one, everything comes as PVM messages, which is slower only.
  std::string socketName;
  int localFd = -1;
  if (!opts.pvmOnly) {
    std::string error;
    localFd = LocalIntake::listenAt(socketName, error);
    if (localFd < 0) {
      spdlog::warn("{}: taking events as PVM messages only", error);
      socketName.clear();
    }
  }
  int controlFd = -1;
  bool autoControl = opts.control == XAB_CONTROL_AUTO;
  if (autoControl && (opts.control = defaultControlPath()).empty()) {
    std::cerr << "abmon: --control auto: PVM_TMP makes the control socket's path too long\n";
    pvm_exit();
    return kExitUsage;
  }
  if (!opts.control.empty()) {
    std::string error;
    if (socketName.empty() || (controlFd = Control::listenAt(opts.control, error)) < 0) {
      std::cerr << "abmon: " << (socketName.empty() ? "--control needs the local socket (not --pvm-only)" : error)
                << "\n";
      if (localFd >= 0) close(localFd);
      pvm_exit();
      return kExitUsage;
    }
  }
  std::FILE* out = nullptr;
  int rc = registerOrRefuse(opts, tid, context, socketName, mailboxName, index);
  if (rc == 0 && opts.relayOf == 0 && (rc = openOutput(opts.output, out)) != 0) {
    unregisterAbmon(index);
    pvm_exit();
  }
  if (rc != 0) {
    if (localFd >= 0) close(localFd);
    if (controlFd >= 0) close(controlFd), unlink(opts.control.c_str());
    return rc;
  }
  if (autoControl) std::cerr << "abmon: control socket " << opts.control << "\n";  // for xabview --control
  spdlog::info("t{:x} registered as \"{}\": context {}, tag {}, batch {}, flush {} ms, poke {} ms, {}",
               tid, mailboxName, context, opts.tag, opts.batch, opts.flushMs, opts.pokeMs,
               socketName.empty() ? std::string("PVM messages only") : "local socket @" + socketName);

  int code = Monitor({opts, tid, index, localFd, controlFd, out, compressesTo(opts.output), mailboxName}).run();
  pvm_exit();
  if (out && out != stdout && std::fclose(out) != 0 && code == kExitOk) code = kExitOutput;
  return code;
}
