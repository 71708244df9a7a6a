#include "input_session.h"

#include "record_find.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenuBar>
#include <QMenu>
#include <QSettings>

namespace xab::view {
namespace {
QSettings settings() { return QSettings(QSettings::UserScope, "xab", "xabview"); }
constexpr const char* kKey = "recentFiles";
}  // namespace

InputSession::InputSession(ViewState* state, TraceLoader::Options options, QObject* parent)
    : QObject(parent), state_(state), options_(std::move(options)) {
  connect(state_, &ViewState::historyWanted, this, &InputSession::showHistory);
  // The replay's Live (End) while the past is shown: back to the window.
  connect(state_, &ViewState::liveChanged, this, [this](bool live) {
    if (live && historyShown_) backToLive();
  });
}

InputSession::~InputSession() { stop(); }

void InputSession::start() {
  const unsigned generation = ++generation_;
  loader_ = std::make_unique<TraceLoader>(options_);
  connect(loader_.get(), &TraceLoader::snapshotReady, this, [this, generation](SnapshotPtr s) {
    if (generation != generation_) return;
    if (historyShown_) latestLive_ = std::move(s);
    else state_->setSnapshot(std::move(s));
  });
  connect(loader_.get(), &TraceLoader::historyReady, this, [this, generation](SnapshotPtr s) {
    if (generation != generation_ || !historyTime_) return;
    const TimeNs t = *historyTime_;
    historyTime_.reset();
    if (!historyShown_) latestLive_ = state_->snapshotPtr();
    historyShown_ = true;
    state_->setLive(false);
    state_->setSnapshot(s);
    state_->setPosition(positionAtTime(*s, t));
    state_->setViewRange(s->tasksBegin, s->tasksEnd);
    emit historyShown(true);
  });
  connect(loader_.get(), &TraceLoader::loadFailed, this, [this, generation](const QString& why) {
    if (generation == generation_) emit loadFailed(why);
  });
  if (remember_ && !options_.path.isEmpty() && options_.path != "-") remember(options_.path);
  loader_->start();
}

void InputSession::showHistory(TimeNs t) {
  const ViewSnapshot* s = state_->snapshot();
  if (!loader_ || !s || !s->history) return;
  historyTime_ = t;
  if (!loader_->readHistory(t, s->history)) historyTime_.reset();
}

void InputSession::backToLive() {
  historyTime_.reset();
  if (!historyShown_) return;
  historyShown_ = false;
  if (latestLive_) state_->setSnapshot(std::move(latestLive_));
  latestLive_.reset();
  state_->setLive(true);
  state_->fitAll();
  emit historyShown(false);
}

void InputSession::stop() {
  if (loader_) loader_->stop();
}

void InputSession::open(const QString& path) {
  stop();
  ++generation_;
  historyShown_ = false;
  latestLive_.reset();
  historyTime_.reset();
  options_.path = path;
  options_.record = nullptr;  // --replay-of was about the first input
  state_->setSnapshot(nullptr);
  state_->setFilter({});
  state_->select(std::nullopt);
  state_->setLive(true);
  state_->fitAll();
  emit opened(path);
  start();
}

void InputSession::setTimeBase(bool rawTime, bool compensate) {
  options_.rawTime = rawTime;
  options_.compensate = compensate;
  if (loader_) loader_->setTimeBase(rawTime, compensate);
}

QStringList InputSession::recentFiles() { return settings().value(kKey).toStringList(); }

void InputSession::remember(const QString& path) {
  const QString full = QFileInfo(path).absoluteFilePath();
  QStringList list = recentFiles();
  list.removeAll(full);
  list.prepend(full);
  while (list.size() > kRecentMax) list.removeLast();
  settings().setValue(kKey, list);
  fillRecent();
}

void InputSession::addFileActions(QMainWindow* window) {
  QMenu* file = nullptr;
  for (QAction* m : window->menuBar()->actions())
    if (m->text() == "&File") file = m->menu();
  if (!file) file = window->menuBar()->addMenu("&File");
  auto* open = new QAction("Open...", file);
  open->setObjectName("fileOpen");
  open->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
  open->setShortcutContext(Qt::ApplicationShortcut);
  connect(open, &QAction::triggered, this, [this, window] {
    const QString dir = recentFiles().isEmpty() ? QString() : QFileInfo(recentFiles().front()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(window, "Open a trace", dir, "Traces (*.trace *.trf *.picl *);;All files (*)");
    if (!path.isEmpty()) this->open(path);
  });
  window->addAction(open);
  if (options_.path.isEmpty() || options_.path == "-") {
    open->setEnabled(false);
    open->setToolTip("Reading standard input: a program writes it (tee, abmon) and would wait for a reader");
  }
  recent_ = new QMenu("Open &Recent", file);
  recent_->setObjectName("recentFiles");
  QAction* first = file->actions().value(0);
  file->insertAction(first, open);
  file->insertMenu(first, recent_);
  file->insertSeparator(first);
  fillRecent();
}

void InputSession::fillRecent() {
  if (!recent_) return;
  recent_->clear();
  const QStringList list = recentFiles();
  for (int i = 0; i < list.size(); ++i) {
    auto* a = recent_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(list[i]));
    a->setData(list[i]);
    connect(a, &QAction::triggered, this, [this, path = list[i]] { open(path); });
  }
  recent_->setEnabled(!list.isEmpty() && !options_.path.isEmpty() && options_.path != "-");
}

}  // namespace xab::view
