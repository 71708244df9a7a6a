// diagram_view.h -- the space-time diagram widget and the utilization strip.
//
// Painting is diagram_painter's; this adds the mouse and the keys: wheel
// zooms around the pointer, dragging pans, hovering tells what is under the
// pointer, a click selects the record (everywhere, through ViewState).
#pragma once

#include "diagram_hit.h"
#include "diagram_painter.h"

#include <QList>
#include <QWidget>

#include <optional>

namespace xab::view {

class DiagramView : public QWidget {
  Q_OBJECT
 public:
  explicit DiagramView(ViewState* state, QWidget* parent = nullptr);
  double lastPaintMs() const { return lastPaintMs_; }
  // Saves the diagram alone, at the widget's size: .svg (if built with Qt
  // SVG) or any image format Qt writes (.png).
  bool save(const QString& file, QString* error) const;
  // What the diagram draws besides the bars (View > Show: layer_actions.h).
  const DiagramOptions& layers() const { return layers_; }
  void setLayers(const DiagramOptions& layers);
  // View > Rows: fold, filter, show every task (owned by the view).
  const QList<QAction*>& rowActions() const { return rowActions_; }
  // How many rows get room for a readable name (40; fewer in a short
  // window, which must not grow past its size to hold them).  allOrNone:
  // a trace of more rows than that gets none (the least height, a name
  // every few rows), so that a short window's event log keeps its rows.
  void setLabelledRows(int rows, bool allOrNone = false);

 signals:
  void painted(double ms);  // after each repaint, its time
  // Shift+drag across the diagram: a time range to measure (the Details tab).
  void rangeMeasured(xab::TimeNs from, xab::TimeNs to);

 public slots:
  void zoomIn();
  void zoomOut();
  void panLeft();
  void panRight();

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void mouseDoubleClickEvent(QMouseEvent*) override;  // on a folded row's name: unfold it
  void contextMenuEvent(QContextMenuEvent*) override;  // the row's actions and View > Rows
  bool event(QEvent*) override;

 private:
  void fitMinimumHeight();  // room for a readable name on up to labelledRows_ rows
  QString describe(const DiagramHit& hit) const;
  QString describeName(TaskIndex task) const;
  std::optional<TaskIndex> rowAt(double y) const;  // the row (not task) at y

  ViewState* state_;
  DiagramOptions layers_;
  QList<QAction*> rowActions_;  // View > Rows (row_actions.h), in the context menu too
  double lastPaintMs_ = 0;
  QPoint dragFrom_;
  bool dragging_ = false;
  bool dragged_ = false;
  std::optional<std::pair<TimeNs, TimeNs>> measure_;  // Shift+drag: shaded until the next press
  bool measuring_ = false;
  std::optional<TaskIndex> rowDrag_;  // a row's name pressed: dragged, it moves the row
  std::optional<TaskIndex> rowDrop_;  // where it goes if released now
  int labelledRows_ = 40;
  bool allOrNone_ = false;
};

// The key to the diagram's colours (diagramLegend()), in as many lines as
// the width needs up to maxRows(); each entry's tool tip says what it means.
class LegendView : public QWidget {
  Q_OBJECT
 public:
  explicit LegendView(QWidget* parent = nullptr);
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override { return {800, heightForWidth(800)}; }
  QSize minimumSizeHint() const override { return {200, heightForWidth(width() > 0 ? width() : 800)}; }
  // Where each entry goes at this width: at most maxRows() rows; entries
  // that do not fit get an empty rectangle and `more` says where the
  // "more..." box goes (its tool tip lists them).  Three rows, one in a
  // short window (the main window says: MainWindow::resizeEvent).
  int maxRows() const { return maxRows_; }
  void setMaxRows(int rows);
  struct Placement {
    std::vector<QRect> rects;
    QRect more;
  };
  Placement place(int width) const;

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent*) override;

 private:
  std::vector<LegendEntry> entries_;
  int maxRows_ = 3;
};

class UtilizationView : public QWidget {
  Q_OBJECT
 public:
  explicit UtilizationView(ViewState* state, QWidget* parent = nullptr);
  QSize sizeHint() const override { return {800, 70}; }
  // The readout under the pointer (its tool tip): the counts at that time.
  QString readoutAt(double x) const;

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent*) override;

 private:
  ViewState* state_;
};

}  // namespace xab::view
