#include "replay_bar.h"

#include <QAction>
#include <QFontMetrics>
#include <QLabel>
#include <QProxyStyle>
#include <QSlider>

#include <cmath>

namespace xab::view {
namespace {

// A click on the groove puts the slider there (the style's default moves a
// page: 10 records of millions).
class JumpingSliderStyle : public QProxyStyle {
 public:
  int styleHint(StyleHint hint, const QStyleOption* option, const QWidget* widget,
                QStyleHintReturn* returnData) const override {
    if (hint == QStyle::SH_Slider_AbsoluteSetButtons) return Qt::LeftButton;
    return QProxyStyle::styleHint(hint, option, widget, returnData);
  }
};

}  // namespace

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
  playAction_ = addButton("Play",
                          "Play the records continuously; again: pause (following a running program: "
                          "pause at the newest record)",
                          Qt::Key_Space, [this] { togglePlay(); });
  // The button is as wide as its wider text, so Play -> Pause moves nothing.
  if (QWidget* b = widgetForAction(playAction_)) {
    QFontMetrics fm(b->font());
    int extra = b->sizeHint().width() - fm.horizontalAdvance("Play");
    b->setFixedWidth(extra + std::max(fm.horizontalAdvance("Play"), fm.horizontalAdvance("Pause")));
  }
  addButton("Stop", "Stop playing and go back to the first record", Qt::Key_Escape, [this] { stop(); });
  addButton("Step back", "One record back", Qt::Key_Left, [this] { pause(); state_->step(-1); });
  addButton("Step", "Exactly one record forward", Qt::Key_Right, [this] { pause(); state_->step(1); });
  addButton("First", "Go to the first record", Qt::Key_Home, [this] { pause(); state_->setPosition(0); });
  struct MenuOnly { const char* text; QKeySequence key; std::function<void()> run; };
  const MenuOnly menuOnly[] = {
      {"100 records back", Qt::Key_PageUp, [this] { pause(); state_->step(-100); }},
      {"100 records forward", Qt::Key_PageDown, [this] { pause(); state_->step(100); }},
      {"Play faster", Qt::Key_BracketRight, [this] { faster(); }},
      {"Play slower", Qt::Key_BracketLeft, [this] { slower(); }},
  };
  for (const auto& m : menuOnly) {
    auto* a = new QAction(m.text, this);
    a->setShortcut(m.key);
    a->setShortcutContext(Qt::ApplicationShortcut);
    connect(a, &QAction::triggered, this, m.run);
    menuOnly_ << a;
  }
  liveAction_ = addButton("Live", "Follow new records as they arrive, the diagram with them", Qt::Key_End, [this] {
    pause();
    state_->setLive(true);
    liveAction_->setChecked(true);  // clicked while live: it stays on (and follows again)
  });
  liveAction_->setCheckable(true);
  liveAction_->setChecked(state_->live());
  addSeparator();
  addWidget(new QLabel(" Speed "));
  speed_ = new QSlider(Qt::Horizontal);
  speed_->setObjectName("speed");
  speed_->setRange(0, 50);  // 10^(v/10) records per second: 1 .. 100000
  speed_->setValue(15);
  speed_->setFixedWidth(90);
  speed_->setToolTip("Records per second while playing ([ slower, ] faster)");
  addWidget(speed_);
  speedValue_ = new QLabel;
  speedValue_->setObjectName("speedValue");
  speedValue_->setToolTip(speed_->toolTip());
  // Wide enough for the widest value: the position slider does not jump.
  speedValue_->setMinimumWidth(QFontMetrics(speedValue_->font()).horizontalAdvance(" 100000 rec/s "));
  addWidget(speedValue_);
  addWidget(new QLabel(" Position "));
  position_ = new QSlider(Qt::Horizontal);
  position_->setObjectName("position");
  position_->setToolTip("Jump to any record (the status bar says which)");
  position_->setMinimumWidth(100);
  auto* jump = new JumpingSliderStyle;
  jump->setParent(position_);
  position_->setStyle(jump);
  addWidget(position_);

  auto showSpeed = [this] { speedValue_->setText(QStringLiteral(" %1 rec/s").arg(std::lround(recordsPerSecond()))); };
  connect(speed_, &QSlider::valueChanged, this, showSpeed);
  showSpeed();
  connect(position_, &QSlider::valueChanged, this, [this](int v) {
    if (syncing_) return;
    pause();
    state_->setPosition(static_cast<std::size_t>(v));
  });
  connect(state_, &ViewState::positionChanged, this, &ReplayBar::sync);
  connect(state_, &ViewState::liveChanged, this, &ReplayBar::sync);
  connect(state_, &ViewState::snapshotChanged, this, &ReplayBar::sync);
  connect(&timer_, &QTimer::timeout, this, &ReplayBar::tick);
  sync();
}

double ReplayBar::recordsPerSecond() const { return std::pow(10.0, speed_->value() / 10.0); }

void ReplayBar::play() {
  if (state_->atEnd()) state_->setPosition(0);
  carry_ = 0;
  clock_.start();
  timer_.start(30);
  sync();
}

void ReplayBar::pause() {
  timer_.stop();
  sync();
}

void ReplayBar::stop() {
  pause();
  state_->setPosition(0);
}

bool ReplayBar::following() const {
  const ViewSnapshot* s = state_->snapshot();
  return state_->live() && s && !s->inputEnded;
}

// Following a running program, Space pauses there (at the newest record);
// otherwise it plays or pauses the replay.
void ReplayBar::togglePlay() {
  if (playing()) pause();
  else if (following()) state_->setPosition(state_->size());
  else play();
}
void ReplayBar::faster() { speed_->setValue(speed_->value() + 5); }
void ReplayBar::slower() { speed_->setValue(speed_->value() - 5); }

void ReplayBar::tick() {
  // Advance by real elapsed time, so a slow repaint does not slow the replay.
  carry_ += recordsPerSecond() * static_cast<double>(clock_.restart()) / 1000.0;
  auto n = static_cast<long>(carry_);
  if (n <= 0) return;
  carry_ -= static_cast<double>(n);
  state_->step(n);
  if (state_->atEnd()) pause();
}

void ReplayBar::sync() {
  syncing_ = true;
  position_->setRange(0, static_cast<int>(state_->size()));
  position_->setValue(static_cast<int>(state_->position()));
  syncing_ = false;
  liveAction_->setChecked(state_->live());
  // The button says what it does: Pause while playing or following a run.
  playAction_->setText(playing() || following() ? "Pause" : "Play");
}

}  // namespace xab::view
