#include "main_window.h"

#include "activity.h"
#include "details_panel.h"
#include "diagram_view.h"
#include "export_dialog.h"
#include "find_bar.h"
#include "layer_actions.h"
#include "overview_view.h"
#include "network_view.h"
#include "output_panel.h"
#include "panel_tabs.h"
#include "panels.h"
#include "replay_bar.h"
#include "compare_view.h"
#include "control_panel.h"
#include "task_table.h"
#include "task_table_model.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QFrame>
#include <QHBoxLayout>
#include <QPushButton>
#include <QKeyEvent>
#include <QResizeEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QActionGroup>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdio>

namespace xab::view {
namespace {

// The legend's lines: three, one in a window too short for the diagram to
// spare them (800x500).
int legendRowsFor(int windowHeight) { return windowHeight < 640 ? 1 : 3; }
// The diagram's rows with room for a name: fewer in a short window, which
// would grow past 500 pixels to hold 40; there a trace of more gets none
// (names every few rows) and the event log keeps five rows.
int labelledRowsFor(int windowHeight) { return windowHeight < 640 ? 20 : 40; }
bool shortWindow(int windowHeight) { return windowHeight < 640; }

}  // namespace

MainWindow::MainWindow(ViewState* state, const ViewerOptions& options, QWidget* parent)
    : QMainWindow(parent), state_(state), options_(options) {
  setWindowTitle("xabview");
  replay_ = new ReplayBar(state_, this);
  addToolBar(Qt::TopToolBarArea, replay_);

  auto* central = new QWidget;
  auto* box = new QVBoxLayout(central);
  box->setContentsMargins(2, 2, 2, 2);
  banner_ = new QLabel;
  banner_->setObjectName("banner");
  banner_->setStyleSheet("QLabel { background: #ffcdd2; color: #b71c1c; padding: 4px; font-weight: bold; }");
  banner_->setWordWrap(true);
  banner_->hide();
  box->addWidget(banner_);

  auto* split = split_ = new QSplitter(Qt::Vertical);
  tasks_ = new TaskTableModel(state_, this);
  taskTable_ = new TaskTable(tasks_);

  auto* picture = new QWidget;
  auto* pbox = picture_ = new QVBoxLayout(picture);
  pbox->setContentsMargins(0, 0, 0, 0);
  pbox->setSpacing(1);
  diagram_ = new DiagramView(state_);
  diagram_->setLabelledRows(labelledRowsFor(options_.size.height()), shortWindow(options_.size.height()));
  auto* overview = new OverviewView(state_);
  pbox->addWidget(overview);
  pbox->addWidget(diagram_, 1);
  pbox->addWidget(new UtilizationView(state_));
  legend_ = new LegendView;
  legend_->setMaxRows(legendRowsFor(options_.size.height()));
  pbox->addWidget(legend_);
  split->addWidget(picture);

  tabs_ = new PanelTabs;  // the tabs in as many lines as the width needs
  // In the order of panelNames() (--tab's names).
  auto addPanel = [this](QWidget* panel, const QString& text) { tabs_->addTab(panel, text, panelNames().value(tabs_->count())); };
  tabs_->setObjectName("panels");
  log_ = new EventLogPanel(state_);
  hang_ = new HangPanel(state_, options_.hangAfter);
  input_ = new InputPanel(state_);
  addPanel(log_, "Event &log");
  addPanel(hang_, "&Hang && mismatch");
  addPanel(new BarrierPanel(state_), "&Barriers");
  why_ = new WhyPanel(state_);
  addPanel(why_, "&Why slow");
  addPanel(new MessagesPanel(state_), "&Messages");
  addPanel(new NetworkPanel(state_), "Net&work");
  addPanel(input_, "&Input");
  output_ = new OutputPanel(state_);
  addPanel(output_, "&Output");
  auto* details = new DetailsPanel(state_);  // the selection and a measured range
  addPanel(details, "&Details");
  compare_ = new ComparePanel(state_);
  addPanel(compare_, "Com&pare");
  connect(diagram_, &DiagramView::rangeMeasured, this, [this, details](TimeNs from, TimeNs to) {
    details->setRange(from, to);
    tabs_->setCurrentWidget(details);
  });
  // Under the diagram, side by side: the tasks in words, and the panels.
  auto* bottom = new QSplitter(Qt::Horizontal);
  bottom->setObjectName("bottomSplit");
  bottom->addWidget(taskTable_);
  bottom->addWidget(tabs_);
  bottom->setStretchFactor(0, 1);
  bottom->setStretchFactor(1, 1);
  // A narrow window: a little more to the table, for Doing now's start and
  // end (the panels' tabs take two lines either way).
  const int tableWidth = options_.size.width() * (options_.size.width() < 1000 ? 23 : 25) / 50;
  bottom->setSizes({tableWidth, options_.size.width() - tableWidth});
  split->addWidget(bottom);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({450, 300});
  box->addWidget(split, 1);
  setCentralWidget(central);

  status_ = new QLabel;
  status_->setObjectName("status");
  // As wide as the status bar leaves it, not as its text: updateStatus
  // fits the text to it.
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  statusBar()->addWidget(status_, 1);
  // The hang banner is in the status bar, which is as high as it from the
  // start: it comes and goes without moving anything.
  statusBar()->insertWidget(0, buildHangBanner(), 3);
  statusBar()->setMinimumHeight(hangBanner_->sizeHint().height() + 4);
  buildActions();
  find_ = new FindBar(state_, this);  // Ctrl+F, F3, Ctrl+G: shown when asked for
  addToolBarBreak();
  addToolBar(Qt::TopToolBarArea, find_);
  menuBar()->addMenu("&Go")->addActions(find_->findActions());
  for (QAction* m : menuBar()->actions())
    if (m->text() == "&View") {  // View > Show: what the picture holds
      m->menu()->addSection("Show");
      m->menu()->addAction(overview->toggleAction());
      m->menu()->addActions(diagramLayerActions(diagram_));
      m->menu()->addSection("Rows");
      m->menu()->addActions(diagram_->rowActions());
    }
  if (!options_.control.isEmpty()) {  // stepping the live program
    control_ = new ControlPanel(options_.control, this);
    addDockWidget(Qt::RightDockWidgetArea, control_);
    menuBar()->addMenu("&Control")->addActions(control_->controlActions());
  }

  connect(state_, &ViewState::snapshotChanged, this, &MainWindow::onSnapshot);
  connect(state_, &ViewState::positionChanged, this, &MainWindow::updateStatus);
  // A hang is announced, not forced on the user: the tab they chose stays.
  connect(hang_, &HangPanel::alarmChanged, this, &MainWindow::showHangAlarm);
  // While it is up, the banner says what the newest diagnosis says (the
  // panel's words, its counts), not what the first one did.
  connect(state_, &ViewState::snapshotChanged, this, [this] {
    if (hang_->alarmed()) showHangAlarm(true);
  });
  qApp->installEventFilter(this);
  connect(taskTable_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
    EventFilter f = state_->filter();  // narrows to the task, keeps Call and Tag
    f.tasks.clear();
    f.tasks.insert(static_cast<TaskIndex>(i.row()));
    state_->setFilter(f);
    tabs_->setCurrentWidget(log_);
  });
  auto* clock = new QTimer(this);  // "blocked ... for 12.4 s" keeps counting in live mode
  connect(clock, &QTimer::timeout, this, [this] {
    if (state_->live()) {
      tasks_->refresh();
      state_->followPresent();
    }
    if (hang_->alarmed()) showHangAlarm(true);  // "no new record for 12 s"
  });
  clock->start(1000);
  arrival_ = new ArrivalMeter({}, this);
  watchdog_ = new StallWatchdog(20, this);
  frameLog_ = std::make_unique<FrameLog>(options_.frameLog);
  if (!options_.frameLog.isEmpty() && !frameLog_->on())
    std::fprintf(stderr, "xabview: cannot write %s\n", qPrintable(options_.frameLog));
  connect(diagram_, &DiagramView::painted, this, &MainWindow::logFrame);
  auto* statusClock = new QTimer(this);  // the arrival rate and the lag move without snapshots too
  connect(statusClock, &QTimer::timeout, this, &MainWindow::updateStatus);
  statusClock->start(250);
  resize(options_.size);
  updateStatus();
}

// The replay's keys are bare keys (Home, End, arrows, Space, [ ]) bound to
// the whole application; a drop-down or a spin box with the focus uses the
// same keys itself.  Claiming the shortcut for it (ShortcutOverride) hands
// such a widget its keys; everywhere else they drive the replay.
bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::ShortcutOverride && watched == QApplication::focusWidget() &&
      (qobject_cast<QComboBox*>(watched) || qobject_cast<QAbstractSpinBox*>(watched))) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (!(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier))) {
      event->accept();
      return true;
    }
  }
  return QMainWindow::eventFilter(watched, event);
}

// At the first records, the task table (and the panels beside it) get the
// height of all the table's rows, between 40% and half of the window's
// (the rest scrolls): 17 tasks are all in sight at the default size.
void MainWindow::fitTaskTable() {
  const ViewSnapshot* s = state_->snapshot();
  if (tableFitted_ || !s || s->trace->taskCount() == 0 || !split_->isVisible()) return;
  tableFitted_ = true;
  const int rows = static_cast<int>(s->trace->taskCount());
  const int want = taskTable_->horizontalHeader()->height() + rows * taskTable_->verticalHeader()->defaultSectionSize() +
                   2 * taskTable_->frameWidth() + 2;
  const int total = split_->height() - split_->handleWidth();
  int table = std::clamp(want, total * 2 / 5, total / 2);  // the panels beside it need room too
  // A short window (800x500): the picture at its smallest (a readable row
  // per task) and the rest to the table and the panels, so that the event
  // log shows more than two rows.
  fittedShort_ = height() < 640;
  if (fittedShort_) table = std::max(table, total - split_->widget(0)->minimumSizeHint().height());
  split_->setSizes({total - table, table});
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  legend_->setMaxRows(legendRowsFor(height()));
  diagram_->setLabelledRows(labelledRowsFor(height()), shortWindow(height()));
  // Made short or tall after the first fit: fitted again, once laid out.
  if (tableFitted_ && (height() < 640) != fittedShort_)
    QTimer::singleShot(0, this, [this] {
      tableFitted_ = false;
      fitTaskTable();
    });
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  QTimer::singleShot(0, this, [this] { fitTaskTable(); });
}

void MainWindow::compareWith(const QString& file) {
  delete compareView_;
  compareView_ = new CompareView(state_, {file, false, 100, options_.rawTime, options_.compensate, nullptr});
  picture_->insertWidget(picture_->indexOf(diagram_) + 1, compareView_, 1);
  compare_->setSecond(compareView_->second());
}

void MainWindow::buildActions() {
  struct Item { const char* menu; const char* text; QKeySequence key; std::function<void()> run; };
  const Item items[] = {
      {"&File", "Save diagram as PNG or SVG...", QKeySequence(Qt::CTRL | Qt::Key_S), [this] { saveDiagramDialog(); }},
      {"&File", "Export (PICL, JSON, OTF2, sound)...", QKeySequence(Qt::CTRL | Qt::Key_E), [this] { exportDialog(); }},
      {"&File", "Compare with another run...", QKeySequence(), [this] {
         QString f = QFileDialog::getOpenFileName(this, "Compare with another run");
         if (!f.isEmpty()) compareWith(f);
       }},
      {"&File", "Quit", QKeySequence(Qt::CTRL | Qt::Key_Q), [this] { close(); }},
      {"&View", "Zoom in", QKeySequence(Qt::Key_Plus), [this] { diagram_->zoomIn(); }},
      {nullptr, "Zoom in", QKeySequence(Qt::Key_Equal), [this] { diagram_->zoomIn(); }},
      {"&View", "Zoom out", QKeySequence(Qt::Key_Minus), [this] { diagram_->zoomOut(); }},
      {"&View", "Fit the whole trace", QKeySequence(Qt::Key_0), [this] { state_->fitAll(); }},
      {"&View", "Pan left", QKeySequence(Qt::SHIFT | Qt::Key_Left), [this] { diagram_->panLeft(); }},
      {"&View", "Pan right", QKeySequence(Qt::SHIFT | Qt::Key_Right), [this] { diagram_->panRight(); }},
      {"&View", "Filter the event log", QKeySequence(Qt::CTRL | Qt::Key_L),
       [this] { tabs_->setCurrentWidget(log_); log_->focusFilter(); }},
  };
  for (const auto& it : items) {
    auto* a = new QAction(it.text, this);
    a->setShortcut(it.key);
    a->setShortcutContext(Qt::ApplicationShortcut);
    connect(a, &QAction::triggered, this, it.run);
    addAction(a);
    if (!it.menu) continue;
    QMenu* menu = nullptr;
    for (QAction* m : menuBar()->actions())
      if (m->text() == it.menu) menu = m->menu();
    if (!menu) menu = menuBar()->addMenu(it.menu);
    menu->addAction(a);
  }
  for (QAction* m : menuBar()->actions())
    if (m->text() == "&View") buildTimeActions(m->menu());
  QMenu* replay = menuBar()->addMenu("&Replay");
  for (QAction* a : replay_->actions())
    if (!a->text().isEmpty()) replay->addAction(a);
  replay->addSeparator();
  replay->addActions(replay_->menuOnlyActions());
}

// View > Time: the time base of everything shown (docs/global-time.md), the
// command line's --raw-time and --compensate as a menu.  A choice re-times
// the trace read so far; the position and the visible range stay.
void MainWindow::buildTimeActions(QMenu* view) {
  view->addSection("Time");
  auto* base = new QActionGroup(this);
  auto* raw = base->addAction("Task clocks (as recorded)");
  raw->setObjectName("timeRaw");
  auto* global = base->addAction("Global time (abmon's clock)");
  global->setObjectName("timeGlobal");
  auto* compensated = new QAction("Compensated (xab's cost taken out)", this);
  compensated->setObjectName("timeCompensated");
  for (QAction* a : {raw, global, compensated}) a->setCheckable(true);
  raw->setChecked(options_.rawTime);
  global->setChecked(!options_.rawTime);
  compensated->setChecked(options_.compensate);
  view->addActions({raw, global, compensated});
  auto chosen = [this, raw, compensated] { emit timeBaseChosen(raw->isChecked(), compensated->isChecked()); };
  connect(base, &QActionGroup::triggered, this, chosen);
  connect(compensated, &QAction::triggered, this, chosen);
}

void MainWindow::showTab(const QString& name) {
  int i = static_cast<int>(panelNames().indexOf(name));
  if (i >= 0) tabs_->setCurrentIndex(i);
}

QFrame* MainWindow::buildHangBanner() {
  hangBanner_ = new QFrame;
  hangBanner_->setObjectName("hangBanner");
  hangBanner_->setStyleSheet("QFrame#hangBanner { background: #ffe0b2; } QLabel { color: #e65100; font-weight: bold; }");
  auto* row = new QHBoxLayout(hangBanner_);
  row->setContentsMargins(4, 2, 4, 2);
  hangBannerText_ = new QLabel;
  hangBannerText_->setWordWrap(false);
  row->addWidget(hangBannerText_, 1);
  auto* show = new QPushButton("Show");
  show->setObjectName("hangBannerShow");
  show->setToolTip("Bring the Hang && mismatch panel to the front");
  connect(show, &QPushButton::clicked, this, [this] { tabs_->setCurrentWidget(hang_); });
  row->addWidget(show);
  hangBanner_->hide();
  return hangBanner_;
}

void MainWindow::showHangAlarm(bool on) {
  const ViewSnapshot* s = state_->snapshot();
  if (!on || !s) {
    hangBanner_->hide();
    return;
  }
  QString what;
  if (s->hang().hung) {
    QString tasks = QString::fromStdString(s->hangText().headline);
    what = s->inputEnded ? QStringLiteral("Hang: %1 at the end of the input.").arg(tasks)
                         : QStringLiteral("Hang: %1, no new record for %2 s.").arg(tasks).arg(state_->msSinceProgress() / 1000);
  } else {
    what = QStringLiteral("Pack/unpack mismatch: %1 receive%2.")
               .arg(s->mismatches().mismatches.size()).arg(s->mismatches().mismatches.size() == 1 ? "" : "s");
  }
  hangBannerText_->setText(what);
  hangBanner_->show();
}

bool MainWindow::hangBannerShown() const { return !hangBanner_->isHidden(); }
QString MainWindow::hangBannerText() const { return hangBannerText_->text(); }

QString MainWindow::currentTab() const { return panelNames().value(tabs_->currentIndex()); }

bool MainWindow::saveDiagram(const QString& file, QString* error) const { return diagram_->save(file, error); }

void MainWindow::saveDiagramDialog() {
  const ViewSnapshot* s = state_->snapshot();
  QString file = QFileDialog::getSaveFileName(this, "Save diagram", suggestedName(s ? s->source : "", ".png"),
                                              "Images (*.png *.svg)");
  if (!file.isEmpty()) saveDiagramTo(file);
}

bool MainWindow::saveDiagramTo(const QString& file) {
  QString error;
  if (!saveDiagram(file, &error)) {
    QMessageBox::warning(this, "xabview", error);
    return false;
  }
  statusBar()->showMessage("Saved the diagram to " + file, 10000);
  return true;
}

void MainWindow::exportDialog() {
  const ViewSnapshot* s = state_->snapshot();
  QString file;
  SoundOptions sound;
  if (s && askExport(this, *s, &file, &sound)) exportTo(file, sound);
}

bool MainWindow::exportTo(const QString& file, const SoundOptions& sound) {
  const ViewSnapshot* s = state_->snapshot();
  if (!s) return false;
  QString why = exportTrace(*s, file, sound);
  if (!why.isEmpty()) {
    QMessageBox::warning(this, "xabview", why);
    return false;
  }
  statusBar()->showMessage(QStringLiteral("Exported %1 records to %2").arg(s->trace->eventCount()).arg(file), 10000);
  return true;
}

void MainWindow::onLoadFailed(const QString& message) {
  failure_ = message;
  std::fprintf(stderr, "xabview: %s\n", qPrintable(message));
  input_->setFailure(message);
  banner_->setText("Cannot read the input: " + message);
  banner_->show();
}

QString MainWindow::noRecordsText(const ViewSnapshot& s) {
  QString text = QString::fromStdString(s.source) + ": no records read";
  if (!s.fatal.empty()) return text + " (" + QString::fromStdString(s.fatal) + ")";
  if (s.errorCount == 0 && s.trace && s.trace->header().present) return text + " (a header only: abmon watched no task)";
  if (s.errorCount == 0 && s.bytes == 0) return text + " (the input is empty)";
  if (s.errorCount == 0) return text + QStringLiteral(" (%1 bytes, not one complete line): is it an xab trace?").arg(s.bytes);
  const auto& first = s.errors.front();
  return text + QStringLiteral(" (%1 malformed line%2, first: line %3: %4): is it an xab trace?")
                    .arg(s.errorCount).arg(s.errorCount == 1 ? "" : "s").arg(first.line)
                    .arg(QString::fromStdString(first.reason));
}

void MainWindow::reportNewErrors() {
  const ViewSnapshot* s = state_->snapshot();
  // Errors are kept in order, so the new ones are at the end.
  for (; printedErrors_ < s->errors.size(); ++printedErrors_) {
    const auto& e = s->errors[printedErrors_];
    std::fprintf(stderr, "xabview: %s:%llu: %s\n", s->source.c_str(), static_cast<unsigned long long>(e.line),
                 e.reason.c_str());
  }
  if (s->inputEnded && s->size() == 0) {  // nothing will be shown: not a quiet empty window
    banner_->setText("Nothing to show: " + noRecordsText(*s));
    banner_->show();
    return;
  }
  if (s->errorCount == 0 && s->fatal.empty()) {
    if (failure_.isEmpty()) banner_->hide();
    return;
  }
  QString text;
  if (!s->fatal.empty()) text = "Stopped reading the input: " + QString::fromStdString(s->fatal) + ". ";
  if (s->errorCount > 0) {
    const auto& first = s->errors.front();
    text += QStringLiteral("%1 malformed line%2 skipped (first: line %3: %4); the rest is shown. See the Input tab.")
                .arg(s->errorCount).arg(s->errorCount == 1 ? "" : "s").arg(first.line)
                .arg(QString::fromStdString(first.reason));
  }
  banner_->setText(text);
  banner_->show();
}

void MainWindow::onSnapshot() {
  if (!state_->snapshot()) {  // another input opened (File > Open): nothing of it yet
    printedErrors_ = 0;
    failure_.clear();
    banner_->hide();
    return updateStatus();
  }
  reportNewErrors();
  // The CPU column only for a trace with samples: empty, it took Doing
  // now's room (at 800x500, all but "bloc…").
  taskTable_->setSampled(state_->snapshot()->analysis && state_->snapshot()->analysis->model.samples.anyTask);
  fitTaskTable();
  updateStatus();
  const std::string& source = state_->snapshot()->source;
  setWindowTitle((source == "stdin" ? QStringLiteral("standard input")
                                    : QFileInfo(QString::fromStdString(source)).fileName()) +
                 QStringLiteral(" — xabview"));
}

void MainWindow::watchReader(ArrivalMeter::Counter recordsRead) { arrival_->setCounter(std::move(recordsRead)); }

void MainWindow::logFrame(double paintMs) {
  const ViewSnapshot* s = state_->snapshot();
  if (!frameLog_->on() || !s) return;
  const std::uint64_t read = arrival_->recordsRead();
  FrameLog::Frame f;
  f.paintMs = paintMs;
  f.shown = s->runRecords();
  f.read = std::max(read, f.shown);
  f.ageMs = newestRecordAgeMs(*s);
  f.lagSeconds = lagOf(*s, read).seconds;
  f.rate = arrival_->rate();
  f.stallMs = watchdog_->takeRecentWorst();
  f.worstStallMs = watchdog_->worstMs();
  f.snapshotMs = s->buildMs;
  f.analysed = s->analysis ? s->analysis->records : 0;
  frameLog_->write(f);
}

namespace {

// The status text's parts (" | " between them) that fit in `width`: the
// least needed go first (repaint time, lag, arrival rate, ...); a part is
// whole or absent, and the position, the trace time and the mode stay.
QString fitStatusText(const QString& full, const QFontMetrics& fm, int width) {
  QStringList parts = full.split(QStringLiteral(" | "));
  static const char* const dropFirst[] = {"repaint ", "behind ", "arriving ", "analysing ", " tasks", " bad lines",
                                          " events", "task clocks", "global time", "trace time "};
  for (const char* what : dropFirst) {
    if (fm.horizontalAdvance(parts.join(QStringLiteral(" | "))) <= width) break;
    for (qsizetype i = parts.size() - 1; i >= 0 && parts.size() > 1; --i)
      if (parts[i].contains(QLatin1String(what)) && !parts[i].startsWith(QLatin1String("record "))) {
        parts.removeAt(i);
        break;
      }
  }
  return fm.elidedText(parts.join(QStringLiteral(" | ")), Qt::ElideRight, width);
}

}  // namespace

// What fits of the status text, the whole of it in the tool tip.
void MainWindow::updateStatus() {
  const QString full = statusText();
  status_->setToolTip(full);
  status_->setText(status_->width() > 0 ? fitStatusText(full, status_->fontMetrics(), status_->width() - 4) : full);
}

QString MainWindow::statusText() const {
  const ViewSnapshot* s = state_->snapshot();
  if (!s) return failure_.isEmpty() ? "Waiting for records..." : "No input";
  if (s->inputEnded && s->size() == 0)
    return s->errorCount ? QStringLiteral("No records | %1 bad lines").arg(s->errorCount) : QStringLiteral("No records");
  // "end of input" only when nothing more will come; a followed file that is
  // caught up with its writer is live, waiting for more.
  QString mode = state_->live() ? (s->inputEnded ? "end of input" : s->caughtUp ? "live, waiting for records" : "live")
                                : (replay_->playing() ? "playing" : "paused");
  if (s->fromHistory)
    mode = QStringLiteral("the past: records %1 to %2 of the run, read again from the input (Live, End: back to the newest) | %3")
               .arg(s->trace->cut().position)
               .arg(s->trace->cut().position + s->size())
               .arg(replay_->playing() ? "playing" : "paused");
  // Messages, barriers and the hang come from an analysis of their own: say
  // while it has not caught up (their lines, bands and words lag).
  if (!s->analysisComplete())
    mode += QStringLiteral(" | analysing messages, barriers and hang: %1 of %2 records done")
                .arg(s->analysis ? s->analysis->records : 0)
                .arg(s->trace->eventCount());
  // A memory budget's window: the records are the newest ones, the time
  // before them a summary.
  if (s->history && !s->fromHistory)
    mode += QStringLiteral(" | window: the newest %1 records, %2 before them summarised (--budget)")
                .arg(s->size())
                .arg(s->history->records());
  // Behind: records the reader holds that the picture does not show yet,
  // and how long ago the picture's records were taken.
  const Lag lag = lagOf(*s, arrival_->recordsRead());
  return QStringLiteral("%1 events | record %2 of %1 | trace time %3 s | %11 | arriving %4 records/s | behind %5 records, %6 s | %7 | %8 tasks%9 | repaint %10 ms")
      .arg(s->size()).arg(state_->position())
      .arg(QString::fromStdString(formatSeconds(state_->cursorTime(), s->firstTime())))
      .arg(arrival_->rate(), 0, 'f', 0).arg(lag.records).arg(lag.seconds, 0, 'f', 1).arg(mode).arg(s->trace->taskCount())
      .arg(s->errorCount ? QStringLiteral(" | %1 bad lines").arg(s->errorCount) : QString())
      .arg(diagram_->lastPaintMs(), 0, 'f', 1)
      .arg(QString::fromStdString(s->timeNote.empty() ? std::string("task clocks") : s->timeNote));
}

}  // namespace xab::view
