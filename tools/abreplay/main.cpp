// abreplay -- record a PVM program's run, and run it again the same way.
//
//   abreplay --record DIR -- COMMAND...   run COMMAND with XAB_RECORD=DIR
//   abreplay [options] DIR -- COMMAND...  replay the record in DIR
//   abreplay --dump DIR                   the record, one line per call
//   abreplay --from-trace TRACE [--write-record DIR] [-- COMMAND...]
//                                         a full trace as the record
//
// Record and replay are libab's (docs/replay.md); abreplay names the
// recorded tasks by spawn path, writes libab's plan, sets the environment
// every task of the run needs, runs COMMAND and says where the run
// departed from the record, if it did.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <xab/replay/record_set.h>

#include "host_probe.h"
#include "xab/version.h"

namespace fs = std::filesystem;
using xab::replay::RecordSet;

namespace {

const char kUsage[] =
    "Usage: abreplay --record DIR -- COMMAND [ARG...]\n"
    "       abreplay [--timeout S] [--on-departure stop|go-on] DIR -- COMMAND [ARG...]\n"
    "       abreplay --dump DIR\n"
    "       abreplay [--timeout S] [--on-departure stop|go-on] --from-trace TRACE\n"
    "                [--write-record DIR] [-- COMMAND [ARG...]]\n"
    "Record a run of a PVM program built with libab, or run it again forced to\n"
    "the recorded run's course: every receive whose outcome depended on timing\n"
    "(a wildcard pvm_recv, every pvm_trecv, pvm_nrecv, pvm_probe) gets the\n"
    "message the recorded call got, or finds nothing, or times out, again.\n"
    "Start the program's virtual machine (and abmon, to trace the replay) first.\n"
    "\n"
    "  --record DIR      run COMMAND with XAB_RECORD=DIR: each task writes\n"
    "                    DIR/t<tid>.rec (earlier records in DIR are removed)\n"
    "  --dump DIR        print the record: a line per task and per recorded call\n"
    "  --from-trace TRACE  the record is a full trace of the run (abmon's default\n"
    "                    mode, with src= and serial= on receives): replay COMMAND\n"
    "                    from it; without COMMAND, print it as --dump does\n"
    "  --write-record DIR  with --from-trace: also write the record it makes into\n"
    "                    DIR (t<tid>.rec files, as record mode writes them)\n"
    "  --timeout S       a recorded message that does not come within S seconds\n"
    "                    is a departure (default 10)\n"
    "  --on-departure stop|go-on\n"
    "                    when the program departs from the record: stop the run\n"
    "                    (default; the departing task kills its parent and\n"
    "                    children and exits 3) or go on unforced\n"
    "  -h, --help        this text\n"
    "  --version         xab's version\n"
    "\n"
    "Exit status: COMMAND's (128 + signal if a signal ended it); 3 if the run\n"
    "departed from the record or no task read its plan (COMMAND without libab);\n"
    "2 for bad arguments or an unreadable record.\n"
    "\n"
    "Examples:\n"
    "  1. abreplay --record rec -- xabrace --hang\n"
    "  2. abreplay rec -- xabrace --hang\n"
    "  3. abreplay --dump rec\n"
    "  4. abreplay --from-trace bad.trace -- xabrace --hang\n"
    "  5. abreplay --from-trace bad.trace --write-record rec\n";

struct Options {
  std::string mode = "replay";  // record, replay, dump
  std::string dir;
  std::string trace;   // --from-trace: the record is this trace
  std::string writeRecord;
  int timeout_s = 10;
  std::string on_departure = "stop";
  std::vector<std::string> command;
};

[[noreturn]] void bad(const std::string& why) {
  std::cerr << "abreplay: " << why << "\n" << kUsage;
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) bad(a + " needs a value");
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--version") {
      std::cout << "abreplay (xab) " << XAB_VERSION_STRING << "\n";
      std::exit(0);
    } else if (a == "--record" || a == "--dump") {
      o.mode = a.substr(2);
      o.dir = value();
    } else if (a == "--from-trace") {
      o.trace = value();
    } else if (a == "--write-record") {
      o.writeRecord = value();
    } else if (a == "--timeout") {
      char* end = nullptr;
      std::string v = value();
      long s = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || s < 1 || s > 86400) bad("--timeout wants seconds (1..86400), not '" + v + "'");
      o.timeout_s = int(s);
    } else if (a == "--on-departure") {
      o.on_departure = value();
      if (o.on_departure != "stop" && o.on_departure != "go-on") bad("--on-departure is stop or go-on");
    } else if (a == "--") {
      ++i;
      break;
    } else if (!a.empty() && a[0] == '-') {
      bad("unknown option " + a);
    } else if (o.dir.empty()) {
      o.dir = a;
    } else {
      bad("put -- before the command: " + a);
    }
  }
  for (; i < argc; ++i) o.command.emplace_back(argv[i]);
  if (!o.trace.empty() && (o.mode != "replay" || !o.dir.empty()))
    bad("--from-trace is the record: give no record directory, --record or --dump with it");
  if (!o.writeRecord.empty() && o.trace.empty()) bad("--write-record goes with --from-trace");
  if (!o.trace.empty()) return o;
  if (o.dir.empty()) bad("which record directory?");
  if (o.mode == "dump" && !o.command.empty()) bad("--dump runs no command");
  if (o.mode != "dump" && o.command.empty()) bad("no command after --");
  return o;
}

// Adds names to PVM_EXPORT, so every spawned task inherits them.
void exportVars(const std::vector<std::string>& names) {
  const char* old = std::getenv("PVM_EXPORT");
  std::string ex = old ? old : "";
  for (const auto& n : names)
    if (("" + std::string(":") + ex + ":").find(":" + n + ":") == std::string::npos) ex += (ex.empty() ? "" : ":") + n;
  setenv("PVM_EXPORT", ex.c_str(), 1);
}

pid_t child = -1;
void forward(int sig) {
  if (child > 0) kill(child, sig);
}

// Runs the command; its exit status (128 + signal).
int run(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  child = fork();
  if (child < 0) {
    std::perror("abreplay: fork");
    return 2;
  }
  if (child == 0) {
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "abreplay: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  struct sigaction sa {};
  sa.sa_handler = forward;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string readAll(const std::string& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int record(const Options& o) {
  fs::create_directories(o.dir);
  for (const auto& f : fs::directory_iterator(o.dir))
    if (f.path().extension() == ".rec" || f.path().filename() == "clocks") fs::remove(f.path());
  // Each task stamps its own host's clock: measure the hosts' clocks
  // before and after, to put the record on one (host_probe.h).
  xab::abreplay::measureHostClocks(o.dir, 0);
  setenv("XAB_RECORD", fs::absolute(o.dir).c_str(), 1);
  exportVars({"XAB_RECORD"});
  int rc = run(o.command);
  xab::abreplay::measureHostClocks(o.dir, 2);
  return rc;
}

int replay(const Options& o, const RecordSet& records, const std::string& where) {
  std::string plans = where + "/replay." + std::to_string(getpid());
  fs::remove_all(plans);
  fs::create_directories(plans);
  records.writePlans(plans);
  setenv("XAB_REPLAY", plans.c_str(), 1);
  setenv("XAB_REPLAY_PATH", "1", 1);
  setenv("XAB_REPLAY_TIMEOUT", std::to_string(o.timeout_s).c_str(), 1);
  setenv("XAB_REPLAY_DEPART", o.on_departure.c_str(), 1);
  exportVars({"XAB_REPLAY", "XAB_REPLAY_PATH", "XAB_REPLAY_TIMEOUT", "XAB_REPLAY_DEPART"});
  int rc = run(o.command);
  std::string departures = readAll(plans + "/departures"), replayed = "\n" + readAll(plans + "/replayed");
  fs::remove_all(plans);
  // A task built without libab reads no plan: nothing was forced.
  std::string missing;
  for (const auto& t : records.tasks())
    if (replayed.find("\n" + t.path + "\n") == std::string::npos) missing += " " + t.path;
  if (departures.empty() && missing.empty()) return rc;
  if (!departures.empty())
    std::cerr << "abreplay: the run departed from the record " << (o.trace.empty() ? o.dir : o.trace) << ":\n"
              << departures;
  if (replayed == "\n")
    std::cerr << "abreplay: no task of " << o.command[0]
              << " read its replay plan: is it built with libab (xab.h)? Nothing was replayed\n";
  else if (!missing.empty() && departures.empty())
    std::cerr << "abreplay: recorded tasks that never ran in the replay:" << missing
              << "\n";
  return departures.empty() && replayed != "\n" ? rc : 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--clock-probe") return xab::abreplay::clockProbe();
  Options o = parse(argc, argv);
  try {
    if (o.mode == "record") return record(o);
    if (o.mode == "dump") {
      std::cout << RecordSet(o.dir).dump();
      return 0;
    }
    if (o.trace.empty()) return replay(o, RecordSet(o.dir), fs::absolute(o.dir).string());
    RecordSet records = RecordSet::open(o.trace);  // the model reads the trace (record_set.h)
    if (!o.writeRecord.empty()) records.write(o.writeRecord);
    if (o.command.empty()) {
      if (o.writeRecord.empty()) std::cout << records.dump();
      return 0;
    }
    // The plans go where every task finds them: the record written, else a
    // directory of this run under $TMPDIR.
    std::string where = o.writeRecord.empty() ? (fs::temp_directory_path() / ("abreplay." + std::to_string(getpid()))).string()
                                              : fs::absolute(o.writeRecord).string();
    int rc = replay(o, records, where);
    if (o.writeRecord.empty()) fs::remove_all(where);
    return rc;
  } catch (const std::exception& e) {
    std::cerr << "abreplay: " << e.what() << "\n";
    return 2;
  }
}
