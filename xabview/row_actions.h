// row_actions.h -- rows you control (row_plan.h): View > Rows and the
// diagram's context menu.  Fold tasks by name or by host, one row per
// task, filter the rows by a text, show every task again; on a row: hide
// its task (or a folded row's tasks), unfold a folded row, fold a task's
// group again, move a row up or down.  Each changes the shared state's RowChoice.
#pragma once

#include "view_state.h"

#include <QList>

#include <optional>

class QAction;
class QMenu;
class QWidget;

namespace xab::view {

// View > Rows: owned by `parent`; object names foldByName, foldByHost,
// foldNone, filterRows, showEveryTask.
QList<QAction*> rowActions(ViewState* state, QWidget* parent);

// The actions on one row of the diagram (`row` in `layout`'s rows), added
// to `menu`: Move up, Move down (also by dragging its name), Hide,
// Unfold / Fold again.
void addRowMenu(QMenu* menu, ViewState* state, TaskIndex row);

// Moves the row `from` to `to` (the diagram's rows, folded ones too); false
// if either is not a row or they are the same.
bool moveRow(ViewState* state, TaskIndex from, TaskIndex to);

// Unfolds the folded row `row`; false if it is not one.
bool unfoldRow(ViewState* state, TaskIndex row);

}  // namespace xab::view
