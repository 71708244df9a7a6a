// The input tab: what was read, malformed lines, and per-host collection
// (their text: the models' inputReportLines).
#include "panels.h"

#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace xab::view {

// ---- input errors ----

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
  text_->setPlainText(inputReportLines(state_->snapshot(), failure_).join('\n'));
}

QString InputPanel::text() const { return text_->toPlainText(); }

}  // namespace xab::view
