// panel_table.h -- the table the barrier and message panels show their
// models in.
#pragma once

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QTableView>

namespace xab::view {

inline QTableView* makeTable(QAbstractItemModel* model, QWidget* parent) {
  auto* t = new QTableView(parent);
  t->setModel(model);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  t->verticalHeader()->setDefaultSectionSize(20);
  t->horizontalHeader()->setStretchLastSection(true);
  t->setWordWrap(false);
  t->setMinimumHeight(40);  // two tables share a panel: a small window keeps the diagram readable
  return t;
}

}  // namespace xab::view
