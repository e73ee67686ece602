#include "models/rules/runactionstate.h"

namespace kiln {

namespace {

bool isSearchRun(const RunRecord *run)
{
    return run && run->kind == QLatin1String("search");
}

} // namespace

RunActionState RunActionState::of(std::optional<RunController::State> liveState,
                                  const RunRecord *shown, const CandidateSummary *selected)
{
    RunActionState actions;
    const bool live = liveState.has_value();
    actions.pause = live && *liveState == RunController::State::Running;
    actions.resume = live && *liveState == RunController::State::Paused;
    actions.stop = live && *liveState != RunController::State::Stopping;
    actions.continueRun =
        isSearchRun(shown) && !live && shown->status != RunRecord::Status::Finished;
    actions.editCopy = canEditCopy(shown, selected);
    return actions;
}

bool RunActionState::canEditCopy(const RunRecord *shown, const CandidateSummary *selected)
{
    return isSearchRun(shown) && selected && !selected->placeholder;
}

QString RunActionState::editCopyRefusal()
{
    return QObject::tr("Select a candidate of a search run to edit a copy.");
}

} // namespace kiln
