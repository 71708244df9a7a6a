// The hang tab: the diagnosis (hang_report.cpp), and the alarm when progress stops.
#include "panels.h"

#include <QTextBrowser>
#include <QTimer>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace xab::view {

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

}  // namespace xab::view
