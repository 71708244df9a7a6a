// The Network tab (network_view.h).
#include "network_view.h"

#include "panel_words.h"

#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>
#include <numbers>

namespace xab::view {

NetworkView::NetworkView(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  setObjectName("networkView");
  setMinimumSize(120, 40);  // a small window keeps the diagram readable
  auto stale = [this] {
    stale_ = true;
    if (isVisible()) update();
  };
  connect(state_, &ViewState::snapshotChanged, this, stale);
  connect(state_, &ViewState::positionChanged, this, stale);
}

void NetworkView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  stale_ = true;
}

void NetworkView::refresh() {
  if (!stale_) return;
  picture_ = networkAt(*state_);
  stale_ = false;
}

QRectF NetworkView::boxOf(std::size_t host) const {
  const std::size_t n = picture_.hosts.size();
  const QSizeF box(std::min(160.0, width() / 3.0), 44);
  const QPointF centre(width() / 2.0, height() / 2.0);
  const double rx = std::max(0.0, width() / 2.0 - box.width() / 2 - 6), ry = std::max(0.0, height() / 2.0 - box.height() / 2 - 6);
  const double angle = n <= 1 ? 0 : 2 * std::numbers::pi * static_cast<double>(host) / static_cast<double>(n) - std::numbers::pi / 2;
  const QPointF at = n <= 1 ? centre : centre + QPointF(rx * std::cos(angle), ry * std::sin(angle));
  return QRectF(at - QPointF(box.width() / 2, box.height() / 2), box);
}

std::optional<std::size_t> NetworkView::hostAt(QPointF p) const {
  for (std::size_t h = 0; h < picture_.hosts.size(); ++h)
    if (boxOf(h).contains(p)) return h;
  return std::nullopt;
}

void NetworkView::paintEvent(QPaintEvent*) {
  refresh();
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (picture_.hosts.empty()) {
    p.drawText(rect(), Qt::AlignCenter, "No hosts yet.");
    return;
  }
  p.setRenderHint(QPainter::Antialiasing, true);
  for (const NetworkLink& l : picture_.links) {
    const double share = picture_.maxBandwidth > 0 ? l.bandwidth / picture_.maxBandwidth : 0;
    p.setPen(QPen(QColor(0x50, 0x50, 0x50, 180), 1 + 7 * share, Qt::SolidLine, Qt::RoundCap));
    p.drawLine(boxOf(l.from).center(), boxOf(l.to).center());
  }
  for (std::size_t h = 0; h < picture_.hosts.size(); ++h) {
    const NetworkHost& host = picture_.hosts[h];
    const QRectF r = boxOf(h);
    p.setPen(QPen(Qt::black, 1));
    p.setBrush(activityColor(host.state()).lighter(130));
    p.drawRoundedRect(r, 4, 4);
    if (host.load >= 0 && host.cpus > 0) {  // the load bar: full at one task per CPU, red past it
      const double share = host.load / host.cpus;
      QRectF bar(r.left() + 4, r.bottom() - 8, (r.width() - 8) * std::min(1.0, share), 4);
      p.fillRect(bar, share > 1 ? QColor(0xc6, 0x28, 0x28) : QColor(0x30, 0x30, 0x30));
    }
    p.drawText(r.adjusted(4, 2, -4, -10), Qt::AlignCenter | Qt::TextWordWrap,
               QStringLiteral("%1\n%2 task%3%4")
                   .arg(host.name)
                   .arg(host.tasks.size())
                   .arg(host.tasks.size() == 1 ? "" : "s")
                   .arg(host.load >= 0 ? QStringLiteral(", load %1").arg(host.load, 0, 'f', 1) : QString()));
  }
}

void NetworkView::mousePressEvent(QMouseEvent* e) {
  refresh();
  if (auto h = hostAt(e->position())) emit hostChosen(*h);
}

NetworkPanel::NetworkPanel(ViewState* state, QWidget* parent) : QWidget(parent), state_(state) {
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(2, 2, 2, 2);
  auto* split = new QSplitter(Qt::Horizontal);
  view_ = new NetworkView(state_);
  tasks_ = new QLabel("Click a host to list its tasks.");
  tasks_->setObjectName("networkTasks");
  tasks_->setWordWrap(true);
  tasks_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  tasks_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  split->addWidget(view_);
  split->addWidget(tasks_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  box->addWidget(split);
  connect(view_, &NetworkView::hostChosen, this, &NetworkPanel::chooseHost);
  auto again = [this] {
    if (chosen_ && isVisible()) chooseHost(*chosen_);
  };
  connect(state_, &ViewState::positionChanged, this, again);
}

void NetworkPanel::chooseHost(std::size_t host) {
  const NetworkPicture picture = networkAt(*state_);
  const ViewSnapshot* s = state_->snapshot();
  if (!s || host >= picture.hosts.size()) return;
  chosen_ = host;
  const NetworkHost& h = picture.hosts[host];
  QStringList lines{describeHost(h)};
  for (TaskIndex t : h.tasks) lines << QStringLiteral("  %1 %2: %3").arg(label(*s, t), QString::fromStdString(formatTid(s->trace->task(t).tid)), describeTask(*state_, t).text);
  for (const NetworkLink& l : picture.links)
    if (l.from == host || l.to == host)
      lines << QStringLiteral("  %1 %2: %3 messages, %4 bytes")
                   .arg(l.from == host ? "to" : "from", picture.hosts[l.from == host ? l.to : l.from].name)
                   .arg(l.messages)
                   .arg(l.bytes);
  tasks_->setText(lines.join('\n'));
}

QString NetworkPanel::tasksText() const { return tasks_->text(); }

}  // namespace xab::view
