// End-to-end: the real xabview binary under an Xvfb of its own, fed the way
// a user feeds it: a trace piped on stdin, and `abmon | tee evfile | xabview`
// while the demo runs in a private PVM.  Each test checks the models (via
// --dump-state) and the picture (via --screenshot).
#include "xab/test/private_vm.h"
#include "xab/test/process.h"

#include <QColor>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QStringList>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace xab::test;
namespace fs = std::filesystem;

namespace {

// An X server for this test only: a display number nobody uses, stopped
// (by its pid) when the test ends.
struct Xvfb {
  std::unique_ptr<BackgroundProcess> proc;
  std::string display;
  explicit Xvfb(const std::string& dir) {
    for (int n = 100 + ::getpid() % 500, tries = 0; tries < 40; ++n, ++tries) {
      std::string sock = "/tmp/.X11-unix/X" + std::to_string(n);
      if (fs::exists(sock) || fs::exists("/tmp/.X" + std::to_string(n) + "-lock")) continue;
      display = ":" + std::to_string(n);
      proc = std::make_unique<BackgroundProcess>(
          std::vector<std::string>{"Xvfb", display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"},
          dir + "/xvfb.log");
      for (int i = 0; i < 100 && proc->running() && !fs::exists(sock); ++i)
        std::this_thread::sleep_for(50ms);
      if (proc->running() && fs::exists(sock)) return;
      proc.reset();  // somebody took the number first: try the next
    }
    FAIL("cannot start Xvfb");
  }
  ~Xvfb() {
    if (proc) proc->stop(SIGTERM);
  }
  EnvVars env() const { return {{"DISPLAY", display}, {"QT_QPA_PLATFORM", "xcb"}}; }
};

QJsonObject readJson(const std::string& path) {
  QJsonParseError err{};
  auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(read_file(path)), &err);
  INFO("json: " << err.errorString().toStdString());
  REQUIRE(doc.isObject());
  return doc.object();
}

// A real picture of the window: the requested size, and many colours.
void checkScreenshot(const std::string& path, int w, int h) {
  QImage img(QString::fromStdString(path));
  REQUIRE_FALSE(img.isNull());
  CHECK(img.width() == w);
  CHECK(img.height() == h);
  QSet<QRgb> colours;
  for (int y = 0; y < img.height(); y += 4)
    for (int x = 0; x < img.width(); x += 4) colours.insert(img.pixel(x, y));
  CHECK(colours.size() > 20);
}

QString doingOf(const QJsonObject& state, const QString& task) {
  for (const auto& t : state["tasks"].toArray())
    if (t.toObject()["task"].toString() == task) return t.toObject()["doing"].toString();
  return {};
}

std::string xabview() { return XAB_XABVIEW; }

}  // namespace

TEST_CASE("a trace on stdin: step 20 records, screenshot and state", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  std::string trace = read_file(std::string(XAB_MODEL_DATA) + "/cholesky_hang.trace");
  auto r = run({xabview(), "--step", "20", "--screenshot", dir + "/shot.png", "--dump-state", dir + "/state.json",
                "--save-diagram", dir + "/diagram.svg"},
               x.env(), 60s, trace);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto state = readJson(dir + "/state.json");
  CHECK(state["position"].toInt() == 20);
  CHECK(state["events"].toInt() == 33);
  CHECK(state["tasks"].toArray().size() == 4);
  CHECK(state["live"].toBool() == false);
  checkScreenshot(dir + "/shot.png", 1280, 800);
  CHECK(read_file(dir + "/diagram.svg").find("<svg") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("bad input: line numbers on stderr and in the window, the rest shown", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  auto r = run({xabview(), "--play-to-end", "--tab", "input", "--screenshot", dir + "/shot.png", "--dump-state",
                dir + "/state.json", std::string(XAB_MODEL_DATA) + "/malformed.trace"},
               x.env(), 60s);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("malformed.trace:3:") != std::string::npos);
  auto state = readJson(dir + "/state.json");
  CHECK(state["error_count"].toInt() >= 2);
  CHECK(state["errors"].toArray()[0].toObject()["line"].toInt() == 3);
  CHECK(state["events"].toInt() >= 3);
  checkScreenshot(dir + "/shot.png", 1280, 800);
  fs::remove_all(dir);
}

// The per-host collection figures (events, batches, lost; a host
// whose pvmd died) in the Input tab, as abstat's Hosts table has them.
TEST_CASE("two hosts, one by a relay and lost: the Input tab gives each host's figures", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  auto r = run({xabview(), "--play-to-end", "--tab", "input", "--dump-state", dir + "/state.json",
                std::string(XAB_MODEL_DATA) + "/two-hosts.trace"},
               x.env(), 60s);
  REQUIRE(r.exit_code == 0);
  QString text = readJson(dir + "/state.json")["input_panel"].toString();
  INFO(text.toStdString());
  CHECK(text.contains("node0: 1 tasks, 2 records, 0 lost; by abmon"));
  CHECK(text.contains("node1: 1 tasks, 3 records, 0 lost; by its relay, 1 batches of 2 records; its pvmd died (lost)"));
  fs::remove_all(dir);
}

TEST_CASE("a missing file is an error message and status 2", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  auto r = run({xabview(), "--play-to-end", "--dump-state", dir + "/s.json", dir + "/nothing-here"}, x.env(), 60s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("No such file") != std::string::npos);
  fs::remove_all(dir);
}

// --dump-on-hang on a file abmon is still writing.  Catching up
// with the file is not its end: xabview reports the hang once the file is
// silent for --hang-after, keeps following, and exits 0 at abmon.stop.
TEST_CASE("dump on hang: a growing file is followed past the hang report to abmon.stop", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  const std::string evfile = dir + "/evfile", alarmFile = dir + "/alarm.json";
  auto append = [&](const std::string& text) {
    std::ofstream out(evfile, std::ios::app);
    out << text;
  };
  append("#xab-trace 1 abmon=t40001 host=vm pid=4242 start=1763680000.000000000\n"
         "1763680000.1 1763680000.1 t40002 mytid rc=t40002 name=master host=vm parent=none lang=c pid=200\n"
         "1763680000.2 1763680000.2 t40002 recv.begin src=any tag=99\n");
  BackgroundProcess viewer({xabview(), "--hang-after", "1", "--dump-on-hang", alarmFile, "--tab", "log", evfile},
                           dir + "/viewer.out", x.env());
  bool reported = false;
  for (int i = 0; i < 600 && !reported && viewer.running(); ++i) {
    std::this_thread::sleep_for(100ms);
    reported = fs::exists(alarmFile);
  }
  INFO("xabview: " << viewer.read_stderr());
  REQUIRE(reported);
  auto alarm = readJson(alarmFile);
  CHECK_FALSE(alarm["input_ended"].toBool());
  CHECK(alarm["caught_up"].toBool());
  CHECK(alarm["hang_panel"].toObject()["alarm"].toBool());
  CHECK(alarm["hang_banner"].toObject()["shown"].toBool());
  CHECK(alarm["panel"].toString() == "log");
  // Still following: it neither quit at the report nor at having caught up.
  std::this_thread::sleep_for(3s);
  CHECK(viewer.running());
  append("1763680001.0 1763680001.0 t40001 abmon.stop events=2 tasks=1 bad=0\n");
  CHECK(viewer.wait(60s) == 0);
  fs::remove_all(dir);
}

// A file xabview cannot make a record of: every line
// malformed, nothing at all, or a binary given by mistake.  Showing an
// empty window and exiting 0 would pass for a quiet program.
TEST_CASE("an input with no records is an error message and status 2, not an empty success", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  struct Case {
    const char* name;
    std::string text;
    const char* says;
  };
  const Case cases[] = {
      {"malformed.xab", "garbage line one\nmore garbage\n", "no records read (2 malformed lines, first: line 1"},
      {"empty.xab", "", "no records read (the input is empty)"},
      {"binary.xab", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0", 12) + "\n", "no records read (1 malformed line"},
      {"header.xab", "#xab-trace 1 abmon=t40001 host=vm pid=1 start=1763680000.0\n", "no records read (a header only"},
  };
  for (const Case& c : cases) {
    std::string file = dir + "/" + c.name;
    std::ofstream(file, std::ios::binary) << c.text;
    auto r = run({xabview(), "--play-to-end", "--dump-state", dir + "/s.json", file}, x.env(), 60s);
    INFO(c.name << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(std::string(c.name) + ": " + c.says) != std::string::npos);
    CHECK(r.err.find("did not reach the requested point") == std::string::npos);
  }
  // Stepping fails the same way.
  std::ofstream(dir + "/bad.xab") << "not a trace\n";
  auto step = run({xabview(), "--step", "5", "--save-diagram", dir + "/d.png", dir + "/bad.xab"}, x.env(), 60s);
  CHECK(step.exit_code == 2);
  CHECK(step.err.find("no records read") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("xabview --goto and --find move the replay as Ctrl+G and Ctrl+F, and --dump-state says what was found", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  const std::string trace = std::string(XAB_MODEL_DATA) + "/cholesky_hang.trace";
  // 0.1749 s after abmon.start (t40003 sent its result at 0.172) the next tag 16004 is t40004's send.
  auto r = run({xabview(), "--no-follow", "--play-to-end", "--goto", "0.1749", "--find", "cholnode tag=16004",
                "--dump-state", dir + "/state.json", "--screenshot", dir + "/shot.png", trace},
               x.env(), 60s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto state = readJson(dir + "/state.json");
  CHECK(state["position"].toInt() == 22);
  CHECK(state["live"].toBool() == false);
  CHECK(state["current"].toObject()["task"].toString() == "(cholnode, 1)");
  CHECK(state["current"].toObject()["event"].toString() == "send");
  CHECK(state["current"].toObject()["fields"].toString().contains("tag=16004"));
  CHECK(state["find"].toObject()["query"].toString() == "cholnode tag=16004");
  CHECK(state["find"].toObject()["found"].toBool());
  CHECK(state["find"].toObject()["result"].toString() == "record 22 of 33");
  // The record is in the whole trace's view: the diagram still shows it all (from the first task record, 0.0999 s).
  CHECK(state["view_s"].toArray()[0].toDouble() == Approx(0.0999).margin(1e-6));
  CHECK(state["view_s"].toArray()[1].toDouble() > 0.19);
  checkScreenshot(dir + "/shot.png", 1280, 800);
  // --goto alone: the first record at or after the time.
  r = run({xabview(), "--no-follow", "--goto", "0.1749", "--dump-state", dir + "/goto.json", trace}, x.env(), 60s);
  REQUIRE(r.exit_code == 0);
  state = readJson(dir + "/goto.json");
  CHECK(state["current"].toObject()["task"].toString() == "(cholnode, 1)");
  CHECK(state["current"].toObject()["event"].toString() == "initsend");
  // No match: said, status 2, the outputs still written.
  r = run({xabview(), "--no-follow", "--find", "tag=99", "--dump-state", dir + "/none.json", trace}, x.env(), 60s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--find: no record matches \"tag=99\"") != std::string::npos);
  CHECK(r.err.find("did not reach") == std::string::npos);
  CHECK_FALSE(readJson(dir + "/none.json")["find"].toObject()["found"].toBool());
  CHECK(run({xabview(), "--goto", "soon", trace}).exit_code == 2);
  fs::remove_all(dir);
}

TEST_CASE("xabview --why-cause and --critical-path choose as the Why slow tab does, and --dump-state says so", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  const std::string trace = std::string(XAB_MODEL_DATA) + "/barrier.trace";  // (worker, 2) last at the barrier
  auto r = run({xabview(), "--no-follow", "--play-to-end", "--why-cause", "1", "--critical-path", "--dump-state",
                dir + "/state.json", "--screenshot", dir + "/shot.png", trace},
               x.env(), 60s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto state = readJson(dir + "/state.json");
  CHECK(state["panel"].toString() == "why");
  CHECK(state["highlights"].toInt() >= 3);  // the cause's waits, its work, the path
  QStringList why;
  for (const auto& line : state["why"].toArray()) why << line.toString();
  CHECK(why.join('\n').contains("(worker, 2)"));
  CHECK(state["why_made"].toString() == "ready");  // the tab's, waited for
  checkScreenshot(dir + "/shot.png", 1280, 800);
  // Without them nothing is highlighted, and the viewer made no wait states
  // (the dump made its report itself); a cause the trace lacks is status 2.
  r = run({xabview(), "--no-follow", "--play-to-end", "--dump-state", dir + "/plain.json", trace}, x.env(), 60s);
  REQUIRE(r.exit_code == 0);
  const auto plain = readJson(dir + "/plain.json");
  CHECK(plain["highlights"].toInt() == 0);
  CHECK(plain["why_made"].toString() == "not asked");
  CHECK(plain["why"].toArray().size() == state["why"].toArray().size());
  CHECK(plain["replay_speed"].toString().endsWith("rec/s"));
  // --speed-in-trace-time: the replay bar's speed as \ switches it, x1 the run's pace.
  r = run({xabview(), "--no-follow", "--play-to-end", "--speed-in-trace-time", "--dump-state", dir + "/speed.json", trace},
          x.env(), 60s);
  REQUIRE(r.exit_code == 0);
  CHECK(readJson(dir + "/speed.json")["replay_speed"].toString() == QStringLiteral("\u00d71"));
  r = run({xabview(), "--no-follow", "--play-to-end", "--why-cause", "9", "--dump-state", dir + "/none.json", trace},
          x.env(), 60s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--why-cause 9: the trace has") != std::string::npos);
  CHECK(run({xabview(), "--why-cause", "0", trace}).exit_code == 2);
  fs::remove_all(dir);
}

TEST_CASE("xabview --compare: the scripted outputs wait for the comparison, which --dump-state holds", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  const std::string a = std::string(XAB_MODEL_DATA) + "/barrier.trace", b = std::string(XAB_MODEL_DATA) + "/deadlock.trace";
  auto r = run({xabview(), "--no-follow", "--play-to-end", "--compare", a, "--tab", "compare", "--dump-state",
                dir + "/same.json", a},
               x.env(), 60s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto state = readJson(dir + "/same.json");
  CHECK(state["panel"].toString() == "compare");
  CHECK(state["compare_panel"].toString() == "The two runs do not differ.");
  // Another program: told apart, not ranked.
  r = run({xabview(), "--no-follow", "--play-to-end", "--compare", b, "--dump-state", dir + "/other.json", a}, x.env(), 60s);
  REQUIRE(r.exit_code == 0);
  CHECK(readJson(dir + "/other.json")["compare_panel"].toString().startsWith("Runs of a different program shape"));
  fs::remove_all(dir);
}

TEST_CASE("xabview --help names every option and has examples", "[xabview]") {
  auto r = run({xabview(), "--help"});
  CHECK(r.exit_code == 0);
  for (const char* opt : {"--step", "--play-to-end", "--goto", "--find", "--why-cause", "--critical-path", "--compare", "--screenshot",
                          "--dump-state", "--save-diagram", "Examples:"})
    CHECK(r.out.find(opt) != std::string::npos);
  CHECK(run({xabview(), "--step", "x"}).exit_code == 2);
}


// `{ abmon & echo $! > pid; wait; } | tee evfile | xabview ...`: abmon's pid
// is known, so the test stops exactly the abmon it started.
struct Pipeline {
  std::string dir, evfile;
  std::unique_ptr<BackgroundProcess> shell;
  Pipeline(const std::string& d, const EnvVars& env, const std::vector<std::string>& viewArgs) : dir(d) {
    evfile = dir + "/evfile";
    std::string cmd = "{ '" + bin_dir() + "/abmon' & echo $! > '" + dir + "/abmon.pid'; wait; } | tee '" + evfile +
                      "' | '" + xabview() + "'";
    for (const auto& a : viewArgs) cmd += " '" + a + "'";
    shell = std::make_unique<BackgroundProcess>(std::vector<std::string>{"sh", "-c", cmd}, dir + "/view.out", env);
    REQUIRE(waitFor([&] { return read_file(evfile).find(" abmon.start ") != std::string::npos; }, 20s));
  }
  static bool waitFor(const std::function<bool()>& pred, std::chrono::milliseconds deadline) {
    for (auto waited = 0ms; waited < deadline; waited += 100ms) {
      if (pred()) return true;
      std::this_thread::sleep_for(100ms);
    }
    return pred();
  }
  void stopMonitor() {
    pid_t pid = std::stoi(read_file(dir + "/abmon.pid"));
    REQUIRE(pid > 0);
    ::kill(pid, SIGINT);
  }
};

TEST_CASE("abmon | tee evfile | xabview: single-stepping the --hang demo ends naming the tags", "[xabview][e2e][pvm]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  PrivateVm vm;
  Pipeline pipe(dir, x.env(),
                {"--step", "100000", "--tab", "hang", "--timeout", "150", "--screenshot", dir + "/hang.png",
                 "--dump-state", dir + "/hang.json", "--save-diagram", dir + "/hang-diagram.png"});
  BackgroundProcess master({bin_dir() + "/xabdemo", "--hang"}, dir + "/demo.out");
  // The hang is complete when the master waits for 16040 and three results went out.
  REQUIRE(Pipeline::waitFor([&] {
    std::string t = read_file(pipe.evfile);
    std::size_t sends = 0;
    for (std::size_t p = 0; (p = t.find(" send dst=", p)) != std::string::npos; ++p)
      if (t.compare(t.find("tag=", p), 9, "tag=16004") == 0) ++sends;
    return t.find("recv.begin src=any tag=16040") != std::string::npos && sends >= 3;
  }, 60s));
  std::this_thread::sleep_for(1s);  // the workers' next recv.begin
  pipe.stopMonitor();               // end of input: xabview steps through all of it
  CHECK(pipe.shell->wait(150s) == 0);
  INFO(pipe.shell->read_stderr());
  auto state = readJson(dir + "/hang.json");
  CHECK(state["position"].toInt() == state["events"].toInt());
  CHECK(state["hung"].toBool());
  QString hang = state["hang"].toVariant().toStringList().join('\n');
  INFO(hang.toStdString());
  CHECK(hang.contains("16040"));
  CHECK(hang.contains("16004"));
  CHECK(doingOf(state, "(xabdemo, 0)").startsWith("blocked in recv(src any, tag 16040)"));
  CHECK(state["tasks"].toArray().size() == 4);
  checkScreenshot(dir + "/hang.png", 1280, 800);
  CHECK(master.stop(SIGTERM) == 128 + SIGTERM);
  vm.stop();
  fs::remove_all(dir);
}

TEST_CASE("abmon | tee evfile | xabview, live: the hang panel names the tags once progress stops, nobody stepping",
          "[xabview][e2e][pvm]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  PrivateVm vm;
  // xabview follows the input live; each time its hang panel reports that
  // records stopped coming, it writes its state (with the panel's text).
  const std::string alarmFile = dir + "/alarm.json";
  Pipeline pipe(dir, x.env(),
                {"--play-to-end", "--tab", "log", "--hang-after", "2", "--timeout", "600", "--dump-on-hang", alarmFile,
                 "--dump-state", dir + "/end.json"});
  BackgroundProcess master({bin_dir() + "/xabdemo", "--hang"}, dir + "/demo.out");
  // The panel may speak earlier (a blocked task, then a silence, on a busy
  // machine); each report rewrites the file.  Wait, however long the
  // machine takes, for the one that names both tags.
  QJsonObject alarm;
  QString text;
  bool named = Pipeline::waitFor([&] {
    if (!fs::exists(alarmFile)) return false;
    auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(read_file(alarmFile)));
    alarm = doc.object();
    text = alarm["hang_panel"].toObject()["text"].toString();
    return text.contains("16040") && text.contains("16004");
  }, 240s);
  INFO("the hang panel's last report: " << text.toStdString());
  INFO("xabview: " << pipe.shell->read_stderr());
  REQUIRE(named);
  // Written live, by the panel's own alarm: abmon still running, the view
  // following the input (no stepping); a banner says so and the tab the
  // user chose (--tab log) stays in front.
  CHECK(alarm["live"].toBool());
  CHECK_FALSE(alarm["input_ended"].toBool());
  CHECK_FALSE(alarm["monitor_stopped"].toBool());
  CHECK(alarm["position"].toInt() == alarm["events"].toInt());
  CHECK(alarm["hang_panel"].toObject()["alarm"].toBool());
  CHECK(alarm["panel"].toString() == "log");
  CHECK(alarm["hang_banner"].toObject()["shown"].toBool());
  CHECK(alarm["hung"].toBool());
  CHECK(text.contains("No new records for"));
  CHECK(text.contains("(xabdemo, 0) waits for tag 16040"));
  CHECK(text.contains("queued: tag 16004"));
  CHECK(doingOf(alarm, "(xabdemo, 0)").startsWith("blocked in recv(src any, tag 16040)"));
  // Stopping abmon ends the input; xabview writes the end state and exits.
  pipe.stopMonitor();
  CHECK(pipe.shell->wait(150s) == 0);
  auto end = readJson(dir + "/end.json");
  CHECK(end["input_ended"].toBool());
  CHECK(end["hung"].toBool());
  CHECK(master.stop(SIGTERM) == 128 + SIGTERM);
  vm.stop();
  fs::remove_all(dir);
}

TEST_CASE("abmon | tee evfile | xabview: a whole demo run, barriers and messages", "[xabview][e2e][pvm]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  PrivateVm vm;
  Pipeline pipe(dir, x.env(),
                {"--play-to-end", "--tab", "barriers", "--timeout", "150", "--screenshot", dir + "/run.png",
                 "--dump-state", dir + "/run.json"});
  auto r = run({bin_dir() + "/xabdemo", "-n", "3", "--rounds", "3"}, {}, 120s);
  REQUIRE(r.exit_code == 0);
  REQUIRE(Pipeline::waitFor([&] {
    std::string t = read_file(pipe.evfile);
    std::size_t n = 0;
    for (std::size_t p = 0; (p = t.find(" task.exit ", p)) != std::string::npos; ++p) ++n;
    return n >= 4;
  }, 30s));
  pipe.stopMonitor();
  CHECK(pipe.shell->wait(150s) == 0);
  auto state = readJson(dir + "/run.json");
  CHECK(state["monitor_stopped"].toBool());
  CHECK_FALSE(state["hung"].toBool());
  for (const auto& t : state["tasks"].toArray()) CHECK(t.toObject()["activity"].toString() == "exited");
  CHECK(state["barriers"].toArray().size() >= 2);
  CHECK(state["messages"].toObject()["matched"].toInt() >= 3 * 3 * 2);
  CHECK(state["messages"].toObject()["pending"].toArray().isEmpty());
  checkScreenshot(dir + "/run.png", 1280, 800);
  vm.stop();
  fs::remove_all(dir);
}


namespace {
// A paragraph as words: roff's \- and line breaks do not count.
std::string wordsOf(std::string text) {
  for (std::size_t i; (i = text.find("\\-")) != std::string::npos;) text.replace(i, 2, "-");
  for (std::size_t i; (i = text.find("\\e")) != std::string::npos;) text.replace(i, 2, "\\");  // roff's backslash
  std::istringstream in(text);
  std::string word, out;
  while (in >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}
}  // namespace

TEST_CASE("xabview --help and the man page list the same keys") {
  auto r = xab::test::run({XAB_XABVIEW, "--help"}, {}, std::chrono::seconds(30));
  REQUIRE(r.exit_code == 0);
  const std::size_t from = r.out.find("Keys: ");
  REQUIRE(from != std::string::npos);
  const std::size_t end = r.out.find("\n\n", from);
  std::string help = wordsOf(r.out.substr(from + 6, end - from - 6));
  std::string page = read_file(xab::test::source_dir() + "/docs/man/xabview.1");
  auto a = page.find(".SH KEYS\n"), b = page.find("\n.SH", a + 1);
  REQUIRE(a != std::string::npos);
  CHECK(help == wordsOf(page.substr(a + 9, b - a - 9)));
  CHECK(help.find("PgDn/PgUp") != std::string::npos);
  CHECK(help.find("Esc stop (pause and go back to the first record)") != std::string::npos);
}

// The hosts of the tasks and of the samples, each with its load at the
// cursor: node1's relay sampled it at load 3.2 last, vm at 0.5.
TEST_CASE("dump state: each host with its load at the cursor", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  auto r = run({xabview(), "--play-to-end", "--dump-state", dir + "/state.json",
                std::string(XAB_MODEL_DATA) + "/why_overload.trace"},
               x.env(), 60s);
  REQUIRE(r.exit_code == 0);
  QJsonArray hosts = readJson(dir + "/state.json")["hosts"].toArray();
  INFO(QJsonDocument(hosts).toJson().toStdString());
  REQUIRE(hosts.size() == 2);
  QJsonObject vm = hosts[0].toObject(), node1 = hosts[1].toObject();
  CHECK(vm["name"].toString() == "vm");
  CHECK(vm["tasks"].toInt() == 2);
  CHECK(vm["load"].toDouble() == 0.5);
  CHECK(vm["cpus"].toInt() == 2);
  CHECK(node1["name"].toString() == "node1");
  CHECK(node1["tasks"].toInt() == 1);
  CHECK(node1["load"].toDouble() == 3.2);
  CHECK(node1["cpus"].toInt() == 1);
  CHECK(node1["busy"].isNull());
  fs::remove_all(dir);
}

// --fold: the rows as View > Rows makes them, in the state dump; a bad
// value is refused.
TEST_CASE("xabview --fold host: one row per host in the state dump", "[xabview][e2e]") {
  std::string dir = make_temp_dir("xabview-e2e");
  Xvfb x(dir);
  const std::string trace = std::string(XAB_MODEL_DATA) + "/why_overload.trace";
  auto r = run({xabview(), "--play-to-end", "--fold", "host", "--dump-state", dir + "/state.json", trace}, x.env(), 60s);
  REQUIRE(r.exit_code == 0);
  QJsonObject rows = readJson(dir + "/state.json")["rows"].toObject();
  INFO(QJsonDocument(rows).toJson().toStdString());
  CHECK(rows["fold"].toString() == "host");
  CHECK(rows["count"].toInt() == 2);  // vm (2 tasks, folded) and node1 (1 task, its own row)
  REQUIRE(rows["folded"].toArray().size() == 1);
  CHECK(rows["folded"].toArray()[0].toObject()["label"].toString() == "vm: 2 tasks");
  CHECK(rows["not_drawn"].toInt() == 0);
  auto bad = run({xabview(), "--fold", "program", trace}, x.env(), 60s);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--fold: one of name, host, none"));
  fs::remove_all(dir);
}
