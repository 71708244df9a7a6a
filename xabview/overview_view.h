// overview_view.h -- the whole run in a strip over the diagram: every
// task's states from the first record to the newest (the diagram's painter
// at full zoom-out, O(pixels) by its mipmaps), the replay position, and
// the diagram's visible time range as a box.  Dragging the box pans the
// diagram; pressing outside it centres the diagram there (then drags).
// A time axis of the whole run is along its top.
#pragma once

#include "diagram_painter.h"
#include "view_state.h"

#include <QWidget>

class QAction;

namespace xab::view {

class OverviewView : public QWidget {
  Q_OBJECT
 public:
  explicit OverviewView(ViewState* state, QWidget* parent = nullptr);
  QSize sizeHint() const override { return {800, 52}; }
  QSize minimumSizeHint() const override { return {200, 40}; }
  // View > Overview: shows or hides the strip.
  QAction* toggleAction() const { return toggle_; }
  // The strip's geometry: the whole run across its plot.
  DiagramLayout layout() const;
  QRectF box() const;  // the diagram's visible range, in this widget

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;

 private:
  void follow();  // the whole run's state: the shared snapshot and position
  void dragTo(double x);

  ViewState* state_;
  ViewState whole_;  // the same snapshot and position, the whole run in view
  QAction* toggle_ = nullptr;
  bool dragging_ = false;
  TimeNs grab_ = 0;  // from the box's left edge to where it was grabbed
};

}  // namespace xab::view
