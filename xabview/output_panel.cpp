#include "output_panel.h"

#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>
#include <QVBoxLayout>

#include <algorithm>

namespace xab::view {
namespace {
const QString kNoOutput =
    QStringLiteral("No output records: run the program with abrun(1) to collect what its tasks print.");
}  // namespace

OutputPanel::OutputPanel(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  text_ = new QPlainTextEdit;
  text_->setObjectName("outputText");
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  text_->setFont(QFont("monospace"));
  text_->setPlaceholderText(kNoOutput);
  box->addWidget(text_);
  connect(state_, &ViewState::snapshotChanged, this, &OutputPanel::refresh);
  connect(state_, &ViewState::positionChanged, this, &OutputPanel::refresh);
  connect(state_, &ViewState::selectionChanged, this, &OutputPanel::refresh);
  connect(state_, &ViewState::filterChanged, this, &OutputPanel::refresh);
}

// Only the records that came since the last look are scanned: a snapshot
// extends the one before, or is a budget's later window that keeps the
// lines after its cut (a new trace starts over).
void OutputPanel::collect() {
  const ViewSnapshot* s = state_->snapshot();
  if (!s || !s->trace) return;
  const std::uint64_t start = s->windowStart();
  auto restart = [&] {
    lines_.clear();
    scanned_ = 0;
    shown_ = 0;
    text_->clear();
  };
  if (s->trace.get() != trace_) {
    if (!trace_) {
      restart();
    } else if (start != window_ || s->fromHistory != fromHistory_) {
      // Another window of the run: a budget's later one keeps the lines
      // from its cut on (output records are never carried across it, so
      // its carried records need no look); another input, the past read
      // again or back from it: positions count from another record.
      const auto shift = s->shiftFrom(window_, scanned_, fromHistory_);
      if (shift && s->order.size() + shift->shift >= scanned_) {
        dropBefore(start + shift->carried);
        scanned_ -= static_cast<std::size_t>(shift->shift);
      } else {
        restart();
      }
    } else if (s->order.size() < scanned_) {
      restart();
    }
  }
  trace_ = s->trace.get();
  window_ = start;
  fromHistory_ = s->fromHistory;
  const Trace& t = *s->trace;
  const int textSlot = slotOf(Kind::OUTPUT, Phase::End, Key::Text);
  // The records' shapes say which are output: only those are decoded.
  if (scanned_ < s->order.size()) read_ += s->order.size() - scanned_;
  s->forEachRecord(scanned_, s->order.size(), [&](std::size_t p, const OrderEntry& e, const RecordRef& r) {
    if (e.task >= t.taskCount()) return;  // abmon's own records
    if (const auto shape = r.shape(); shape.kind == Kind::OUTPUT && shape.has(textSlot))
      lines_.push_back({start + p, e.task, r.event().a[textSlot]});
  });
  scanned_ = s->order.size();
}

void OutputPanel::dropBefore(std::uint64_t run) {
  const auto gone = static_cast<std::size_t>(
      std::lower_bound(lines_.begin(), lines_.end(), run, [](const Line& l, std::uint64_t r) { return l.run < r; }) -
      lines_.begin());
  lines_.erase(lines_.begin(), lines_.begin() + static_cast<std::ptrdiff_t>(gone));
  const std::size_t off = std::min(gone, shown_);
  if (off == 0) return;
  if (off == shown_) {
    text_->clear();
  } else {
    QTextCursor c(text_->document());
    c.movePosition(QTextCursor::NextBlock, QTextCursor::KeepAnchor, static_cast<int>(off));
    c.removeSelectedText();
  }
  shown_ -= off;
}

std::optional<TaskIndex> OutputPanel::selectedTask() const {
  const ViewSnapshot* s = state_->snapshot();
  if (auto sel = state_->selected(); s && sel && *sel < s->order.size()) {
    TaskIndex t = s->order.taskAt(*sel);
    if (s->trace && t < s->trace->taskCount()) return t;
  }
  if (state_->filter().tasks.size() == 1) return *state_->filter().tasks.begin();
  return std::nullopt;
}

// The lines of records before the replay position: appended when the
// position moves on, written afresh when it moves back.
void OutputPanel::refresh() {
  collect();
  const ViewSnapshot* s = state_->snapshot();
  if (!s || !s->trace) return;
  const std::uint64_t position = s->windowStart() + state_->position();
  auto upTo = static_cast<std::size_t>(
      std::lower_bound(lines_.begin(), lines_.end(), position, [](const Line& l, std::uint64_t p) { return l.run < p; }) -
      lines_.begin());
  if (upTo < shown_) {
    text_->clear();
    shown_ = 0;
  }
  for (; shown_ < upTo; ++shown_) {
    const Line& l = lines_[shown_];
    text_->appendPlainText(QString::fromStdString(s->trace->label(l.task)) + "  " +
                           QString::fromUtf8(s->trace->str(l.text).data(), static_cast<qsizetype>(s->trace->str(l.text).size())));
  }
  // An empty page says why: no output in the trace, or none yet here.
  text_->setPlaceholderText(
      lines_.empty() ? kNoOutput
                     : QStringLiteral("No output yet at this position (the trace has %1 output records, the first at "
                                      "record %2).")
                           .arg(lines_.size())
                           .arg(lines_.front().run - s->windowStart() + 1));
  highlight();
  text_->verticalScrollBar()->setValue(text_->verticalScrollBar()->maximum());
}

void OutputPanel::highlight() {
  highlighted_ = selectedTask();
  QList<QTextEdit::ExtraSelection> marks;
  if (highlighted_) {
    QTextCharFormat f;
    f.setBackground(QColor(0xff, 0xf1, 0x76));
    f.setProperty(QTextFormat::FullWidthSelection, true);
    QTextBlock b = text_->document()->firstBlock();
    for (std::size_t i = 0; i < shown_ && b.isValid(); ++i, b = b.next()) {
      if (lines_[i].task != *highlighted_) continue;
      QTextEdit::ExtraSelection m;
      m.cursor = QTextCursor(b);
      m.format = f;
      marks.push_back(m);
    }
  }
  text_->setExtraSelections(marks);
}

QStringList OutputPanel::lines() const {
  QStringList out;
  for (QTextBlock b = text_->document()->firstBlock(); b.isValid(); b = b.next())
    if (shown_ > 0) out << b.text();
  return out;
}

std::vector<int> OutputPanel::highlightedLines() const {
  std::vector<int> out;
  for (const auto& m : text_->extraSelections()) out.push_back(m.cursor.blockNumber());
  return out;
}

}  // namespace xab::view
