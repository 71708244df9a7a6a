// find_bar.h -- Find and Go to: a bar that finds the next or previous
// record a query names (record_find.h: a call, tag=N, a task, a tid or any
// text of the record) and goes to a trace time.  The replay goes there, the
// record found is selected and the diagram brings it into view.
//
// Ctrl+F and Ctrl+G show the bar with the focus in its Find or Go to field;
// F3 and Shift+F3 find the next and previous match (Enter in the field: the
// next); Esc in a field closes the bar.
#pragma once

#include "view_state.h"

#include <QToolBar>

class QAction;
class QLabel;
class QLineEdit;

namespace xab::view {

class FindBar : public QToolBar {
  Q_OBJECT
 public:
  explicit FindBar(ViewState* state, QWidget* parent = nullptr);
  // Find..., Find next, Find previous, Go to time...: for a menu (and the
  // window's shortcuts while the bar is hidden).
  const QList<QAction*>& findActions() const { return actions_; }

  QString query() const;
  void setQuery(const QString& text);
  // The next (previous) record matching the query from the replay position;
  // false (and "no match" on the bar) when none does.
  bool find(bool forward = true);
  // The first record at or after `seconds` after the trace's first record.
  bool goToSeconds(double seconds);
  // What the bar says of the last search or jump ("record 12 of 340",
  // "no record matches ...", "wrapped to the first record").
  QString resultText() const;
  bool lastFound() const { return lastFound_; }
  // The last Go to named a time before a memory budget's window: its
  // records are being read again from the input (ViewState::askHistory).
  bool historyPending() const { return historyPending_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void open(QLineEdit* field);
  void go(std::size_t position);
  void goToTyped();

  ViewState* state_;
  QLineEdit* query_ = nullptr;
  QLineEdit* time_ = nullptr;
  QLabel* result_ = nullptr;
  QList<QAction*> actions_;
  bool lastFound_ = false;
  bool historyPending_ = false;
};

}  // namespace xab::view
