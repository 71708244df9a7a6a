// The event log tab: filter boxes over the event log model.
#include "panels.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

namespace xab::view {

// ---- event log ----

EventLogPanel::EventLogPanel(ViewState* state, QWidget* parent)
    : QWidget(parent), state_(state), model_(new EventLogModel(state, this)) {
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  auto* row = new QHBoxLayout;
  task_ = new QComboBox;
  task_->setObjectName("logTask");
  // Narrow boxes (the lists open wider): at 800 pixels the task table
  // beside the panels keeps its columns.
  task_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  task_->setMinimumContentsLength(10);
  call_ = new QComboBox;
  call_->setObjectName("logCall");
  call_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  call_->setMinimumContentsLength(8);
  call_->addItem("any call", -1);  // then the calls the trace has (refillCalls)
  tag_ = new QLineEdit;
  tag_->setObjectName("logTag");
  tag_->setPlaceholderText("all");  // typed "any": the records of tag -1 (any tag)
  // Wide enough for its placeholder whole (QLineEdit draws inside its frame
  // and 2 pixels a side), even where the row is squeezed (800x500).
  const int tagWidth = tag_->fontMetrics().horizontalAdvance(tag_->placeholderText() + " ") +
                       2 * tag_->style()->pixelMetric(QStyle::PM_DefaultFrameWidth) + 4;
  tag_->setMinimumWidth(tagWidth);
  tag_->setMaximumWidth(std::max(70, tagWidth));
  row->addWidget(new QLabel("Task"));
  row->addWidget(task_);
  row->addWidget(new QLabel("Call"));
  row->addWidget(call_);
  row->addWidget(new QLabel("Tag"));
  row->addWidget(tag_);
  libab_ = new QCheckBox("libab");
  libab_->setObjectName("logLibab");
  libab_->setToolTip("Show libab's own records: its clock exchanges with abmon, its cost, its sends to abmon");
  row->addWidget(libab_);
  row->addStretch();
  box->addLayout(row);
  table_ = new EventLogView(this);
  table_->setModel(model_);
  table_->setObjectName("eventLog");
  table_->setMinimumHeight(2 * table_->rowHeight());  // a small window keeps the diagram readable
  table_->setColumnWidth(EventLogModel::SeqCol, 60);
  table_->setColumnWidth(EventLogModel::TimeCol, 90);
  table_->setColumnWidth(EventLogModel::TaskCol, 115);
  table_->setColumnWidth(EventLogModel::EventCol, 90);
  // Fields as wide as the rest leaves (cut, whole in its tool tip): no
  // scroll bar under a narrow log (800x500), where it took a row's room.
  table_->horizontalHeader()->setStretchLastSection(false);  // it keeps at least its default width
  table_->horizontalHeader()->setSectionResizeMode(EventLogModel::FieldsCol, QHeaderView::Stretch);
  box->addWidget(table_);
  refillTasks();
  refillCalls();

  connect(task_, &QComboBox::currentIndexChanged, this, &EventLogPanel::applyFilter);
  connect(call_, &QComboBox::currentIndexChanged, this, &EventLogPanel::applyFilter);
  connect(tag_, &QLineEdit::textEdited, this, &EventLogPanel::applyFilter);  // as typed, as the boxes do
  connect(libab_, &QCheckBox::toggled, this, &EventLogPanel::applyFilter);
  connect(state_, &ViewState::snapshotChanged, this, &EventLogPanel::refillTasks);
  connect(state_, &ViewState::snapshotChanged, this, &EventLogPanel::refillCalls);
  connect(state_, &ViewState::selectionChanged, this, &EventLogPanel::showSelection);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
    if (selecting_ || !i.isValid()) return;
    selecting_ = true;
    state_->select(model_->positionOfRow(i.row()));
    selecting_ = false;
  });
  connect(table_, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& i) {
    state_->setPosition(model_->positionOfRow(i.row()) + 1);  // replay up to this record
  });
  connect(state_, &ViewState::positionChanged, this, &EventLogPanel::followPosition);
  connect(state_, &ViewState::filterChanged, this, &EventLogPanel::showFilter);
  connect(state_, &ViewState::filterChanged, this, &EventLogPanel::followPosition);  // after the model's reset
  connect(model_, &QAbstractItemModel::rowsInserted, this, [this] {
    if (state_->live() && !selecting_) table_->scrollToBottom();
  });
}

// The Tag box's text as a filter: a number, "any" (-1), else none.
std::optional<int> EventLogPanel::tagOf(const QString& text) {
  QString tag = text.trimmed();
  if (tag == "any") return -1;
  bool ok = false;
  int v = tag.toInt(&ok);
  return ok ? std::optional<int>(v) : std::nullopt;
}

void EventLogPanel::focusFilter() { task_->setFocus(); }

// Keeps the current record in sight: the first rows at the first record,
// the newest in live mode, else the row of the record last shown (filtered:
// the last row before it).
void EventLogPanel::followPosition() {
  if (state_->live()) {
    table_->scrollToBottom();
  } else if (state_->position() == 0) {
    table_->scrollToTop();
  } else {
    int row = model_->rowAtOrBefore(state_->position() - 1);
    if (row >= 0) table_->scrollTo(model_->index(row, 0), QAbstractItemView::EnsureVisible);
  }
}

// The boxes say what the filter is, whoever set it (a double click on the
// task table sets it too); so choosing "every task" is a change, and clears it.
void EventLogPanel::showFilter() {
  const EventFilter& f = state_->filter();
  QSignalBlocker a(task_), b(call_), c(tag_), d(libab_);
  libab_->setChecked(f.libabRecords);
  int task = f.tasks.size() == 1 ? static_cast<int>(*f.tasks.begin()) : -1;
  task_->setCurrentIndex(std::max(0, task_->findData(task)));
  call_->setCurrentIndex(std::max(0, call_->findData(f.kind ? static_cast<int>(*f.kind) : -1)));
  // What is typed stays while it means the filter's tag ("-" on the way to "-10").
  if (tagOf(tag_->text()) != f.tag)
    tag_->setText(!f.tag ? QString() : *f.tag == -1 ? QStringLiteral("any") : QString::number(*f.tag));
}

void EventLogPanel::refillTasks() {
  const ViewSnapshot* s = state_->snapshot();
  int have = task_->count() - 1;
  if (task_->count() == 0) task_->addItem("every task", -1);
  if (!s) return;
  for (auto t = static_cast<TaskIndex>(std::max(have, 0)); t < s->trace->taskCount(); ++t)
    task_->addItem(QString::fromStdString(s->trace->label(t)), static_cast<int>(t));
}

// The Call box lists the calls the trace has, by name, each with its count
// ("send (640)"); the counts grow with the trace, read once (call_counts.h).
void EventLogPanel::refillCalls() {
  const ViewSnapshot* s = state_->snapshot();
  if (!callCounts_.update(s) && (s || call_->count() == 1)) return;
  QSignalBlocker block(call_);
  const int current = call_->currentData().toInt();
  std::vector<std::pair<QString, int>> calls;
  for (int k = 0; k < kKindCount; ++k) {
    if (static_cast<Kind>(k) == Kind::TIDS || callCounts_[static_cast<Kind>(k)] == 0) continue;
    auto n = kindName(static_cast<Kind>(k));
    calls.emplace_back(QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size())), k);
  }
  std::sort(calls.begin(), calls.end());
  auto text = [&](const std::pair<QString, int>& c) {
    return QStringLiteral("%1 (%2)").arg(c.first).arg(callCounts_[static_cast<Kind>(c.second)]);
  };
  bool same = call_->count() == static_cast<int>(calls.size()) + 1;
  for (std::size_t i = 0; same && i < calls.size(); ++i)
    same = call_->itemData(static_cast<int>(i) + 1).toInt() == calls[i].second;
  if (same) {  // new counts only: the items stay (an open list does not jump)
    for (std::size_t i = 0; i < calls.size(); ++i) call_->setItemText(static_cast<int>(i) + 1, text(calls[i]));
    return;
  }
  while (call_->count() > 1) call_->removeItem(1);
  for (const auto& c : calls) call_->addItem(text(c), c.second);
  call_->setCurrentIndex(std::max(0, call_->findData(current)));
}

void EventLogPanel::applyFilter() {
  EventFilter f;
  if (int t = task_->currentData().toInt(); t >= 0) f.tasks.insert(static_cast<TaskIndex>(t));
  if (int k = call_->currentData().toInt(); k >= 0) f.kind = static_cast<Kind>(k);
  f.tag = tagOf(tag_->text());
  f.libabRecords = libab_->isChecked();
  state_->setFilter(f);
}

void EventLogPanel::showSelection() {
  auto sel = state_->selected();
  if (!sel || selecting_) return;
  int row = model_->rowOfPosition(*sel);
  if (row < 0) return;
  selecting_ = true;
  table_->selectRow(row);
  table_->scrollTo(model_->index(row, 0), QAbstractItemView::PositionAtCenter);
  selecting_ = false;
}

}  // namespace xab::view
