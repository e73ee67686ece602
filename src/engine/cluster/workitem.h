#pragma once

#include "core/backend.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace kiln {

// One evaluation sent to a cluster worker through the spool (docs/cluster.md): the candidate's
// source, the task it answers (by name, its files in the spool's tasks folder), the backend and
// the verifier settings of the run.
struct WorkItem
{
    QString id; // unique within a spool session, a file name
    QString task;
    Backend backend = Backend::Cpu;
    QString source;
    quint64 secret = 0;
    bool lenient = false;
    QJsonArray extraShapes; // the agents strategy's tester shapes for this candidate (may be empty)
    QString language;       // a KernelBench run's kernel language (Task::candidateLanguage)

    // Of the spool's documents, items and results alike; 2 added an item's extra_shapes, so a
    // worker of version 1 refuses such items instead of judging them without those shapes; 3
    // the run's kernel language, which an older worker would ignore.
    static constexpr int kVersion = 3;

    QJsonObject toJson() const;
    // Whether `object` is a spool document of `format` and this version, with an id.
    static bool hasFormat(const QJsonObject &object, const QString &format, QString *error);
    // Nothing (with *error) when the document is not a work item this version reads.
    static std::optional<WorkItem> fromJson(const QJsonObject &object, QString *error);
};

} // namespace kiln
