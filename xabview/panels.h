// panels.h -- the tabs under the diagram: event log, hang and mismatch,
// barrier waits, messages, input errors.  Each is a thin widget over an
// item model of xab_viewmodels and the shared ViewState, each in a file of
// its own (event_log_panel.cpp, hang_panel.cpp, barrier_panel.cpp,
// messages_panel.cpp, input_panel.cpp).
#pragma once

#include "call_counts.h"
#include "event_log_model.h"
#include "event_log_view.h"
#include "panel_models.h"
#include "why_models.h"

#include <QWidget>

#include <array>
#include <cstdint>
#include <optional>
#include <utility>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QTableView;
class QTextBrowser;

namespace xab::view {

class EventLogPanel : public QWidget {
  Q_OBJECT
 public:
  explicit EventLogPanel(ViewState* state, QWidget* parent = nullptr);
  EventLogModel* model() const { return model_; }
  const CallCounts& callCounts() const { return callCounts_; }
 public slots:
  void focusFilter();
 private slots:
  void applyFilter();
  void refillTasks();
  void refillCalls();
  void showSelection();
  void followPosition();
  void showFilter();
 private:
  static std::optional<int> tagOf(const QString& text);
  CallCounts callCounts_;  // the Call box's counts
  ViewState* state_;
  EventLogModel* model_;
  EventLogView* table_;
  QComboBox* task_;
  QComboBox* call_;
  QLineEdit* tag_;
  QCheckBox* libab_;
  bool selecting_ = false;
};

class HangPanel : public QWidget {
  Q_OBJECT
 public:
  HangPanel(ViewState* state, double hangAfterSeconds, QWidget* parent = nullptr);
  bool alarmed() const { return alarmed_; }
  QString text() const;  // what the panel shows, as plain text
 signals:
  void alarm();  // progress stopped and tasks are blocked (or a pack mismatch)
  void alarmChanged(bool on);  // on: as alarm(); off: records came again, or the position moved back
 public slots:
  void refresh();
 private:
  ViewState* state_;
  QTextBrowser* text_;
  double hangAfter_;
  bool alarmed_ = false;
};

class BarrierChart : public QWidget {
  Q_OBJECT
 public:
  explicit BarrierChart(ViewState* state, QWidget* parent = nullptr);
  void showInstance(int instance);
  QSize sizeHint() const override { return {400, 200}; }
 protected:
  void paintEvent(QPaintEvent*) override;
 private:
  ViewState* state_;
  int instance_ = -1;  // -1: totals per task
};

class BarrierPanel : public QWidget {
  Q_OBJECT
 public:
  explicit BarrierPanel(ViewState* state, QWidget* parent = nullptr);
 private:
  BarrierWaitModel* instances_;
  BarrierTotalsModel* totals_;
  BarrierChart* chart_;
};

class MessagesPanel : public QWidget {
  Q_OBJECT
 public:
  explicit MessagesPanel(ViewState* state, QWidget* parent = nullptr);
  // Both models' computations so far (tests: none while hidden).
  std::uint64_t computations() const;
 protected:
  void showEvent(QShowEvent* e) override;
  void hideEvent(QHideEvent* e) override;
 private:
  void setActive(bool active);
  MessageMatrixModel* matrix_;
  PendingQueueModel* pending_;
};

// Why slow: the root causes of the waiting ranked, the report in words;
// a chosen cause's waits and its work during them, and the critical path,
// highlighted on the diagram (why_models.h, highlights.h).
class WhyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit WhyPanel(ViewState* state, QWidget* parent = nullptr);
  QString text() const;  // the report as shown (--dump-state's why_panel)
  QTableView* causes() const { return table_; }
 public slots:
  void refresh();
  void setCriticalPath(bool on);
  void zoomToCause();  // the view to the chosen cause's waits
 protected:
  void showEvent(QShowEvent* e) override;  // asks for the analysis (ViewState::wantWhy)
 private:
  void chooseCause(int row);
  void highlight();
  ViewState* state_;
  WhyCauseModel* model_;
  QTableView* table_;
  QPlainTextEdit* text_;
  QCheckBox* critical_;
  // The chosen cause, kept across snapshots by task and pattern (the
  // ranking may change as records come).
  std::optional<std::pair<TaskIndex, WaitPattern>> chosen_;
};

class InputPanel : public QWidget {
  Q_OBJECT
 public:
  explicit InputPanel(ViewState* state, QWidget* parent = nullptr);
  QString text() const;  // as shown (--dump-state's input_panel)
 public slots:
  void refresh();
  void setFailure(const QString& message);
 private:
  ViewState* state_;
  QPlainTextEdit* text_;
  QString failure_;
};

}  // namespace xab::view
