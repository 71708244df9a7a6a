// The messages tab: the sender x receiver matrix and the queues.
#include "panels.h"

#include "panel_table.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace xab::view {

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
  // Columns as wide as their names and counts, not a default 100 pixels.
  mt->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
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
  split->setStretchFactor(0, 3);  // the matrix first: the queue is a list
  split->setStretchFactor(1, 1);
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

}  // namespace xab::view
