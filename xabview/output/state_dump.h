// state_dump.h -- the models' state as JSON, for tests and scripts
// (`xabview --dump-state FILE`): what every view would show at the current
// replay position.
#pragma once

#include "view_state.h"

#include <QJsonObject>

namespace xab::view {

QJsonObject dumpState(const ViewState& state);

}  // namespace xab::view
