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

StageResult ProfileRecord::asStage(const QString &name) const
{
    StageResult stage;
    stage.name = name;
    stage.ok = ok;
    stage.detail = ok ? QStringLiteral("Nsight Compute %1 on %2")
                            .arg(fingerprint.value(QStringLiteral("ncu_version")).toString(),
                                 fingerprint.value(QStringLiteral("gpu")).toString())
                      : reason;
    stage.data = metrics;
    return stage;
}

} // namespace kiln
