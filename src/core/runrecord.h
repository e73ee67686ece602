#pragma once

#include "budgetusage.h"

#include <QDateTime>
#include <QJsonObject>
#include <QStringList>
#include <optional>

namespace kiln {

// One search run (or one `kiln-cli eval`) as stored in the workspace database.
struct RunRecord
{
    enum class Status
    {
        Created,
        Running,
        Paused,
        Finished,
        Failed,
        Cancelled
    };

    qint64 id = 0;
    QString kind = QStringLiteral("search"); // "search" or "eval"
    QStringList tasks;
    QString strategy;
    QString policy;
    QString backend;
    quint64 seed = 0;
    Status status = Status::Created;
    QJsonObject config; // every parameter needed to resume the run
    BudgetUsage budgetUsed;
    // The secret the verifier's test inputs derive from: drawn from the OS for each run (or from
    // --verifier-seed), stored so a resumed run is checked on the same inputs, never given to a
    // policy. None for runs stored before schema 5.
    std::optional<quint64> verifierSecret;
    QDateTime createdAt;
    QDateTime updatedAt;

    static QString statusName(Status status);
    static Status statusFromName(const QString &name);
};

} // namespace kiln
