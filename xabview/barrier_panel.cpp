// The barrier tab: the waits per use and per task, and their chart.
#include "panels.h"

#include "activity.h"
#include "panel_table.h"

#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QPainter>
#include <QSplitter>

#include <algorithm>

namespace xab::view {

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
  const BarrierChartData chart = barrierChartData(*s, instance_);
  const auto& bars = chart.bars;
  // The title in as many lines as the width needs, the bars under it.
  const QRect title = fontMetrics().boundingRect(QRect(6, 2, std::max(1, width() - 12), 1000),
                                                 Qt::AlignLeft | Qt::TextWordWrap, chart.title);
  p.drawText(QRect(6, 2, width() - 12, std::max(18, title.height())), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
             chart.title);
  if (bars.empty()) return;
  // A bar is never lower than a line of text: the bars that do not fit are
  // counted at the bottom instead of drawn over each other.
  const int labelW = 140, top = std::max(22, title.height() + 6), valueW = 80, line = fontMetrics().height();
  const double h = std::max<double>(line, std::min(22.0, (height() - top - 4) / static_cast<double>(bars.size())));
  std::size_t fit = bars.size();
  if (top + static_cast<double>(bars.size()) * h > height())
    fit = static_cast<std::size_t>(std::max(0.0, (height() - top - line) / h));
  for (std::size_t i = 0; i < fit; ++i) {
    double y = top + static_cast<double>(i) * h;
    p.setPen(Qt::black);
    p.drawText(QRectF(6, y, labelW - 10, h), Qt::AlignVCenter | Qt::AlignLeft, bars[i].label);
    double w = (width() - labelW - valueW) * static_cast<double>(bars[i].wait) / static_cast<double>(chart.most);
    p.fillRect(QRectF(labelW, y + 2, std::max(1.0, w), std::max(1.0, h - 4)),
               bars[i].last ? QColor(0xff, 0x6f, 0x00) : activityColor(Activity::Barrier));
    p.drawText(QRectF(labelW + w + 4, y, valueW, h), Qt::AlignVCenter | Qt::AlignLeft, bars[i].value);
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

}  // namespace xab::view
