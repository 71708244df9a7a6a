// The event log's view: a million rows with no per-row data; where rows
// are, scrolling to them, selecting them, keys, rows arriving.
#include "event_log_view.h"

#include <QAbstractTableModel>
#include <QHeaderView>
#include <QImage>
#include <QItemSelectionModel>
#include <QScrollBar>
#include <QTest>

#include <catch2/catch.hpp>

using namespace xab::view;

namespace {

class Rows : public QAbstractTableModel {
 public:
  explicit Rows(int n) : n_(n) {}
  int rowCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : n_; }
  int columnCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : 3; }
  QVariant data(const QModelIndex& i, int role) const override {
    return role == Qt::DisplayRole ? QVariant(QStringLiteral("r%1c%2").arg(i.row()).arg(i.column())) : QVariant();
  }
  QVariant headerData(int s, Qt::Orientation o, int role) const override {
    return o == Qt::Horizontal && role == Qt::DisplayRole ? QVariant(QStringLiteral("col %1").arg(s)) : QVariant();
  }
  void grow(int more) {
    beginInsertRows({}, n_, n_ + more - 1);
    n_ += more;
    endInsertRows();
  }
 private:
  int n_;
};

}  // namespace

TEST_CASE("event log view: a million rows, placed by arithmetic, scrolled to, selected, stepped by keys") {
  Rows model(1'000'000);
  EventLogView view;
  view.resize(600, 400);
  view.setModel(&model);
  view.show();
  REQUIRE(QTest::qWaitForWindowExposed(&view));
  const int h = view.rowHeight(), n = view.visibleRows();
  REQUIRE(n > 5);
  // The only header is the columns': nothing is kept per row.
  auto headers = view.findChildren<QHeaderView*>();
  REQUIRE(headers.size() == 1);
  CHECK(headers[0]->orientation() == Qt::Horizontal);
  CHECK(headers[0]->count() == 3);
  CHECK(view.verticalScrollBar()->maximum() == 1'000'000 - n);

  CHECK(view.indexAt(QPoint(5, 3 * h + 1)) == model.index(3, 0));
  CHECK(view.visualRect(model.index(3, 1)).top() == 3 * h);
  CHECK(view.visualRect(model.index(3, 1)).left() == headers[0]->sectionViewportPosition(1));

  view.scrollTo(model.index(500'000, 0), QAbstractItemView::PositionAtCenter);
  CHECK(view.firstVisibleRow() == 500'000 - n / 2);
  QRect r = view.visualRect(model.index(500'000, 2));
  CHECK(view.viewport()->rect().contains(r.center()));
  CHECK(view.indexAt(r.center()) == model.index(500'000, 2));
  view.scrollTo(model.index(499'000, 0));  // above: it comes to the top
  CHECK(view.firstVisibleRow() == 499'000);
  view.scrollTo(model.index(499'000 + n + 10, 0));  // below: to the bottom
  CHECK(view.firstVisibleRow() == 499'000 + 11);

  view.selectRow(42);
  CHECK(view.currentIndex().row() == 42);
  CHECK(view.selectionModel()->isRowSelected(42, {}));
  view.setFocus();
  QTest::keyClick(&view, Qt::Key_PageDown);
  CHECK(view.currentIndex().row() == 42 + n);
  QTest::keyClick(&view, Qt::Key_Down);
  CHECK(view.currentIndex().row() == 43 + n);
  CHECK(view.selectionModel()->isRowSelected(43 + n, {}));
  CHECK_FALSE(view.selectionModel()->isRowSelected(42, {}));
  QTest::keyClick(&view, Qt::Key_End);
  CHECK(view.currentIndex().row() == 999'999);
  CHECK(view.firstVisibleRow() + n > 999'999);  // and it is in sight

  // Clicking a row selects it.
  view.scrollTo(model.index(0, 0), QAbstractItemView::PositionAtTop);
  QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(10, 2 * h + h / 2));
  CHECK(view.currentIndex().row() == 2);

  // Rows that arrive extend the scroll range; the picture has the text.
  model.grow(1000);
  CHECK(view.verticalScrollBar()->maximum() == 1'001'000 - n);
  view.scrollToBottom();
  CHECK(view.firstVisibleRow() == 1'001'000 - n);
  QImage shot = view.grab().toImage();
  CHECK_FALSE(shot.isNull());
}
