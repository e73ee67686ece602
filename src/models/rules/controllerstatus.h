#pragma once

#include "models/runcontroller.h"

#include "core/runrecord.h"

#include <QString>

namespace kiln {

// A run controller's state as the window tells it: the word in the status bar and the progress
// line, and the run status the shown run takes while the controller pushes its growth.
class ControllerStatus
{
public:
    static QString name(RunController::State state);
    // Starting, running and stopping all read as running; queued too.
    static RunRecord::Status recordStatus(RunController::State state);
};

} // namespace kiln
