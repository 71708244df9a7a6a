// panel_tabs.h -- the panels' tabs in as many lines as the width needs.
//
// A QTabBar keeps its tabs on one line and hides what does not fit behind
// scroll arrows: ten panels do not fit beside the task table at 1280x800,
// nor at 800x500.  PanelTabs shows one button per tab of a QTabWidget
// (whose own bar it hides), wrapped like the legend: every panel's name is
// whole and one click away at any width.  The buttons keep the tabs'
// mnemonics (Alt+L: Event log).
#pragma once

#include <QWidget>

#include <vector>

class QTabWidget;
class QToolButton;

namespace xab::view {

class PanelTabs : public QWidget {
  Q_OBJECT
 public:
  // `names`: the buttons' object names, "panelTab-" + the name (--tab's).
  PanelTabs(QTabWidget* tabs, const QStringList& names, QWidget* parent = nullptr);
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  bool event(QEvent* e) override;

 private:
  // Where each button goes at this width.
  std::vector<QRect> place(int width) const;
  QTabWidget* tabs_;
  std::vector<QToolButton*> buttons_;
};

}  // namespace xab::view
