// layer_actions.h -- View > Show: switches for what the diagram draws over
// the bars: message lines (with the dangling arrows of messages not
// received), barrier bands, marks and the hosts' load strips.  Each is a
// checkable action, on at start.
#pragma once

#include <QList>

class QAction;

namespace xab::view {

class DiagramView;

// Actions owned by `diagram`; object names showMessages, showBarriers,
// showMarks, showLoadStrips.
QList<QAction*> diagramLayerActions(DiagramView* diagram);

}  // namespace xab::view
