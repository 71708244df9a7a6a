// layer_actions.h -- View > Show: switches for what the diagram draws over
// the bars: message lines (with the dangling arrows of messages not
// received) and barrier bands.  Each is a checkable action, on at start.
#pragma once

#include <QList>

class QAction;

namespace xab::view {

class DiagramView;

// Actions owned by `diagram`; object names showMessages, showBarriers.
QList<QAction*> diagramLayerActions(DiagramView* diagram);

}  // namespace xab::view
