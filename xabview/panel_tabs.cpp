#include "panel_tabs.h"

#include <QEvent>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace xab::view {

// The buttons, placed line by line as the width allows.
class PanelTabFlow : public QWidget {
 public:
  explicit PanelTabFlow(QWidget* parent) : QWidget(parent) { setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed); }
  std::vector<QToolButton*> buttons;

  // Where each button goes at this width.
  std::vector<QRect> place(int width) const {
    std::vector<QRect> out;
    int x = 0, y = 0, line = 0;
    for (const QToolButton* b : buttons) {
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
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override {
    int bottom = 0;
    for (const QRect& r : place(width)) bottom = std::max(bottom, r.bottom() + 1);
    return bottom;
  }
  QSize sizeHint() const override {
    int w = 0;
    for (const QToolButton* b : buttons) w += b->sizeHint().width();
    return {w, heightForWidth(w)};
  }
  QSize minimumSizeHint() const override {
    int w = 0;  // the widest button: each on a line of its own
    for (const QToolButton* b : buttons) w = std::max(w, b->sizeHint().width());
    return {w, height()};
  }
  void relayout() {
    const auto rects = place(width());
    for (std::size_t i = 0; i < buttons.size(); ++i) buttons[i]->setGeometry(rects[i]);
    // More lines or fewer: the layout gives the panels what is left.  Not
    // before the window is shown: a widget not laid out yet is 100 pixels
    // wide, and its ten lines would make the window taller than asked.
    const int h = isVisible() ? heightForWidth(width()) : (buttons.empty() ? 0 : buttons.front()->sizeHint().height());
    if (h != height() || h != minimumHeight()) setFixedHeight(h);
  }

 protected:
  bool event(QEvent* e) override {
    if (e->type() == QEvent::Resize || e->type() == QEvent::FontChange || e->type() == QEvent::Show) relayout();
    return QWidget::event(e);
  }
};

PanelTabs::PanelTabs(QWidget* parent) : QWidget(parent) {
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->setSpacing(0);
  flow_ = new PanelTabFlow(this);
  flow_->setObjectName("panelTabs");
  stack_ = new QStackedWidget(this);
  // Less than the tallest panel asks: at 800x500 the tabs' second line
  // comes out of the panels, not out of the window's height.
  stack_->setMinimumHeight(70);
  box->addWidget(flow_);
  box->addWidget(stack_, 1);
  connect(stack_, &QStackedWidget::currentChanged, this, [this](int current) {
    for (std::size_t i = 0; i < flow_->buttons.size(); ++i) flow_->buttons[i]->setChecked(static_cast<int>(i) == current);
    emit currentChanged(current);
  });
}

void PanelTabs::addTab(QWidget* panel, const QString& text, const QString& name) {
  const int i = stack_->addWidget(panel);
  auto* b = new QToolButton(flow_);
  b->setObjectName("panelTab-" + name);
  b->setText(text);
  b->setCheckable(true);
  b->setAutoRaise(true);
  b->setChecked(i == stack_->currentIndex());
  connect(b, &QToolButton::clicked, this, [this, i] { setCurrentIndex(i); });
  flow_->buttons.push_back(b);
  flow_->relayout();
}

int PanelTabs::count() const { return stack_->count(); }
int PanelTabs::currentIndex() const { return stack_->currentIndex(); }
QWidget* PanelTabs::currentWidget() const { return stack_->currentWidget(); }
QToolButton* PanelTabs::tabButton(int i) const {
  return i >= 0 && i < static_cast<int>(flow_->buttons.size()) ? flow_->buttons[static_cast<std::size_t>(i)] : nullptr;
}

void PanelTabs::setCurrentIndex(int i) {
  stack_->setCurrentIndex(i);
  if (QToolButton* b = tabButton(stack_->currentIndex())) b->setChecked(true);  // a click on the current one keeps it
}
void PanelTabs::setCurrentWidget(QWidget* panel) { setCurrentIndex(stack_->indexOf(panel)); }

}  // namespace xab::view
