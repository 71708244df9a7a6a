// The Why-slow tab: the causes ranked, the report, the highlights.
#include "panels.h"

#include "panel_table.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace xab::view {

WhyPanel::WhyPanel(ViewState* state, QWidget* parent)
    : QWidget(parent), state_(state), model_(new WhyCauseModel(state, this)) {
  auto* box = new QHBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  auto* split = new QSplitter(Qt::Horizontal);
  table_ = makeTable(model_, split);
  table_->setObjectName("whyCauses");
  table_->setToolTip("Select a cause: its waits in red, its work during them in blue on the diagram; "
                     "double-click to zoom to them");
  // The figures whole; the cause and its pattern take what is left (cut,
  // whole in the tool tip): no horizontal scroll bar, even at 800x500.
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(WhyCauseModel::TaskCol, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(WhyCauseModel::PatternCol, QHeaderView::Stretch);
  table_->horizontalHeader()->setMinimumSectionSize(table_->fontMetrics().horizontalAdvance("(xab…"));
  auto* right = new QWidget;
  auto* column = new QVBoxLayout(right);
  column->setContentsMargins(0, 0, 0, 0);
  critical_ = new QCheckBox("Draw the &critical path");
  critical_->setObjectName("whyCriticalPath");
  critical_->setToolTip("The chain of work and messages that decides the run's end, as a line over the diagram");
  text_ = new QPlainTextEdit;
  text_->setObjectName("whyText");
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  text_->setMinimumHeight(20);
  column->addWidget(critical_);
  column->addWidget(text_, 1);
  split->addWidget(table_);
  split->addWidget(right);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  box->addWidget(split);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& i) { chooseCause(i.isValid() ? i.row() : -1); });
  connect(table_, &QTableView::doubleClicked, this, &WhyPanel::zoomToCause);
  connect(critical_, &QCheckBox::toggled, this, &WhyPanel::setCriticalPath);
  connect(state_, &ViewState::snapshotChanged, this, &WhyPanel::refresh);
  refresh();
}

QString WhyPanel::text() const { return text_->toPlainText(); }

void WhyPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  state_->wantWhy();
}

void WhyPanel::refresh() {
  const ViewSnapshot* s = state_->snapshot();
  const QString t = s && s->analysis ? whyReportLines(*s).join('\n') : QString("No trace yet.");
  if (t != text_->toPlainText()) text_->setPlainText(t);
  highlight();
}

void WhyPanel::setCriticalPath(bool on) {
  if (on) state_->wantWhy();
  if (critical_->isChecked() != on) critical_->setChecked(on);  // toggled() comes back here
  else highlight();
}

void WhyPanel::chooseCause(int row) {
  const ViewSnapshot* s = state_->snapshot();
  chosen_.reset();
  if (s && s->analysis && row >= 0 && static_cast<std::size_t>(row) < s->why().causes.size()) {
    const WaitCause& c = s->why().causes[static_cast<std::size_t>(row)];
    chosen_ = std::pair{c.task, c.pattern};
  }
  highlight();
}

void WhyPanel::highlight() {
  const ViewSnapshot* s = state_->snapshot();
  std::vector<Highlight> h;
  if (s && s->analysis) {
    if (chosen_) {
      const auto& causes = s->why().causes;
      auto it = std::find_if(causes.begin(), causes.end(), [&](const WaitCause& c) {
        return c.task == chosen_->first && c.pattern == chosen_->second;
      });
      if (it != causes.end()) h = causeHighlights(*s, static_cast<std::size_t>(it - causes.begin()));
    }
    if (critical_->isChecked()) {
      auto path = criticalPathHighlights(*s);
      h.insert(h.end(), path.begin(), path.end());
    }
  }
  state_->setHighlights(std::move(h));
}

void WhyPanel::zoomToCause() {
  TimeNs begin = 0, end = 0;
  for (const Highlight& h : state_->highlights()) {
    if (h.kind != Highlight::Wait) continue;
    if (begin == end) begin = h.begin, end = h.end;
    begin = std::min(begin, h.begin);
    end = std::max(end, h.end);
  }
  if (end <= begin) return;
  const TimeNs margin = (end - begin) / 10 + 1;
  state_->setViewRange(begin - margin, end + margin);
}

}  // namespace xab::view
