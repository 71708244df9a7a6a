#include "layer_actions.h"

#include "diagram_view.h"

#include <QAction>

namespace xab::view {

QList<QAction*> diagramLayerActions(DiagramView* diagram) {
  struct Layer { const char* text; const char* name; bool DiagramOptions::* flag; const char* tip; };
  const Layer layers[] = {
      {"Message lines", "showMessages", &DiagramOptions::messages,
       "Lines from each send to its receive, and dashed arrows for messages not received at the replay position"},
      {"Barrier bands", "showBarriers", &DiagramOptions::barriers, "A translucent band per barrier instance"},
      {"Marks", "showMarks", &DiagramOptions::marks, "User marks (xab_mark): a flag and a tick on the task's row"},
      {"Load strips", "showLoadStrips", &DiagramOptions::loadStrips,
       "Under each host's rows, its load per CPU from the clock-driven samples (none without them)"},
  };
  QList<QAction*> out;
  for (const auto& l : layers) {
    auto* a = new QAction(l.text, diagram);
    a->setObjectName(l.name);
    a->setToolTip(l.tip);
    a->setCheckable(true);
    a->setChecked(diagram->layers().*l.flag);
    QObject::connect(a, &QAction::toggled, diagram, [diagram, flag = l.flag](bool on) {
      DiagramOptions o = diagram->layers();
      o.*flag = on;
      diagram->setLayers(o);
    });
    out.append(a);
  }
  return out;
}

}  // namespace xab::view
