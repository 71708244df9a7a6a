#include "replay_bar.h"

#include <QAction>
#include <QFontMetrics>
#include <QLabel>
#include <QProxyStyle>
#include <QSlider>
#include <QToolButton>

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
      {"Speed in trace time", Qt::Key_Backslash, [this] { setSpeedInTraceTime(!traceTime_); }},
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
  speed_->setRange(0, 50);  // 10^(v/10) records per second: 1 .. 100000; or 10^((v-30)/10): x0.001 .. x100
  speed_->setValue(recordsValue_);
  speed_->setFixedWidth(90);
  addWidget(speed_);
  // The value, and the switch between the units: a click (or \\).
  speedValue_ = new QToolButton;
  speedValue_->setObjectName("speedValue");
  speedValue_->setAutoRaise(true);
  speedValue_->setCheckable(true);
  connect(speedValue_, &QToolButton::clicked, this, [this](bool on) { setSpeedInTraceTime(on); });
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

  connect(speed_, &QSlider::valueChanged, this, [this](int v) {
    (traceTime_ ? timeValue_ : recordsValue_) = v;
    showSpeed();
  });
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

double ReplayBar::recordsPerSecond() const { return std::pow(10.0, recordsValue_ / 10.0); }
double ReplayBar::timeFactor() const { return std::pow(10.0, (timeValue_ - 30) / 10.0); }

void ReplayBar::showSpeed() {
  QString factor = QString::number(timeFactor(), 'g', timeFactor() < 1 ? 1 : 3);
  speedValue_->setText(traceTime_ ? QStringLiteral(" \u00d7%1 ").arg(factor)
                                  : QStringLiteral(" %1 rec/s").arg(std::lround(recordsPerSecond())));
  const QString tip = traceTime_ ? QStringLiteral("Play in trace time: \u00d71 replays the run as fast as it went, "
                                                   "\u00d710 ten times faster ([ slower, ] faster). "
                                                   "Click (or \\) for records per second.")
                                 : QStringLiteral("Records per second while playing ([ slower, ] faster). "
                                                  "Click (or \\) for trace time (\u00d71: as fast as the run went).");
  speed_->setToolTip(tip);
  speedValue_->setToolTip(tip);
  speedValue_->setChecked(traceTime_);
}

QString ReplayBar::speedText() const { return speedValue_->text().trimmed(); }

void ReplayBar::setSpeedInTraceTime(bool on) {
  traceTime_ = on;
  speed_->setValue(on ? timeValue_ : recordsValue_);
  if (playing()) play();  // the new unit from here
  showSpeed();
}

std::size_t ReplayBar::recordsUntil(TimeNs until, std::size_t most) const {
  const ViewSnapshot* s = state_->snapshot();
  if (!s) return 0;
  std::size_t n = 0;
  for (std::size_t p = state_->position(); p < s->size() && n < most && s->event(s->order[p]).time <= until; ++p) ++n;
  return n;
}

void ReplayBar::play() {
  if (state_->atEnd()) state_->setPosition(0);
  carry_ = 0;
  const ViewSnapshot* s = state_->snapshot();
  // Trace time starts at the record shown last (or the first to come).
  playTime_ = static_cast<double>(!s || s->size() == 0 ? 0
                                  : s->event(s->order[state_->position() > 0 ? state_->position() - 1 : 0]).time);
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
void ReplayBar::faster() { speed_->setValue(speed_->value() + 5); }  // x3.16 in either unit
void ReplayBar::slower() { speed_->setValue(speed_->value() - 5); }

void ReplayBar::tick() {
  // Advance by real elapsed time, so a slow repaint does not slow the replay.
  const auto elapsedMs = static_cast<double>(clock_.restart());
  long n = 0;
  if (traceTime_) {
    // Every record up to the trace time reached (at most a million a tick:
    // the window stays responsive on a dense stretch).
    playTime_ += timeFactor() * elapsedMs * 1e6;
    n = static_cast<long>(recordsUntil(static_cast<TimeNs>(playTime_), 1'000'000));
  } else {
    carry_ += recordsPerSecond() * elapsedMs / 1000.0;
    n = static_cast<long>(carry_);
    carry_ -= static_cast<double>(std::max(n, 0L));
  }
  if (n > 0) state_->step(n);
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
