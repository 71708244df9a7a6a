#include "panels.h"

#include "activity.h"

#include <xab/model/hosts.h>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace xab::view {
namespace {

QTableView* makeTable(QAbstractItemModel* model, QWidget* parent) {
  auto* t = new QTableView(parent);
  t->setModel(model);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  t->verticalHeader()->setDefaultSectionSize(20);
  t->horizontalHeader()->setStretchLastSection(true);
  t->setWordWrap(false);
  t->setMinimumHeight(40);  // two tables share a panel: a small window keeps the diagram readable
  return t;
}

}  // namespace

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
  task_->setMinimumContentsLength(12);
  call_ = new QComboBox;
  call_->setObjectName("logCall");
  call_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  call_->setMinimumContentsLength(9);
  call_->addItem("any call", -1);
  for (int k = 0; k < kKindCount; ++k) {
    if (static_cast<Kind>(k) == Kind::TIDS) continue;
    auto n = kindName(static_cast<Kind>(k));
    call_->addItem(QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size())), k);
  }
  tag_ = new QLineEdit;
  tag_->setObjectName("logTag");
  tag_->setPlaceholderText("any tag");
  tag_->setMaximumWidth(70);
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
  table_->setColumnWidth(EventLogModel::SeqCol, 70);
  table_->setColumnWidth(EventLogModel::TimeCol, 90);
  table_->setColumnWidth(EventLogModel::TaskCol, 130);
  table_->setColumnWidth(EventLogModel::EventCol, 100);
  box->addWidget(table_);
  refillTasks();

  connect(task_, &QComboBox::currentIndexChanged, this, &EventLogPanel::applyFilter);
  connect(call_, &QComboBox::currentIndexChanged, this, &EventLogPanel::applyFilter);
  connect(tag_, &QLineEdit::editingFinished, this, &EventLogPanel::applyFilter);
  connect(libab_, &QCheckBox::toggled, this, &EventLogPanel::applyFilter);
  connect(state_, &ViewState::snapshotChanged, this, &EventLogPanel::refillTasks);
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
  connect(model_, &QAbstractItemModel::rowsInserted, this, [this] {
    if (state_->live() && !selecting_) table_->scrollToBottom();
  });
}

void EventLogPanel::focusFilter() { task_->setFocus(); }

// Keeps the current record in sight: the first rows at the first record,
// the newest in live mode, else the row of the record last shown.
void EventLogPanel::followPosition() {
  if (state_->live()) {
    table_->scrollToBottom();
  } else if (state_->position() == 0) {
    table_->scrollToTop();
  } else {
    int row = model_->rowOfPosition(state_->position() - 1);
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
  QString tag = !f.tag ? QString() : *f.tag == -1 ? QStringLiteral("any") : QString::number(*f.tag);
  if (tag_->text().trimmed() != tag) tag_->setText(tag);
}

void EventLogPanel::refillTasks() {
  const ViewSnapshot* s = state_->snapshot();
  int have = task_->count() - 1;
  if (task_->count() == 0) task_->addItem("every task", -1);
  if (!s) return;
  for (auto t = static_cast<TaskIndex>(std::max(have, 0)); t < s->trace->taskCount(); ++t)
    task_->addItem(QString::fromStdString(s->trace->label(t)), static_cast<int>(t));
}

void EventLogPanel::applyFilter() {
  EventFilter f;
  if (int t = task_->currentData().toInt(); t >= 0) f.tasks.insert(static_cast<TaskIndex>(t));
  if (int k = call_->currentData().toInt(); k >= 0) f.kind = static_cast<Kind>(k);
  QString tag = tag_->text().trimmed();
  bool ok = false;
  int v = tag == "any" ? -1 : tag.toInt(&ok);
  if (ok || tag == "any") f.tag = v;
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

// ---- hang and mismatch ----

HangPanel::HangPanel(ViewState* state, double hangAfterSeconds, QWidget* parent)
    : QWidget(parent), state_(state), hangAfter_(hangAfterSeconds) {
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  text_ = new QTextBrowser;
  text_->setObjectName("hangText");
  text_->setOpenLinks(false);
  box->addWidget(text_);
  connect(text_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    if (url.scheme() == "event") state_->select(url.path().toULongLong());
  });
  connect(state_, &ViewState::snapshotChanged, this, &HangPanel::refresh);
  connect(state_, &ViewState::positionChanged, this, &HangPanel::refresh);
  auto* idle = new QTimer(this);  // in live mode "progress stopped" is a matter of time
  connect(idle, &QTimer::timeout, this, [this] {
    if (state_->atEnd() && state_->snapshot() && !state_->snapshot()->inputEnded) refresh();
  });
  idle->start(1000);
  refresh();
}

QString HangPanel::text() const { return text_->toPlainText(); }

void HangPanel::refresh() {
  const ViewSnapshot* s = state_->snapshot();
  // Blocked tasks at the newest record are a hang only when nothing more
  // will come: the input ended, or it is caught up and no record arrived for
  // --hang-after seconds.  Catching up with a growing file, or pausing or
  // stepping at the live edge of a running program, is not a silence.
  bool atEdge = s && state_->atEnd();
  bool silent = s && (s->inputEnded || (s->caughtUp && state_->msSinceProgress() >= hangAfter_ * 1000));
  // An analysis of fewer records than the snapshot (live) may be stale.
  bool stalled = atEdge && s->analysisComplete() && s->hang().hung && silent;
  if (atEdge && !s->inputEnded && s->hang().hung && !stalled) {
    text_->setHtml(QStringLiteral("<p>Running: new records within the last %1 s.</p>").arg(hangAfter_));
  } else {
    text_->setHtml(hangReportHtml(*state_));
  }
  bool was = alarmed_;
  alarmed_ = stalled || (atEdge && !s->mismatches().mismatches.empty());
  // The window's banner first: whoever listens to alarm() (--dump-on-hang)
  // sees the window as the user does.
  if (alarmed_ != was) emit alarmChanged(alarmed_);
  if (alarmed_ && !was) emit alarm();
}

// ---- barriers ----

BarrierChart::BarrierChart(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  setObjectName("barrierChart");
  connect(state_, &ViewState::snapshotChanged, this, [this] { update(); });
}

void BarrierChart::showInstance(int instance) {
  instance_ = instance;
  update();
}

void BarrierChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  const ViewSnapshot* s = state_->snapshot();
  if (!s) return;
  struct Bar { QString label; TimeNs wait; bool last; };
  std::vector<Bar> bars;
  QString title;
  if (instance_ >= 0 && instance_ < static_cast<int>(s->barriers().instances.size())) {
    const auto& b = s->barriers().instances[static_cast<std::size_t>(instance_)];
    title = QStringLiteral("Barrier `%1` use %2: each task's wait (last to arrive in orange)")
                .arg(QString::fromStdString(std::string(s->trace->str(b.group)))).arg(b.use);
    for (std::size_t i = 0; i < b.visits.size(); ++i)
      bars.push_back({QString::fromStdString(s->trace->label(b.visits[i].task)), b.visits[i].wait(),
                      static_cast<int>(i) == b.lastArrival});
  } else if (s->barriers().instances.empty()) {
    title = "No barrier in this trace (yet): nothing waited in pvm_barrier.";
  } else {
    title = "Total barrier wait per task (select a barrier above for one instance)";
    for (TaskIndex t = 0; t < s->barriers().perTask.size(); ++t)
      bars.push_back({QString::fromStdString(s->trace->label(t)), s->barriers().perTask[t].wait, false});
  }
  p.drawText(QRect(6, 2, width() - 12, 18), Qt::AlignLeft | Qt::AlignVCenter, title);
  if (bars.empty()) return;
  TimeNs most = 1;
  for (const auto& b : bars) most = std::max(most, b.wait);
  // A bar is never lower than a line of text: the bars that do not fit are
  // counted at the bottom instead of drawn over each other.
  const int labelW = 140, top = 22, valueW = 80, line = fontMetrics().height();
  const double h = std::max<double>(line, std::min(22.0, (height() - top - 4) / static_cast<double>(bars.size())));
  std::size_t fit = bars.size();
  if (top + static_cast<double>(bars.size()) * h > height())
    fit = static_cast<std::size_t>(std::max(0.0, (height() - top - line) / h));
  for (std::size_t i = 0; i < fit; ++i) {
    double y = top + static_cast<double>(i) * h;
    p.setPen(Qt::black);
    p.drawText(QRectF(6, y, labelW - 10, h), Qt::AlignVCenter | Qt::AlignLeft, bars[i].label);
    double w = (width() - labelW - valueW) * static_cast<double>(bars[i].wait) / static_cast<double>(most);
    p.fillRect(QRectF(labelW, y + 2, std::max(1.0, w), std::max(1.0, h - 4)),
               bars[i].last ? QColor(0xff, 0x6f, 0x00) : activityColor(Activity::Barrier));
    p.drawText(QRectF(labelW + w + 4, y, valueW, h), Qt::AlignVCenter | Qt::AlignLeft, formatDuration(bars[i].wait));
  }
  if (fit < bars.size())
    p.drawText(QRectF(6, top + static_cast<double>(fit) * h, width() - 12, line), Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("... and %1 more tasks (make the panel taller to see them)").arg(bars.size() - fit));
}

BarrierPanel::BarrierPanel(ViewState* state, QWidget* parent)
    : QWidget(parent), instances_(new BarrierWaitModel(state, this)), totals_(new BarrierTotalsModel(state, this)),
      chart_(new BarrierChart(state, this)) {
  auto* box = new QHBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  auto* split = new QSplitter(Qt::Horizontal);
  auto* tables = new QSplitter(Qt::Vertical);
  auto* inst = makeTable(instances_, tables);
  inst->setObjectName("barrierInstances");
  auto* tot = makeTable(totals_, tables);
  tot->setObjectName("barrierTotals");
  inst->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  tot->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  tables->addWidget(inst);
  tables->addWidget(tot);
  split->addWidget(tables);
  split->addWidget(chart_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  box->addWidget(split);
  connect(inst->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& i) { chart_->showInstance(i.isValid() ? i.row() : -1); });
  connect(tot->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex&) { chart_->showInstance(-1); });
}

// ---- messages ----

MessagesPanel::MessagesPanel(ViewState* state, QWidget* parent)
    : QWidget(parent), matrix_(new MessageMatrixModel(state, this)), pending_(new PendingQueueModel(state, this)) {
  auto* box = new QHBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  auto* left = new QWidget;
  auto* lbox = new QVBoxLayout(left);
  lbox->setContentsMargins(0, 0, 0, 0);
  auto* metric = new QComboBox;
  metric->setObjectName("matrixMetric");
  metric->addItems({"messages", "bytes", "bandwidth (MB/s)"});
  auto* mrow = new QHBoxLayout;
  auto* mlabel = new QLabel("Sender (row) to receiver (column):");
  mlabel->setWordWrap(true);  // the panel shares the window's width with the task table
  mrow->addWidget(mlabel, 1);
  mrow->addWidget(metric);
  lbox->addLayout(mrow);
  auto* mt = makeTable(matrix_, left);
  mt->setObjectName("messageMatrix");
  mt->horizontalHeader()->setStretchLastSection(false);
  lbox->addWidget(mt);
  auto* right = new QWidget;
  auto* rbox = new QVBoxLayout(right);
  rbox->setContentsMargins(0, 0, 0, 0);
  auto* rlabel = new QLabel("Sent and not yet received at this moment:");
  rlabel->setWordWrap(true);
  rbox->addWidget(rlabel);
  auto* pt = makeTable(pending_, right);
  pt->setObjectName("pendingQueue");
  rbox->addWidget(pt);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(left);
  split->addWidget(right);
  box->addWidget(split);
  connect(metric, &QComboBox::currentIndexChanged, this,
          [this](int i) { matrix_->setMetric(static_cast<MessageMatrixModel::Metric>(i)); });
  connect(pt, &QTableView::clicked, this, [this, state](const QModelIndex& i) {
    state->select(pending_->data(i, PendingQueueModel::PositionRole).toULongLong());
  });
  setActive(false);  // until shown: a tab behind another, or a window not yet shown
}

// Both models sweep every message at each snapshot and position: only
// while the panel is on screen; shown again, they catch up at once.
void MessagesPanel::setActive(bool active) {
  matrix_->setActive(active);
  pending_->setActive(active);
}

void MessagesPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  setActive(true);
}

void MessagesPanel::hideEvent(QHideEvent* e) {
  QWidget::hideEvent(e);
  setActive(false);
}

std::uint64_t MessagesPanel::computations() const { return matrix_->computations() + pending_->computations(); }

// ---- input errors ----

namespace {

// The per-host collection figures (the model's hostFigures, as abstat's
// Hosts table): only when the trace has several hosts or a relay.
QStringList hostLines(const Trace& trace) {
  auto hosts = hostFigures(trace);
  bool relays = std::any_of(hosts.begin(), hosts.end(), [](const HostFigures& h) { return h.relay; });
  if (hosts.size() < 2 && !relays) return {};
  QStringList lines{"", "Hosts (how the records were collected):"};
  for (const HostFigures& h : hosts) {
    QString line = QStringLiteral("%1: %2 tasks, %3 records, %4 lost; ")
                       .arg(h.host.empty() ? QStringLiteral("?") : QString::fromStdString(h.host))
                       .arg(h.tasks).arg(h.events).arg(h.lost);
    line += h.relay ? QStringLiteral("by its relay, %1 batches of %2 records").arg(h.batches).arg(h.relayed)
                    : QStringLiteral("by abmon");
    if (h.deleted) line += h.how == "lost" ? "; its pvmd died (lost)" : "; it left the virtual machine";
    lines << line;
  }
  return lines;
}

}  // namespace

InputPanel::InputPanel(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  text_ = new QPlainTextEdit;
  text_->setObjectName("inputErrors");
  text_->setReadOnly(true);
  box->addWidget(text_);
  connect(state_, &ViewState::snapshotChanged, this, &InputPanel::refresh);
  refresh();
}

void InputPanel::setFailure(const QString& message) {
  failure_ = message;
  refresh();
}

void InputPanel::refresh() {
  const ViewSnapshot* s = state_->snapshot();
  QStringList lines;
  if (!failure_.isEmpty()) lines << "Cannot read the input: " + failure_;
  if (s) {
    lines << QStringLiteral("Source: %1, %2 bytes, %3 records%4")
                 .arg(QString::fromStdString(s->source)).arg(s->bytes).arg(s->size())
                 .arg(s->inputEnded ? ", input ended" : ", still reading");
    if (!s->fatal.empty()) lines << "Stopped reading: " + QString::fromStdString(s->fatal);
    if (s->errorCount == 0) lines << "No malformed lines.";
    for (const auto& e : s->errors)
      lines << QStringLiteral("line %1: %2").arg(e.line).arg(QString::fromStdString(e.reason));
    if (s->errorCount > s->errors.size())
      lines << QStringLiteral("... and %1 more").arg(s->errorCount - s->errors.size());
    lines << hostLines(*s->trace);
  }
  text_->setPlainText(lines.join('\n'));
}

QString InputPanel::text() const { return text_->toPlainText(); }

}  // namespace xab::view
