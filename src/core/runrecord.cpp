#include "runrecord.h"

namespace kiln {

QString RunRecord::statusName(Status status)
{
    switch (status) {
    case Status::Created:
        return QStringLiteral("created");
    case Status::Running:
        return QStringLiteral("running");
    case Status::Paused:
        return QStringLiteral("paused");
    case Status::Finished:
        return QStringLiteral("finished");
    case Status::Failed:
        return QStringLiteral("failed");
    case Status::Cancelled:
        return QStringLiteral("cancelled");
    }
    return {};
}

RunRecord::Status RunRecord::statusFromName(const QString &name)
{
    for (Status s : {Status::Created, Status::Running, Status::Paused, Status::Finished,
                     Status::Failed, Status::Cancelled}) {
        if (statusName(s) == name)
            return s;
    }
    return Status::Failed;
}

} // namespace kiln
