// panel_tabs.h -- the panels, their tabs in as many lines as the width needs.
//
// A QTabBar keeps its tabs on one line and hides what does not fit behind
// scroll arrows: ten panels do not fit beside the task table at 1280x800,
// nor at 800x500.  PanelTabs shows one button per panel, wrapped like the
// legend, over the panels (a QStackedWidget): every panel's name is whole
// and one click away at any width.  The buttons keep the tabs' mnemonics
// (Alt+L: Event log).
#pragma once

#include <QWidget>

#include <vector>

class QStackedWidget;
class QToolButton;

namespace xab::view {

class PanelTabFlow;

class PanelTabs : public QWidget {
  Q_OBJECT
 public:
  explicit PanelTabs(QWidget* parent = nullptr);
  // A panel and its tab: `text` with its mnemonic, `name` the button's
  // object name's end ("panelTab-" + name: --tab's names).
  void addTab(QWidget* panel, const QString& text, const QString& name);
  int count() const;
  int currentIndex() const;
  QWidget* currentWidget() const;
  QToolButton* tabButton(int i) const;

 public slots:
  void setCurrentIndex(int i);
  void setCurrentWidget(QWidget* panel);

 signals:
  void currentChanged(int i);

 private:
  PanelTabFlow* flow_;
  QStackedWidget* stack_;
};

}  // namespace xab::view
