#include "panel_tabs.h"

#include <QEvent>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>

namespace xab::view {

PanelTabs::PanelTabs(QTabWidget* tabs, const QStringList& names, QWidget* parent) : QWidget(parent), tabs_(tabs) {
  setObjectName("panelTabs");
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  tabs_->tabBar()->hide();
  for (int i = 0; i < tabs_->count(); ++i) {
    auto* b = new QToolButton(this);
    b->setObjectName("panelTab-" + names.value(i, QString::number(i)));
    b->setText(tabs_->tabText(i));
    b->setToolTip(tabs_->tabToolTip(i));
    b->setCheckable(true);
    b->setAutoRaise(true);
    b->setChecked(i == tabs_->currentIndex());
    connect(b, &QToolButton::clicked, this, [this, i] {
      tabs_->setCurrentIndex(i);
      buttons_[static_cast<std::size_t>(i)]->setChecked(true);
    });
    buttons_.push_back(b);
  }
  connect(tabs_, &QTabWidget::currentChanged, this, [this](int current) {
    for (std::size_t i = 0; i < buttons_.size(); ++i) buttons_[i]->setChecked(static_cast<int>(i) == current);
  });
}

std::vector<QRect> PanelTabs::place(int width) const {
  std::vector<QRect> out;
  int x = 0, y = 0, line = 0;
  for (const QToolButton* b : buttons_) {
    const QSize s = b->sizeHint();
    if (x > 0 && x + s.width() > width) {
      x = 0;
      y += line;
      line = 0;
    }
    out.emplace_back(QPoint(x, y), s);
    x += s.width();
    line = std::max(line, s.height());
  }
  return out;
}

int PanelTabs::heightForWidth(int width) const {
  int bottom = 0;
  for (const QRect& r : place(width)) bottom = std::max(bottom, r.bottom() + 1);
  return bottom;
}

QSize PanelTabs::sizeHint() const {
  int w = 0;
  for (const QToolButton* b : buttons_) w += b->sizeHint().width();
  return {w, heightForWidth(w)};
}

QSize PanelTabs::minimumSizeHint() const {
  int w = 0;  // the widest button: each on a line of its own
  for (const QToolButton* b : buttons_) w = std::max(w, b->sizeHint().width());
  return {w, heightForWidth(width() > 0 ? width() : sizeHint().width())};
}

bool PanelTabs::event(QEvent* e) {
  if (e->type() == QEvent::Resize || e->type() == QEvent::FontChange || e->type() == QEvent::Polish) {
    const auto rects = place(width());
    for (std::size_t i = 0; i < buttons_.size(); ++i) buttons_[i]->setGeometry(rects[i]);
    // More lines or fewer: the layout gives the panels what is left.
    if (const int h = heightForWidth(width()); h != height()) setFixedHeight(h);
  }
  return QWidget::event(e);
}

}  // namespace xab::view
