#include "find_bar.h"

#include "record_find.h"

#include <QAction>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>

#include <cmath>

namespace xab::view {

FindBar::FindBar(ViewState* state, QWidget* parent) : QToolBar("Find", parent), state_(state) {
  setObjectName("findBar");
  setMovable(false);
  addWidget(new QLabel(" Find "));
  query_ = new QLineEdit;
  query_->setObjectName("findText");
  query_->setPlaceholderText("call, tag=N, task, tid or text");
  query_->setToolTip("Words a record must all hold: a call (recv, send.begin), a field (tag=2, dst=t40005), "
                     "a task's name or tid, or any text of its fields. Enter or F3: next; Shift+F3: previous");
  query_->setClearButtonEnabled(true);
  query_->setMinimumWidth(query_->fontMetrics().horizontalAdvance("M") * 16);
  addWidget(query_);
  auto* previous = addAction("Previous", this, [this] { find(false); });
  previous->setToolTip("The previous matching record (Shift+F3)");
  auto* next = addAction("Next", this, [this] { find(true); });
  next->setToolTip("The next matching record (F3)");
  addSeparator();
  addWidget(new QLabel(" Go to "));
  time_ = new QLineEdit;
  time_->setObjectName("goToTime");
  time_->setPlaceholderText("seconds");
  time_->setToolTip("A trace time in seconds after the first record (as the status bar's trace time); Enter goes there");
  time_->setMaximumWidth(time_->fontMetrics().horizontalAdvance("M") * 8);
  addWidget(time_);
  result_ = new QLabel;
  result_->setObjectName("findResult");
  addWidget(result_);
  auto* close = addAction("Close", this, [this] { hide(); });
  close->setToolTip("Hide the Find bar (Esc in a field)");

  connect(query_, &QLineEdit::returnPressed, this, [this] { find(true); });
  connect(state_, &ViewState::snapshotChanged, this, [this] {
    const ViewSnapshot* s = state_->snapshot();
    if (!historyPending_ || !s || !s->fromHistory) return;
    historyPending_ = false;
    result_->setText(QStringLiteral(" record %1 of %2 read again from the input (Live: back to the newest), at %3 s")
                         .arg(state_->position()).arg(s->size())
                         .arg(QString::fromStdString(formatSeconds(state_->cursorTime(), s->firstTime()))));
  });
  connect(time_, &QLineEdit::returnPressed, this, [this] { goToTyped(); });
  for (QLineEdit* field : {query_, time_}) field->installEventFilter(this);

  struct Item { const char* text; QKeySequence key; std::function<void()> run; };
  const Item items[] = {
      {"Find...", QKeySequence(Qt::CTRL | Qt::Key_F), [this] { open(query_); }},
      {"Find next", QKeySequence(Qt::Key_F3), [this] { query().isEmpty() ? open(query_) : void(find(true)); }},
      {"Find previous", QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] { query().isEmpty() ? open(query_) : void(find(false)); }},
      {"Go to time...", QKeySequence(Qt::CTRL | Qt::Key_G), [this] { open(time_); }},
  };
  for (const auto& it : items) {
    auto* a = new QAction(it.text, this);
    a->setShortcut(it.key);
    a->setShortcutContext(Qt::ApplicationShortcut);
    connect(a, &QAction::triggered, this, it.run);
    actions_.append(a);
  }
  hide();
}

QString FindBar::query() const { return query_->text().trimmed(); }
void FindBar::setQuery(const QString& text) { query_->setText(text); }
QString FindBar::resultText() const { return result_->text(); }

void FindBar::open(QLineEdit* field) {
  show();
  field->setFocus(Qt::ShortcutFocusReason);
  field->selectAll();
}

// Esc in a field closes the bar (and is not the replay's Stop).
bool FindBar::eventFilter(QObject* watched, QEvent* event) {
  if ((event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress) &&
      static_cast<QKeyEvent*>(event)->key() == Qt::Key_Escape) {
    event->accept();
    if (event->type() == QEvent::KeyPress) {
      hide();
      if (parentWidget()) parentWidget()->setFocus();
    }
    return event->type() == QEvent::KeyPress;
  }
  return QToolBar::eventFilter(watched, event);
}

void FindBar::go(std::size_t position) {
  const ViewSnapshot* s = state_->snapshot();
  state_->setPosition(position);
  if (position > 0) state_->select(position - 1);
  // The current record's time in view, the zoom kept.
  const TimeNs t = position > 0 ? s->eventAt(position - 1).time : state_->cursorTime();
  const TimeNs begin = state_->viewBegin(), end = state_->viewEnd();
  if (t < begin || t > end) state_->setViewRange(t - (end - begin) / 2, t + (end - begin) / 2);
}

bool FindBar::find(bool forward) {
  const ViewSnapshot* s = state_->snapshot();
  const QString text = query();
  lastFound_ = false;
  if (!s || text.isEmpty()) {
    result_->setText(text.isEmpty() ? " type what to find" : " no records yet");
    return false;
  }
  const RecordQuery q(*s, text, state_->filter().libabRecords);
  QGuiApplication::setOverrideCursor(Qt::WaitCursor);  // a word no record holds reads them all (docs/performance.md)
  const auto hit = findRecord(*s, q, state_->position(), forward);
  QGuiApplication::restoreOverrideCursor();
  if (!hit) {
    result_->setText(QStringLiteral(" no record matches \"%1\"").arg(text));
    return false;
  }
  go(hit->position);
  lastFound_ = true;
  result_->setText(QStringLiteral(" record %1 of %2%3")
                       .arg(hit->position).arg(s->size())
                       .arg(hit->wrapped ? (forward ? ", wrapped to the first record" : ", wrapped to the last record") : ""));
  return true;
}

bool FindBar::goToSeconds(double seconds) {
  const ViewSnapshot* s = state_->snapshot();
  lastFound_ = false;
  if (!s || s->size() == 0 || !std::isfinite(seconds)) {
    result_->setText(" no records yet");
    return false;
  }
  const TimeNs t = s->firstTime() + static_cast<TimeNs>(std::llround(seconds * 1e9));
  if (state_->askHistory(t)) {  // only a summary of that time is held: read its records again
    historyPending_ = lastFound_ = true;
    result_->setText(QStringLiteral(" reading the records at %1 s again from the input...").arg(seconds));
    return true;
  }
  historyPending_ = false;
  const std::size_t p = positionAtTime(*s, t);
  go(p);
  lastFound_ = true;
  result_->setText(t > s->tasksEnd
                       ? QStringLiteral(" %1 s is after the last record").arg(seconds)
                       : QStringLiteral(" record %1 of %2, at %3 s").arg(p).arg(s->size())
                             .arg(QString::fromStdString(formatSeconds(state_->cursorTime(), s->firstTime()))));
  return true;
}

void FindBar::goToTyped() {
  bool ok = false;
  const double seconds = time_->text().trimmed().toDouble(&ok);
  if (!ok) {
    result_->setText(" Go to: a time in seconds, e.g. 1.25");
    return;
  }
  goToSeconds(seconds);
}

}  // namespace xab::view
