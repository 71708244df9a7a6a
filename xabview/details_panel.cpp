#include "details_panel.h"

#include "details_text.h"

#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace xab::view {

DetailsPanel::DetailsPanel(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  text_ = new QTextBrowser;
  text_->setObjectName("detailsText");
  text_->setOpenLinks(false);
  box->addWidget(text_);
  connect(text_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
    if (url.scheme() == "event") state_->select(url.path().toULongLong());
  });
  for (auto sig : {&ViewState::snapshotChanged, &ViewState::positionChanged, &ViewState::selectionChanged})
    connect(state_, sig, this, &DetailsPanel::refresh);
}

void DetailsPanel::setRange(TimeNs from, TimeNs to) {
  range_.from = std::min(from, to);
  range_.to = std::max(from, to);
  stale_ = true;
  refresh();
}

// The range's statistics cost the spans and messages in it: only when seen.
void DetailsPanel::refresh() {
  stale_ = true;
  if (!isVisible()) return;
  stale_ = false;
  if (range_.to > range_.from) range_ = rangeStats(*state_, range_.from, range_.to);
  text_->setHtml(selectionHtml(*state_) + "<hr>" + rangeHtml(*state_, range_));
}

void DetailsPanel::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (stale_) refresh();
}

QString DetailsPanel::text() const { return text_->toPlainText(); }

}  // namespace xab::view
