// details_panel.h -- the Details tab: the selected record in full (details_text.h),
// its message's other end a link away, and the statistics of a time range
// measured by Shift+dragging across the diagram (range_stats.h).
#pragma once

#include "range_stats.h"

#include <QWidget>

class QTextBrowser;

namespace xab::view {

class DetailsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DetailsPanel(ViewState* state, QWidget* parent = nullptr);
  QString text() const;  // as shown, plain
  const RangeStats& range() const { return range_; }

 public slots:
  void setRange(TimeNs from, TimeNs to);
  void refresh();

 protected:
  void showEvent(QShowEvent*) override;

 private:
  ViewState* state_;
  QTextBrowser* text_;
  RangeStats range_;
  bool stale_ = true;
};

}  // namespace xab::view
