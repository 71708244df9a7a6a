#include "replay_bar.h"

#include <QAction>
#include <QLabel>
#include <QSlider>

#include <cmath>

namespace xab::view {

QAction* ReplayBar::addButton(const QString& text, const QString& tip, const QKeySequence& key,
                              std::function<void()> run) {
  QAction* a = addAction(text);
  a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString()));
  a->setShortcut(key);
  a->setShortcutContext(Qt::ApplicationShortcut);
  connect(a, &QAction::triggered, this, std::move(run));
  return a;
}

ReplayBar::ReplayBar(ViewState* state, QWidget* parent) : QToolBar("Replay", parent), state_(state) {
  setObjectName("replay");
  setMovable(false);
  playAction_ = addButton("Play", "Play the records continuously", Qt::Key_Space, [this] { togglePlay(); });
  addButton("Stop", "Stop playing", Qt::Key_Escape, [this] { stop(); });
  addButton("Step back", "One record back", Qt::Key_Left, [this] { stop(); state_->step(-1); });
  addButton("Step", "Exactly one record forward", Qt::Key_Right, [this] { stop(); state_->step(1); });
  addButton("First", "Go to the first record", Qt::Key_Home, [this] { stop(); state_->setPosition(0); });
  QAction* back100 = new QAction(this);
  back100->setShortcut(Qt::Key_PageUp);
  connect(back100, &QAction::triggered, this, [this] { stop(); state_->step(-100); });
  QAction* fwd100 = new QAction(this);
  fwd100->setShortcut(Qt::Key_PageDown);
  connect(fwd100, &QAction::triggered, this, [this] { stop(); state_->step(100); });
  QAction* faster = new QAction(this);
  faster->setShortcut(Qt::Key_BracketRight);
  connect(faster, &QAction::triggered, this, &ReplayBar::faster);
  QAction* slower = new QAction(this);
  slower->setShortcut(Qt::Key_BracketLeft);
  connect(slower, &QAction::triggered, this, &ReplayBar::slower);
  for (QAction* a : {back100, fwd100, faster, slower}) {
    a->setShortcutContext(Qt::ApplicationShortcut);
    addAction(a);
    a->setVisible(false);
  }
  liveAction_ = addButton("Live", "Follow new records as they arrive", Qt::Key_End, [this] {
    stop();
    state_->setLive(true);
  });
  liveAction_->setCheckable(true);
  liveAction_->setChecked(state_->live());
  addSeparator();
  addWidget(new QLabel(" Speed "));
  speed_ = new QSlider(Qt::Horizontal);
  speed_->setObjectName("speed");
  speed_->setRange(0, 50);  // 10^(v/10) records per second: 1 .. 100000
  speed_->setValue(15);
  speed_->setFixedWidth(120);
  speed_->setToolTip("Records per second while playing ([ and ])");
  addWidget(speed_);
  addWidget(new QLabel(" Position "));
  position_ = new QSlider(Qt::Horizontal);
  position_->setObjectName("position");
  position_->setToolTip("Jump to any record");
  position_->setMinimumWidth(300);
  addWidget(position_);
  where_ = new QLabel;
  where_->setMinimumWidth(170);
  addWidget(where_);

  connect(position_, &QSlider::valueChanged, this, [this](int v) {
    if (syncing_) return;
    stop();
    state_->setPosition(static_cast<std::size_t>(v));
  });
  connect(state_, &ViewState::positionChanged, this, &ReplayBar::sync);
  connect(state_, &ViewState::liveChanged, this, &ReplayBar::sync);
  connect(&timer_, &QTimer::timeout, this, &ReplayBar::tick);
  sync();
}

double ReplayBar::recordsPerSecond() const { return std::pow(10.0, speed_->value() / 10.0); }

void ReplayBar::play() {
  if (state_->atEnd()) state_->setPosition(0);
  carry_ = 0;
  clock_.start();
  timer_.start(30);
  playAction_->setText("Pause");
}

void ReplayBar::stop() {
  timer_.stop();
  playAction_->setText("Play");
}

void ReplayBar::togglePlay() { playing() ? stop() : play(); }
void ReplayBar::faster() { speed_->setValue(speed_->value() + 5); }
void ReplayBar::slower() { speed_->setValue(speed_->value() - 5); }

void ReplayBar::tick() {
  // Advance by real elapsed time, so a slow repaint does not slow the replay.
  carry_ += recordsPerSecond() * static_cast<double>(clock_.restart()) / 1000.0;
  auto n = static_cast<long>(carry_);
  if (n <= 0) return;
  carry_ -= static_cast<double>(n);
  state_->step(n);
  if (state_->atEnd()) stop();
}

void ReplayBar::sync() {
  syncing_ = true;
  position_->setRange(0, static_cast<int>(state_->size()));
  position_->setValue(static_cast<int>(state_->position()));
  syncing_ = false;
  liveAction_->setChecked(state_->live());
  where_->setText(QStringLiteral(" record %1 of %2%3")
                      .arg(state_->position())
                      .arg(state_->size())
                      .arg(state_->live() ? " (live)" : ""));
}

}  // namespace xab::view
