#include "output_panel.h"

#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
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
// extends the one before (a new trace starts over).
void OutputPanel::collect() {
  const ViewSnapshot* s = state_->snapshot();
  if (!s || !s->trace) return;
  // Another input, or another window of the run (a budget's cut, the past
  // read again): positions count from another record.
  if (s->trace.get() != trace_ && (s->order.size() < scanned_ || !trace_ || s->windowStart() != window_)) {
    lines_.clear();
    scanned_ = 0;
    shown_ = 0;
    text_->clear();
  }
  trace_ = s->trace.get();
  window_ = s->windowStart();
  const Trace& t = *s->trace;
  const int textSlot = slotOf(Kind::OUTPUT, Phase::End, Key::Text);
  // The records' shapes say which are output: only those are decoded.
  s->forEachRecord(scanned_, s->order.size(), [&](std::size_t p, const OrderEntry& e, const RecordRef& r) {
    if (e.task >= t.taskCount()) return;  // abmon's own records
    if (const auto shape = r.shape(); shape.kind == Kind::OUTPUT && shape.has(textSlot))
      lines_.push_back({p, e.task, r.event().a[textSlot]});
  });
  scanned_ = s->order.size();
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
  const std::size_t position = state_->position();
  auto upTo = static_cast<std::size_t>(
      std::lower_bound(lines_.begin(), lines_.end(), position, [](const Line& l, std::size_t p) { return l.position < p; }) -
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
                           .arg(lines_.front().position + 1));
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
