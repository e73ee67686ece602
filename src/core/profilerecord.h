#pragma once

#include "core/stageresult.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>

namespace kiln {

// One hardware profile of a candidate, or of its task's reference taken beside it (kiln-cli
// profile, docs/cuda-backend.md "Hardware profiles"): Nsight Compute's key metrics, the report
// file, and what ran (GPU, clocks, driver, ncu version, sections). ok false: no profile, and
// reason says why (ncu missing or not permitted, a backend without a profiler, a failed run).
struct ProfileRecord
{
    qint64 id = 0; // 0 until stored
    qint64 candidateId = 0;
    QString subject = QStringLiteral("candidate"); // or "reference"
    bool ok = false;
    QString reason;
    QString reportPath;      // the .ncu-rep file, in the workspace beside the database
    QJsonObject metrics;     // NsightMetrics::summarise
    QJsonObject fingerprint; // NsightCommand: what ran, so two profiles can be compared
    QDateTime createdAt;

    QJsonObject toJson() const;
    // A stage named `name` carrying the metrics ("Nsight Compute <version> on <GPU>"), for the
    // agents' profile stage and a refinement's feedback.
    StageResult asStage(const QString &name) const;
};

} // namespace kiln
