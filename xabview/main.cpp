// xabview -- the Xab display: watch a PVM program's events as they arrive.
//
//   abmon | tee evfile | xabview        (Beguelin, Xab, §3.3)
//   xabview evfile
//   xabview --step 40 --screenshot shot.png evfile
#include "compare_view.h"
#include "control_panel.h"
#include "diagram_view.h"
#include "export.h"
#include "find_bar.h"
#include "input_session.h"
#include "main_window.h"
#include "output_panel.h"
#include "options.h"
#include "panels.h"
#include "replay_bar.h"
#include "state_dump.h"
#include "trace_loader.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QScreen>
#include <QTableView>
#include <QTimer>

#include <xab/model/memory.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

using namespace xab::view;

namespace {

// --why-cause and --critical-path: as chosen in the Why slow tab.  False
// when the trace has no such cause.
bool chooseWhy(MainWindow* window, const ViewerOptions& o) {
  WhyPanel* why = window->whyPanel();
  if (o.criticalPath) why->setCriticalPath(true);
  if (!o.whyCause) return true;
  const int causes = why->causes()->model()->rowCount();
  if (*o.whyCause <= causes) {
    why->causes()->setCurrentIndex(why->causes()->model()->index(*o.whyCause - 1, 0));
    return true;
  }
  std::fprintf(stderr, "xabview: --why-cause %d: the trace has %d root cause%s of waiting\n", *o.whyCause, causes,
               causes == 1 ? "" : "s");
  return false;
}

// --goto and --find: the replay moved as Ctrl+G and Ctrl+F would (the bar
// shown with what was asked).  False when --find matches no record.
bool goAndFind(MainWindow* window, const ViewerOptions& o) {
  FindBar* bar = window->findBar();
  if (!o.goTo && o.find.isEmpty()) return true;
  bar->show();
  if (o.goTo) bar->goToSeconds(*o.goTo);
  if (o.find.isEmpty()) return true;
  bar->setQuery(o.find);
  if (bar->find(true)) return true;
  std::fprintf(stderr, "xabview: --find: %s\n", qPrintable(bar->resultText().trimmed()));
  return false;
}

// Scripted mode: wait until the input reaches the requested point, put the
// replay there, let the window paint, write the outputs, quit.
class Script : public QObject {
 public:
  Script(ViewState* state, MainWindow* window, InputSession* input, const ViewerOptions& o)
      : state_(state), window_(window), o_(o) {
    // --goto a time before a budget's window: the outputs once its records are read again.
    connect(input, &InputSession::historyShown, this, [this](bool shown) {
      if (shown && done_ && !finished_) QTimer::singleShot(300, this, [this] { finish(0); });
    });
    if (o_.step) state_->setPosition(0);  // stepping starts from the first record
    if (o_.controlSteps && window_->controlPanel())
      connect(window_->controlPanel(), &ControlPanel::changed, this, [this] { controlStep(); });
    connect(state_, &ViewState::snapshotChanged, this, [this] { check(); });
    connect(window_->comparePanel(), &ComparePanel::compared, this, [this] { check(); });
    if (!o_.dumpOnHang.isEmpty())  // live: the panel speaks once progress stops
      connect(window_->hangPanel(), &HangPanel::alarm, this, [this] {
        if (!finished_ && !writeState(o_.dumpOnHang)) std::fprintf(stderr, "xabview: cannot write %s\n", qPrintable(o_.dumpOnHang));
      });
    // --dump-on-hang watches a run of any length: only an explicit --timeout ends it early.
    if (o_.dumpOnHang.isEmpty() || o_.timeoutGiven)
      QTimer::singleShot(static_cast<int>(o_.timeout * 1000), this, [this] { finish(2); });
  }
  // The loader could not open or read the input; it said why on stderr.
  void failed() {
    inputFailed_ = true;
    finish(2);
  }

 private:
  // --control-steps: Step all once per hold (the held list empties when
  // abmon has taken the step), then the outputs at the hold after the last.
  void controlStep() {
    ControlPanel* panel = window_->controlPanel();
    if (done_ || !panel->connected()) return;
    if (panel->waiting().isEmpty()) {
      stepSent_ = false;
      return;
    }
    if (stepSent_) return;
    if (stepsDone_ < *o_.controlSteps) {
      ++stepsDone_;
      stepSent_ = true;
      panel->stepAll();
      return;
    }
    done_ = true;  // the records before this hold came before its ask: let them in and paint
    QTimer::singleShot(1500, this, [this] {
      state_->setPosition(state_->size());
      QTimer::singleShot(300, this, [this] { finish(0); });
    });
  }

  void check() {
    if (done_ || o_.controlSteps) return;
    const ViewSnapshot* s = state_->snapshot();
    // Live, a snapshot may carry the analysis of fewer records; what the
    // script writes is of a complete one (the next snapshot brings it).
    if (!s || !s->analysisComplete()) return;
    // --compare: the outputs hold the comparison of the two runs read whole.
    if (!o_.compare.isEmpty() && !window_->comparePanel()->ready()) return;
    // A followed file read up to what is written counts as its end for the
    // one-shot modes (a finished evfile); --dump-on-hang follows the input
    // to its real end (abmon.stop, the pipe closed).
    bool ended = s && (s->inputEnded || (s->caughtUp && s->followingFile && o_.dumpOnHang.isEmpty()));
    if (ended && s->size() == 0) {  // nothing to show, step or write: say so, fail
      std::fprintf(stderr, "xabview: %s\n", qPrintable(MainWindow::noRecordsText(*s)));
      inputFailed_ = true;
      done_ = true;
      finish(2);
      return;
    }
    // The Why slow tab shown, a cause or the critical path chosen: its
    // analysis, made once asked for (lazy_why.h), comes in a later snapshot.
    if (state_->whyWanted() && !s->whyReady()) return;
    if (o_.step) {
      if (state_->size() < static_cast<std::size_t>(*o_.step) && !ended) return;
      state_->setPosition(0);
      auto n = std::min<qint64>(*o_.step, static_cast<qint64>(state_->size()));
      for (qint64 i = 0; i < n; ++i) state_->step(1);  // exactly as the Step button
    } else if (o_.playToEnd) {
      if (!ended) return;
      state_->setPosition(state_->size());
    } else if (!ended) {
      return;
    }
    done_ = true;
    // --goto/--find once the state has taken this snapshot whole (its range
    // follows it after this signal), then let every view paint.
    QTimer::singleShot(0, this, [this] {
      if (!goAndFind(window_, o_) || !chooseWhy(window_, o_)) {
        inputFailed_ = true;  // said why: not a timeout
        finish(2);
        return;
      }
      if (!window_->findBar()->historyPending()) QTimer::singleShot(300, this, [this] { finish(0); });
    });
  }

  void finish(int code) {
    if (finished_) return;
    finished_ = true;
    if (code != 0 && !inputFailed_)
      std::fprintf(stderr, "xabview: the input did not reach the requested point in %.0f s\n", o_.timeout);
    if (!o_.screenshot.isEmpty() && !window_->grab().save(o_.screenshot)) {
      std::fprintf(stderr, "xabview: cannot write %s\n", qPrintable(o_.screenshot));
      code = 1;
    }
    QString error;
    if (!o_.saveDiagram.isEmpty() && !window_->saveDiagram(o_.saveDiagram, &error)) {
      std::fprintf(stderr, "xabview: %s\n", qPrintable(error));
      code = 1;
    }
    if (!o_.exportFile.isEmpty() && state_->snapshot()) {
      QString why = exportTrace(*state_->snapshot(), o_.exportFile);
      if (!why.isEmpty()) {
        std::fprintf(stderr, "xabview: %s\n", qPrintable(why));
        code = 1;
      }
    }
    if (!o_.dumpState.isEmpty() && !writeState(o_.dumpState)) {
      std::fprintf(stderr, "xabview: cannot write %s\n", qPrintable(o_.dumpState));
      code = 1;
    }
    QCoreApplication::exit(code);
  }

  // The models' state, plus what the window shows: the panel in front and
  // the hang panel's and the Output tab's text.  Written whole or not at all (a reader polling
  // the file never sees half of it).
  bool writeState(const QString& file) const {
    QJsonObject state = dumpState(*state_);
    state["panel"] = window_->currentTab();
    state["hang_panel"] = QJsonObject{{"alarm", window_->hangPanel()->alarmed()}, {"text", window_->hangPanel()->text()}};
    state["hang_banner"] = QJsonObject{{"shown", window_->hangBannerShown()}, {"text", window_->hangBannerText()}};
    state["output_panel"] = QJsonArray::fromStringList(window_->outputPanel()->lines());  // its lines as shown
    state["input_panel"] = window_->inputPanel()->text();  // source, malformed lines, per-host figures
    state["compare_panel"] = window_->comparePanel()->text();  // --compare: what differs, a row a line
    state["replay_speed"] = window_->replayBar()->speedText();  // as the replay bar shows it: "x1", "15 rec/s"
    if (const ViewSnapshot* s = state_->snapshot())  // the diagram's visible range, seconds from the first record
      state["view_s"] = QJsonArray{static_cast<double>(state_->viewBegin() - s->firstTime()) / 1e9,
                                   static_cast<double>(state_->viewEnd() - s->firstTime()) / 1e9};
    // A memory budget's window (--budget): where it starts in the run, and
    // the summary of the records before it.
    if (const ViewSnapshot* s = state_->snapshot(); s && s->history)
      state["window"] = QJsonObject{
          {"run_position", static_cast<double>(s->trace->cut().position)},
          {"records", static_cast<double>(s->size())},
          {"summarised", static_cast<double>(s->history->records())},
          {"history_s", QJsonArray{static_cast<double>(s->history->origin() - s->firstTime()) / 1e9,
                                   static_cast<double>(s->history->end() - s->firstTime()) / 1e9}},
          {"history_bytes", static_cast<double>(s->history->memoryBytes())}};
    state["find"] = QJsonObject{{"query", window_->findBar()->query()},  // the Find bar: --find, --goto
                                {"found", window_->findBar()->lastFound()},
                                {"result", window_->findBar()->resultText().trimmed()}};
    QSaveFile f(file);
    return f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(state).toJson()) >= 0 && f.commit();
  }

  ViewState* state_;
  MainWindow* window_;
  ViewerOptions o_;
  bool done_ = false;
  bool finished_ = false;
  int stepsDone_ = 0;      // --control-steps pressed so far
  bool stepSent_ = false;  // a Step all not yet taken by abmon
  bool inputFailed_ = false;  // unreadable, or no records: not a timeout
};

// `abmon | tee evfile | xabview`: a viewer that exits while the pipe still
// runs would make tee die of SIGPIPE at its next write, and abmon with it,
// and evfile would lose the rest of the run.  So once the window is gone
// xabview reads its standard input to the end, keeping nothing.
void drainStandardInput() {
  struct stat st {};
  if (fstat(STDIN_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  std::fputs("xabview: window closed; reading standard input to its end so that the programs writing it "
             "(tee, abmon) finish the trace\n", stderr);
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  xab::returnFreedArrays();
  QStringList args;
  for (int i = 0; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
  int exitCode = -1;
  ViewerOptions options = parseOptions(args, exitCode);
  if (exitCode >= 0) return exitCode;
  std::shared_ptr<const xab::replay::RecordSet> record;
  if (!options.replayOf.isEmpty()) try {
      record = std::make_shared<const xab::replay::RecordSet>(xab::replay::RecordSet::open(options.replayOf.toStdString()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "xabview: %s\n", e.what());
      return 1;
    }

  QApplication app(argc, argv);
  QApplication::setApplicationName("xabview");
  ViewState state;
  if (options.fold) {
    RowChoice rows;
    rows.fold = *options.fold;
    state.setRowChoice(rows);
  }
  MainWindow window(&state, options);
  InputSession input(&state, {options.input, options.follow, 100, options.rawTime, options.compensate, record, options.budget});
  input.setRemember(!options.scripted());  // tests and pictures leave the recent files alone
  input.addFileActions(&window);  // File > Open, Open Recent
  QObject::connect(&input, &InputSession::loadFailed, &window, &MainWindow::onLoadFailed);
  QObject::connect(&window, &MainWindow::timeBaseChosen, &input, &InputSession::setTimeBase);
  window.watchReader([&input] { return input.loader() ? input.loader()->recordsRead() : 0; });
  if (!options.tab.isEmpty()) window.showTab(options.tab);
  if (options.speedInTraceTime) window.replayBar()->setSpeedInTraceTime(true);
  if (!options.compare.isEmpty()) window.compareWith(options.compare);
  const QScreen* screen = window.screen();
  if (startMaximized(options, screen ? screen->availableGeometry().size() : QSize()))
    window.showMaximized();
  else
    window.show();

  if (options.whyCause || options.criticalPath) state.wantWhy();
  std::unique_ptr<Script> script;
  if (options.scripted()) {
    script = std::make_unique<Script>(&state, &window, &input, options);
    QObject::connect(&input, &InputSession::loadFailed, script.get(), [&] { script->failed(); });
  }
  if (!options.scripted() && (options.goTo || !options.find.isEmpty() || options.whyCause || options.criticalPath))  // once the file is in
    QObject::connect(&state, &ViewState::snapshotChanged, &window, [&state, &window, &options, done = false]() mutable {
      const ViewSnapshot* s = state.snapshot();
      if (done || !s || !s->analysisComplete() || !(s->inputEnded || s->caughtUp) || s->size() == 0) return;
      if (state.whyWanted() && !s->whyReady()) return;
      done = true;
      goAndFind(&window, options);
      chooseWhy(&window, options);
    }, Qt::QueuedConnection);  // after the state has taken the snapshot whole
  input.start();
  int rc = app.exec();
  input.stop();
  if (options.input == "-" || options.input.isEmpty()) {
    window.hide();
    QCoreApplication::processEvents();
    drainStandardInput();
  }
  return rc;
}
