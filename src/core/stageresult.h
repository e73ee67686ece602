#pragma once

#include <QJsonObject>
#include <QString>

namespace kiln {

// One verifier stage (screen, compile, correctness, timing, verdict) as reported and stored.
struct StageResult
{
    QString name;
    bool ok = false;
    double ms = 0.0;
    QString detail;   // one-line summary for tables and the CLI
    QJsonObject data; // stage-specific structured results (diagnostics, mismatch statistics)

    QJsonObject toJson() const;
    static StageResult fromJson(const QJsonObject &object);
};

} // namespace kiln
