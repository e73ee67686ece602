#pragma once

#include "models/runcontroller.h"

#include "core/candidatesummary.h"
#include "core/runrecord.h"

#include <QString>
#include <optional>

namespace kiln {

// Which of the Run menu's actions may be used, from the shown run, the controller growing it in
// this window (if any) and the selected candidate. The window only enables what this says.
struct RunActionState
{
    bool pause = false;
    bool resume = false;
    bool stop = false;
    bool continueRun = false; // resume a stopped (or interrupted) search run
    bool editCopy = false;

    // `liveState`: the state of this window's controller of the shown run while it is live
    // (nullopt: none, or it ended); `shown` the run on screen (nullptr: none); `selected` the
    // selected candidate's row (nullptr: none selected).
    static RunActionState of(std::optional<RunController::State> liveState, const RunRecord *shown,
                             const CandidateSummary *selected);
    // An editable copy needs a stored candidate of a search run.
    static bool canEditCopy(const RunRecord *shown, const CandidateSummary *selected);
    static QString editCopyRefusal();
};

} // namespace kiln
