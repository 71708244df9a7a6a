#include "options.h"

#include <xab/model/memory.h>
#include <xab/model/reader.h>
#include <xab/version.h>
#include <xab/control_path.h>

#include <sys/un.h>

#include <QCommandLineParser>

#include <cstdio>

namespace xab::view {
namespace {

const char* kHelpTail = R"(
Input: a trace in xab's text format (docs/trace-format.md), from a file that
may still be growing, or from standard input while abmon writes it; or a
finished file in a format the translators read (PICL).

Scripted use (tests, documentation pictures): --step N or --play-to-end,
then --goto S and --find TEXT move the replay (in that order), then
--screenshot, --save-diagram and --dump-state are written and xabview
exits (status 0; 2 when the input cannot be read, yields no records,
never reached the requested point, or no record matches --find).
--dump-on-hang FILE writes the state each time the hang panel reports, live,
that progress stopped: nobody steps (abmon | tee evfile | xabview --hang-after 2
--dump-on-hang hang.json); it follows the input to its end, with no time limit
unless --timeout is given.

Keys: Space play/pause (following a running program: pause at the newest
record), Esc stop (pause and go back to the first record), Right step, Left step back, PgDn/PgUp 100 records, Home first record, End
live (the diagram follows the newest records again), + or = zoom in, - zoom
out, 0 fit the whole trace, Shift+Left/Right pan, ] faster, [ slower (the
rate is shown beside the speed slider), \ speed in trace time or in records
per second, Ctrl+F find, F3 find next, Shift+F3
find previous, Ctrl+G go to a time, Ctrl+O open a trace (File > Open
Recent: the last 8), Ctrl+L event log filter, Ctrl+S save
the diagram (PNG or SVG), Ctrl+E export (PICL, JSON, OTF2, sound), Ctrl+Q
quit; Alt+L, Alt+H, Alt+B, Alt+M, Alt+I choose a panel. Inside a drop-down
the bare keys are the drop-down's own.

Examples:
  1. abmon | tee evfile | xabview
  2. xabview evfile
  3. xabview --step 40 --screenshot step40.png evfile
  4. xabview --play-to-end --dump-state state.json --save-diagram d.svg evfile
  5. xabview --play-to-end --export evfile.trf evfile     (PICL for ParaGraph)
  6. xabview --goto 0.1 --find tag=16004 --dump-state s.json evfile
)";

bool parseSize(const QString& s, QSize& out) {
  auto parts = s.split('x');
  bool ok1 = false, ok2 = false;
  if (parts.size() != 2) return false;
  out = QSize(parts[0].toInt(&ok1), parts[1].toInt(&ok2));
  return ok1 && ok2 && out.width() > 100 && out.height() > 100;
}

}  // namespace

const QStringList& panelNames() {
  static const QStringList names{"log", "hang", "barriers", "why", "messages", "network", "input", "output", "details", "compare"};
  return names;
}

ViewerOptions parseOptions(const QStringList& args, int& exitCode) {
  exitCode = -1;
  QCommandLineParser p;
  p.setApplicationDescription("xabview: watch a PVM program's events as they happen (Xab display).");
  p.addPositionalArgument("FILE", "trace file; '-' or none: standard input");
  QCommandLineOption help({"h", "help"}, "Show this help.");
  QCommandLineOption version("version", "Show the version.");
  QCommandLineOption noFollow("no-follow", "Read a file to its end once; do not wait for it to grow.");
  QCommandLineOption rawTime("raw-time", "Show each task's clock as recorded, not global time (docs/global-time.md).");
  QCommandLineOption compensateOpt("compensate", "Take xab's measured cost out of the times (docs/compensation.md).");
  QCommandLineOption replayOf("replay-of", "The trace is of a replay of the record in DIR: show it on the recorded run's dates (DIR may be a full trace: abreplay --from-trace; docs/replay.md).", "DIR");
  QCommandLineOption step("step", "Scripted: step N records from the start.", "N");
  QCommandLineOption playToEnd("play-to-end", "Scripted: wait for the end of the input, show its last record.");
  QCommandLineOption screenshot("screenshot", "Scripted: save a picture of the window (PNG).", "FILE");
  QCommandLineOption dump("dump-state", "Scripted: write what every view shows as JSON.", "FILE");
  QCommandLineOption diagram("save-diagram", "Scripted: save the space-time diagram (.png or .svg).", "FILE");
  QCommandLineOption exportOpt("export", "Scripted: export the trace (.trf PICL for ParaGraph, .json for Perfetto, .otf2 an OTF2 archive directory for Vampir, .au/.wav sound as ab2au send 8 400 10000).", "FILE");
  QCommandLineOption goTo("goto", "Go to the first record at or after S seconds of trace time (as the status bar's), "
                          "after --step or --play-to-end: as Ctrl+G.", "S");
  QCommandLineOption find("find", "Then go to the first record matching TEXT from the position, wrapping at the end "
                          "(a call, tag=N, a task's name or tid, any text of its fields): as Ctrl+F. No match: status 2.",
                          "TEXT");
  QCommandLineOption tab("tab", "Panel to show: " + panelNames().join(", ") + ".", "NAME");
  QCommandLineOption whyCause("why-cause",
                              "Choose the N-th root cause of the Why slow tab (1: the costliest) once the input is "
                              "read: its waits and its work highlighted on the diagram; shows that tab. No such "
                              "cause: status 2.",
                              "N");
  QCommandLineOption criticalPath("critical-path", "Draw the critical path on the diagram (Why slow tab).");
  QCommandLineOption speedInTraceTime("speed-in-trace-time",
                                      "The replay speed in trace time (x1: as fast as the run went), as \\ does.");
  QCommandLineOption foldOpt("fold",
                             "The diagram's rows: name (one row for the tasks of a program on a host), host (one "
                             "row per host) or none (a row per task): as View > Rows. Default: by name over " +
                                 QString::number(kAutoFoldTasks) + " tasks, else none.",
                             "HOW");
  QCommandLineOption compare("compare",
                             "Open a second run of the program beside the first: its diagram under the first's, "
                             "aligned at their first task records, and the Compare tab ranking what differs "
                             "(as abstat --compare).",
                             "FILE");
  QCommandLineOption budget("budget",
                            "Memory for the trace (default 1G; K, M, G suffixes; 0: none). Beyond it the oldest "
                            "records give way to a summary of their states: the diagram still shows the whole run, "
                            "the records and panels the newest window (docs/xabview.md, \"Long runs\").",
                            "SIZE");
  QCommandLineOption size("size", "Window size, WxH (default 1280x800, maximized on a screen too small for it).", "WxH");
  QCommandLineOption hangAfter("hang-after", "Seconds without new records before the hang panel reports (2).", "S");
  QCommandLineOption timeout("timeout", "Scripted: give up after S seconds (60; none for --dump-on-hang).", "S");
  QCommandLineOption dumpOnHang("dump-on-hang",
                                "Scripted: each time the hang panel reports that progress stopped (live), write the "
                                "state as JSON (with the panel's text) to FILE; exit at the end of the input.",
                                "FILE");
  QCommandLineOption frameLog("frame-log",
                              "Write one line per diagram repaint to FILE: paint time, records shown and read, age of "
                              "the newest record shown, arrival rate, main-thread stalls (bench/xabview_live.sh).",
                              "FILE");
  QCommandLineOption control("control",
                             "Step the live program: connect to abmon's control socket PATH (abmon --control PATH); "
                             "auto: the default path abmon --control auto listens at (docs/xabview.md, \"Stepping\").",
                             "PATH");
  QCommandLineOption controlSteps("control-steps",
                                  "Scripted stepping (with --control): press Step all N times, each once a task is "
                                  "held, then write the outputs (--screenshot, ...) at the next hold and exit.",
                                  "N");
  for (const auto& o : {help, version, noFollow, rawTime, compensateOpt, replayOf, step, playToEnd, screenshot, dump, diagram, exportOpt, goTo, find, tab, whyCause, criticalPath, speedInTraceTime, foldOpt, compare, budget, size,
                        hangAfter, timeout, dumpOnHang, frameLog, control, controlSteps})
    p.addOption(o);

  auto fail = [&](const QString& why) {
    std::fprintf(stderr, "xabview: %s\n", qPrintable(why));
    exitCode = 2;
    return ViewerOptions{};
  };
  if (!p.parse(args)) return fail(p.errorText());
  if (p.isSet(help)) {
    std::printf("%s%s", qPrintable(p.helpText().replace("<executable_name>", "xabview")), kHelpTail);
    exitCode = 0;
    return {};
  }
  if (p.isSet(version)) {
    std::printf("xabview (xab) %s, trace format %d\n", XAB_VERSION_STRING, xab::kTraceFormatVersion);
    exitCode = 0;
    return {};
  }
  ViewerOptions o;
  auto pos = p.positionalArguments();
  if (pos.size() > 1) return fail("one input at most");
  if (!pos.isEmpty()) o.input = pos[0];
  o.follow = !p.isSet(noFollow);
  o.rawTime = p.isSet(rawTime);
  o.compensate = p.isSet(compensateOpt);
  o.replayOf = p.value(replayOf);
  o.control = p.value(control);
  if (o.control == XAB_CONTROL_AUTO) {  // where abmon --control auto listens
    char path[sizeof(sockaddr_un::sun_path)];
    if (xab_control_default_path(path, sizeof path) < 0) return fail("--control auto: PVM_TMP makes the path too long");
    o.control = QString::fromLocal8Bit(path);
  }
  o.frameLog = p.value(frameLog);
  if (p.isSet(step)) {
    bool ok = false;
    o.step = p.value(step).toLongLong(&ok);
    if (!ok || *o.step < 0) return fail("--step needs a count >= 0");
  }
  if (p.isSet(controlSteps)) {
    bool ok = false;
    o.controlSteps = p.value(controlSteps).toInt(&ok);
    if (!ok || *o.controlSteps < 0 || o.control.isEmpty()) return fail("--control-steps needs a count >= 0 and --control");
  }
  o.playToEnd = p.isSet(playToEnd);
  if (o.step && o.playToEnd) return fail("--step and --play-to-end exclude each other");
  o.screenshot = p.value(screenshot);
  o.dumpState = p.value(dump);
  o.dumpOnHang = p.value(dumpOnHang);
  o.saveDiagram = p.value(diagram);
  o.exportFile = p.value(exportOpt);
  if (p.isSet(goTo)) {
    bool ok = false;
    o.goTo = p.value(goTo).toDouble(&ok);
    if (!ok) return fail("--goto needs seconds, e.g. 1.25");
  }
  o.find = p.value(find);
  if (p.isSet(find) && o.find.trimmed().isEmpty()) return fail("--find needs a text");
  o.tab = p.value(tab);
  if (p.isSet(whyCause)) {
    bool ok = false;
    int n = p.value(whyCause).toInt(&ok);
    if (!ok || n < 1) return fail("--why-cause needs a cause's rank, 1 or more");
    o.whyCause = n;
    if (o.tab.isEmpty()) o.tab = "why";
  }
  o.criticalPath = p.isSet(criticalPath);
  o.speedInTraceTime = p.isSet(speedInTraceTime);
  if (p.isSet(foldOpt)) {
    const QString how = p.value(foldOpt);
    if (how == "name") o.fold = RowFold::ByName;
    else if (how == "host") o.fold = RowFold::ByHost;
    else if (how == "none") o.fold = RowFold::None;
    else return fail("--fold: one of name, host, none");
  }
  o.compare = p.value(compare);
  if (!o.tab.isEmpty() && !panelNames().contains(o.tab)) return fail("--tab: one of " + panelNames().join(", "));
  if (p.isSet(size) && !parseSize(p.value(size), o.size)) return fail("--size needs WxH, e.g. 1280x800");
  if (p.isSet(budget)) {
    const auto bytes = parseByteSize(p.value(budget).toStdString());
    if (!bytes) return fail("--budget needs a size such as 1G, 512M or 0 (none)");
    o.budget = *bytes;
  }
  o.sizeGiven = p.isSet(size);
  bool ok = true;
  if (p.isSet(hangAfter)) o.hangAfter = p.value(hangAfter).toDouble(&ok);
  if (!ok || o.hangAfter < 0) return fail("--hang-after needs seconds");
  o.timeoutGiven = p.isSet(timeout);
  if (o.timeoutGiven) o.timeout = p.value(timeout).toDouble(&ok);
  if (!ok || o.timeout <= 0) return fail("--timeout needs seconds");
  return o;
}

bool startMaximized(const ViewerOptions& o, QSize available) {
  // A frame: borders of a few pixels and a title bar of 20 to 30.
  constexpr int kFrameWidth = 16, kFrameHeight = 48;
  if (o.sizeGiven || o.scripted() || available.isEmpty()) return false;
  return o.size.width() + kFrameWidth > available.width() || o.size.height() + kFrameHeight > available.height();
}

}  // namespace xab::view
