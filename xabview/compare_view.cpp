// A second run beside the first, and the Compare tab (compare_view.h).
#include "compare_view.h"

#include "diagram_view.h"
#include "input_session.h"
#include "panel_table.h"

#include <QFileInfo>
#include <QLabel>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace xab::view {

CompareView::CompareView(ViewState* first, TraceLoader::Options second, QWidget* parent)
    : QWidget(parent), first_(first), second_(new ViewState(this)), file_(second.path) {
  setObjectName("compareView");
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->setSpacing(1);
  title_ = new QLabel(QStringLiteral("Second run: %1, aligned at its first task record")
                          .arg(QFileInfo(file_).fileName()));
  title_->setObjectName("compareTitle");
  title_->setToolTip(file_);
  diagram_ = new DiagramView(second_);
  box->addWidget(title_);
  box->addWidget(diagram_, 1);
  second.follow = false;  // a finished run: read once
  input_ = new InputSession(second_, second, this);
  connect(first_, &ViewState::rangeChanged, this, [this] { follow(*first_, *second_, shift()); });
  connect(second_, &ViewState::rangeChanged, this, [this] { follow(*second_, *first_, -shift()); });
  connect(second_, &ViewState::snapshotChanged, this, [this] { follow(*first_, *second_, shift()); });
  input_->start();
}

CompareView::~CompareView() { input_->stop(); }

TimeNs CompareView::shift() const {
  const ViewSnapshot* a = first_->snapshot();
  const ViewSnapshot* b = second_->snapshot();
  return a && b ? b->tasksBegin - a->tasksBegin : 0;
}

void CompareView::follow(const ViewState& from, ViewState& to, TimeNs shift) {
  if (syncing_ || !from.snapshot() || !to.snapshot()) return;
  syncing_ = true;
  to.setViewRange(from.viewBegin() + shift, from.viewEnd() + shift);
  syncing_ = false;
}

ComparePanel::ComparePanel(ViewState* first, QWidget* parent)
    : QWidget(parent), first_(first), model_(new CompareModel(this)) {
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  summary_ = new QLabel("No second run: File > Compare with... (or xabview --compare FILE) opens one beside this.");
  summary_->setObjectName("compareSummary");
  summary_->setWordWrap(true);
  table_ = makeTable(model_, this);
  table_->setObjectName("compareTable");
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  box->addWidget(summary_);
  box->addWidget(table_, 1);
  connect(first_, &ViewState::snapshotChanged, this, &ComparePanel::recompute);
  connect(&watcher_, &QFutureWatcher<RunComparison>::finished, this, [this] {
    model_->setComparison(watcher_.result());
    summary_->setText(compareSummary(model_->comparison()).join('\n'));
    shownA_ = pendingA_;
    shownB_ = pendingB_;
    ready_ = true;
    emit compared();
    recompute();  // either run may have changed meanwhile
  });
}

void ComparePanel::setSecond(ViewState* second) {
  second_ = second;
  connect(second_, &ViewState::snapshotChanged, this, &ComparePanel::recompute);
  summary_->setText("Reading the second run...");
  recompute();
}

void ComparePanel::recompute() {
  if (!second_ || watcher_.isRunning()) return;
  const ViewSnapshot* a = first_->snapshot();
  const ViewSnapshot* b = second_->snapshot();
  // Runs read whole only: a comparison of part of a run would mislead.
  if (!a || !b || !a->inputEnded || !b->inputEnded || !a->trace || !b->trace) return;
  if (a->trace == shownA_ && b->trace == shownB_) return;
  ready_ = false;
  pendingA_ = a->trace;
  pendingB_ = b->trace;
  summary_->setText("Comparing the two runs...");
  watcher_.setFuture(QtConcurrent::run(compareTraces, pendingA_, pendingB_));
}

QString ComparePanel::text() const {
  QStringList lines{summary_->text()};
  for (int r = 0; r < model_->rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < CompareModel::ColumnCount; ++c) cells << model_->index(r, c).data().toString();
    lines << cells.join(" | ");
  }
  return lines.join('\n');
}

}  // namespace xab::view
