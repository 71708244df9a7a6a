// replay_bar.h -- Play/Pause, Stop, Step, Step back, First, Live, speed
// and position (Beguelin, Xab, §3.3: continuous play or single step, a slider for
// the speed).  As on a tape deck: Pause keeps the place, Stop goes back to
// the first record.  The speed is in records per second or in trace time
// (x1: the records come as fast as the run made them; a click on the
// speed's value or \ switches).
#pragma once

#include "view_state.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QToolBar>

#include <functional>

class QAction;
class QSlider;
class QToolButton;

namespace xab::view {

class ReplayBar : public QToolBar {
  Q_OBJECT
 public:
  explicit ReplayBar(ViewState* state, QWidget* parent = nullptr);
  bool playing() const { return timer_.isActive(); }
  double recordsPerSecond() const;
  // The speed in trace time: seconds of the run per second of play.
  double timeFactor() const;
  bool speedInTraceTime() const { return traceTime_; }
  QString speedText() const;  // as shown beside the slider: "\u00d71", "15 rec/s"

  // Live, and the input still growing: the position follows a running program.
  bool following() const;
  // Actions without a button (PgUp/PgDn, [ and ]): for the Replay menu.
  // An action's shortcut works only while the action is visible somewhere.
  const QList<QAction*>& menuOnlyActions() const { return menuOnly_; }

 public slots:
  void play();
  void pause();
  void stop();  // pause and go back to the first record
  void togglePlay();
  void faster();
  void slower();
  void setSpeedInTraceTime(bool on);

 private slots:
  void tick();
  void sync();

 private:
  QAction* addButton(const QString& text, const QString& tip, const QKeySequence& key, std::function<void()> run);
  void showSpeed();
  // The records up to `until` in trace time, from the position on (at most `most`).
  std::size_t recordsUntil(TimeNs until, std::size_t most) const;

  ViewState* state_;
  QTimer timer_;
  QElapsedTimer clock_;
  double carry_ = 0;
  bool traceTime_ = false;
  int recordsValue_ = 15, timeValue_ = 30;  // each unit keeps its slider value
  double playTime_ = 0;                     // trace time reached, while playing in trace time
  QAction* playAction_ = nullptr;
  QAction* liveAction_ = nullptr;
  QList<QAction*> menuOnly_;
  QSlider* speed_ = nullptr;
  QToolButton* speedValue_ = nullptr;
  QSlider* position_ = nullptr;
  bool syncing_ = false;
};

}  // namespace xab::view
