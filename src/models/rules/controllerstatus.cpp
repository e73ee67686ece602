#include "models/rules/controllerstatus.h"

namespace kiln {

QString ControllerStatus::name(RunController::State state)
{
    switch (state) {
    case RunController::State::Queued:
        return QObject::tr("queued");
    case RunController::State::Starting:
        return QObject::tr("starting");
    case RunController::State::Running:
        return QObject::tr("running");
    case RunController::State::Paused:
        return QObject::tr("paused");
    case RunController::State::Stopping:
        return QObject::tr("stopping");
    case RunController::State::Finished:
        return QObject::tr("finished");
    case RunController::State::Cancelled:
        return QObject::tr("stopped");
    case RunController::State::Failed:
        return QObject::tr("failed");
    }
    return {};
}

RunRecord::Status ControllerStatus::recordStatus(RunController::State state)
{
    switch (state) {
    case RunController::State::Paused:
        return RunRecord::Status::Paused;
    case RunController::State::Finished:
        return RunRecord::Status::Finished;
    case RunController::State::Cancelled:
        return RunRecord::Status::Cancelled;
    case RunController::State::Failed:
        return RunRecord::Status::Failed;
    default:
        return RunRecord::Status::Running;
    }
}

} // namespace kiln
