// output_panel.h -- the Output tab: the lines the tasks wrote
// (the trace's `output` records, abrun(1)), up to the replay position, in
// the order abmon received them; the lines of the selected task are
// highlighted.  The selected task is the task of the selected record, else
// the one task the filter shows.
#pragma once

#include "view_state.h"

#include <QWidget>

#include <deque>
#include <optional>
#include <vector>

class QPlainTextEdit;

namespace xab::view {

class OutputPanel : public QWidget {
  Q_OBJECT
 public:
  explicit OutputPanel(ViewState* state, QWidget* parent = nullptr);
  // What is shown: lines ("(label) text"), and which are highlighted.
  QStringList lines() const;
  std::vector<int> highlightedLines() const;
  // Records looked at since this was made: what a test reads to see that
  // a budget's cut costs the records it brought, not the window.
  std::uint64_t recordsRead() const { return read_; }

 public slots:
  void refresh();

 private:
  struct Line {
    std::uint64_t run;  // its position in the run (ViewSnapshot::windowStart plus the window's)
    TaskIndex task;
    StrId text;
  };
  void collect();  // output records of the records read since the last call
  // A budget's later window: the lines of the records it no longer holds
  // go, from lines_ and from the page.
  void dropBefore(std::uint64_t run);
  std::optional<TaskIndex> selectedTask() const;
  void highlight();

  ViewState* state_;
  QPlainTextEdit* text_;
  const Trace* trace_ = nullptr;  // the trace `lines_` were collected from
  std::uint64_t window_ = 0;       // its window's start in the run (ViewSnapshot::windowStart)
  bool fromHistory_ = false;       // and whether it was the past read again
  std::size_t scanned_ = 0;        // positions of that window looked at
  std::deque<Line> lines_;         // every output record read, by position
  std::size_t shown_ = 0;          // lines_[0, shown_) are in text_
  std::optional<TaskIndex> highlighted_;
  std::uint64_t read_ = 0;
};

}  // namespace xab::view
