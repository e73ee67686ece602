#include "profilerecord.h"

namespace kiln {

QJsonObject ProfileRecord::toJson() const
{
    QJsonObject object{{QStringLiteral("id"), id},
                       {QStringLiteral("candidate_id"), candidateId},
                       {QStringLiteral("subject"), subject},
                       {QStringLiteral("ok"), ok},
                       {QStringLiteral("metrics"), metrics},
                       {QStringLiteral("fingerprint"), fingerprint},
                       {QStringLiteral("created_at"), createdAt.toString(Qt::ISODateWithMs)}};
    if (!reason.isEmpty())
        object.insert(QStringLiteral("reason"), reason);
    if (!reportPath.isEmpty())
        object.insert(QStringLiteral("report"), reportPath);
    return object;
}

} // namespace kiln
