// main_window.h -- xabview's window: replay bar, task table, diagram with
// the utilization strip, and the panels in tabs; status bar and error
// banner.  Every part talks to the shared ViewState only.
#pragma once

#include "export.h"
#include "live_meter.h"
#include "options.h"
#include "view_state.h"

#include <QElapsedTimer>
#include <QMainWindow>

#include <memory>

class QLabel;
class QMenu;
class QFrame;
class QSplitter;
class QVBoxLayout;

namespace xab::view {

class DiagramView;
class LegendView;
class PanelTabs;
class EventLogPanel;
class FindBar;
class HangPanel;
class InputPanel;
class OutputPanel;
class WhyPanel;
class ComparePanel;
class CompareView;
class ReplayBar;
class ControlPanel;
class TaskTable;
class TaskTableModel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  MainWindow(ViewState* state, const ViewerOptions& options, QWidget* parent = nullptr);

  void showTab(const QString& name);  // log, hang, barriers, messages, input, output
  QString currentTab() const;         // the same names
  HangPanel* hangPanel() const { return hang_; }
  WhyPanel* whyPanel() const { return why_; }
  ComparePanel* comparePanel() const { return compare_; }
  // A second run beside this one (--compare, File > Compare with...): its
  // diagram under this one's, aligned at the first task records, and the
  // Compare tab ranking what differs.  Another call replaces it.
  void compareWith(const QString& file);
  CompareView* compareView() const { return compareView_; }
  OutputPanel* outputPanel() const { return output_; }
  InputPanel* inputPanel() const { return input_; }
  // The hang banner: shown while the hang panel reports a hang (or a pack
  // mismatch); its Show button brings the panel to the front.  The alarm
  // never changes the tab itself.
  bool hangBannerShown() const;
  QString hangBannerText() const;
  DiagramView* diagram() const { return diagram_; }
  ControlPanel* controlPanel() const { return control_; }  // with --control only
  FindBar* findBar() const { return find_; }
  ReplayBar* replayBar() const { return replay_; }
  bool saveDiagram(const QString& file, QString* error) const;
  // Ctrl+S and Ctrl+E once the file is chosen: write it, then say so in the
  // status bar ("Saved the diagram to FILE", "Exported N records to FILE")
  // or why not in a message box.  True when written.
  bool saveDiagramTo(const QString& file);
  bool exportTo(const QString& file, const SoundOptions& sound = {});
  // "FILE: no records read (...why...)": for an input that ended without
  // one record (the banner, and the scripted modes' error).
  static QString noRecordsText(const ViewSnapshot& s);
  // The reader's record count (TraceLoader::recordsRead): the status bar's
  // arrival rate and lag.
  void watchReader(ArrivalMeter::Counter recordsRead);
  const ArrivalMeter& arrival() const { return *arrival_; }
  const StallWatchdog& watchdog() const { return *watchdog_; }
  QString statusText() const;

 signals:
  // The View menu's Time choices: task clocks or global time, compensated
  // or not (docs/xabview.md); main() hands them to the TraceLoader.
  void timeBaseChosen(bool rawTime, bool compensate);

 public slots:
  void onSnapshot();
  void onLoadFailed(const QString& message);
  void updateStatus();

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;  // a short window: a one-line legend
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void buildActions();
  void buildTimeActions(QMenu* view);
  void fitTaskTable();
  void reportNewErrors();
  QFrame* buildHangBanner();
  void showHangAlarm(bool on);
  void saveDiagramDialog();
  void exportDialog();
  void logFrame(double paintMs);

  ViewState* state_;
  ViewerOptions options_;
  ReplayBar* replay_ = nullptr;
  ControlPanel* control_ = nullptr;
  FindBar* find_ = nullptr;
  TaskTableModel* tasks_ = nullptr;
  TaskTable* taskTable_ = nullptr;
  DiagramView* diagram_ = nullptr;
  LegendView* legend_ = nullptr;
  EventLogPanel* log_ = nullptr;
  HangPanel* hang_ = nullptr;
  WhyPanel* why_ = nullptr;
  ComparePanel* compare_ = nullptr;
  CompareView* compareView_ = nullptr;
  QVBoxLayout* picture_ = nullptr;  // the overview, the diagram(s), the utilization, the legend
  InputPanel* input_ = nullptr;
  OutputPanel* output_ = nullptr;
  PanelTabs* tabs_ = nullptr;  // panel_tabs.h
  QLabel* banner_ = nullptr;
  QFrame* hangBanner_ = nullptr;
  QLabel* hangBannerText_ = nullptr;
  QLabel* status_ = nullptr;
  QSplitter* split_ = nullptr;
  bool tableFitted_ = false;
  bool fittedShort_ = false;  // fitted for a short window (under 640 px)
  std::size_t printedErrors_ = 0;
  QString failure_;
  ArrivalMeter* arrival_ = nullptr;
  StallWatchdog* watchdog_ = nullptr;
  std::unique_ptr<FrameLog> frameLog_;
};

}  // namespace xab::view
