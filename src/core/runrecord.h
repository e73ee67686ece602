#pragma once

#include "budgetusage.h"

#include <QDateTime>
#include <QJsonObject>
#include <QStringList>

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
    QDateTime createdAt;
    QDateTime updatedAt;

    static QString statusName(Status status);
    static Status statusFromName(const QString &name);
};

} // namespace kiln
