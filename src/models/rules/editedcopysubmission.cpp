#include "models/rules/editedcopysubmission.h"

#include <QObject>

namespace kiln {

QString EditedCopySubmission::refusal(const QString &source)
{
    if (source.trimmed().isEmpty())
        return QObject::tr("the source is empty");
    return {};
}

ManualSubmission::Request EditedCopySubmission::request(qint64 runId, qint64 parentId,
                                                        const QString &source)
{
    ManualSubmission::Request request;
    request.runId = runId;
    request.parent = parentId;
    request.source = source;
    request.note = QObject::tr("edited in the workbench from #%1").arg(parentId);
    return request;
}

} // namespace kiln
