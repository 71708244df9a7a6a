// replay_bar.h -- Play, Stop, Step, Step back, Live, speed and position
// (paper §3.3: continuous play or single step, a slider for the speed).
#pragma once

#include "view_state.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QToolBar>

#include <functional>

class QAction;
class QLabel;
class QSlider;

namespace xab::view {

class ReplayBar : public QToolBar {
  Q_OBJECT
 public:
  explicit ReplayBar(ViewState* state, QWidget* parent = nullptr);
  bool playing() const { return timer_.isActive(); }
  double recordsPerSecond() const;

 public slots:
  void play();
  void stop();
  void togglePlay();
  void faster();
  void slower();

 private slots:
  void tick();
  void sync();

 private:
  QAction* addButton(const QString& text, const QString& tip, const QKeySequence& key, std::function<void()> run);

  ViewState* state_;
  QTimer timer_;
  QElapsedTimer clock_;
  double carry_ = 0;
  QAction* playAction_ = nullptr;
  QAction* liveAction_ = nullptr;
  QSlider* speed_ = nullptr;
  QSlider* position_ = nullptr;
  QLabel* where_ = nullptr;
  bool syncing_ = false;
};

}  // namespace xab::view
