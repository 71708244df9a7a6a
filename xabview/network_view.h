// network_view.h -- the Network tab: XPVM's network view (network_model.h).
// Hosts as boxes around a circle, coloured by what most of their tasks do
// at the replay position, with a load bar (load over CPUs); lines between
// hosts as wide as their bandwidth share of the busiest link.  Clicking a
// host lists its tasks.
#pragma once

#include "network_model.h"

#include <QWidget>

#include <optional>

class QLabel;

namespace xab::view {

class NetworkView : public QWidget {
  Q_OBJECT
 public:
  explicit NetworkView(ViewState* state, QWidget* parent = nullptr);
  const NetworkPicture& picture() const { return picture_; }
  std::optional<std::size_t> hostAt(QPointF p) const;  // the box under a point
  QRectF boxOf(std::size_t host) const;
  QSize sizeHint() const override { return {400, 260}; }
 signals:
  void hostChosen(std::size_t host);
 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  void showEvent(QShowEvent* e) override;
 private:
  void refresh();
  ViewState* state_;
  NetworkPicture picture_;
  bool stale_ = true;
};

class NetworkPanel : public QWidget {
  Q_OBJECT
 public:
  explicit NetworkPanel(ViewState* state, QWidget* parent = nullptr);
  NetworkView* view() const { return view_; }
  QString tasksText() const;  // the chosen host's tasks, as shown
  void chooseHost(std::size_t host);
 private:
  ViewState* state_;
  NetworkView* view_;
  QLabel* tasks_;
  std::optional<std::size_t> chosen_;
};

}  // namespace xab::view
