#pragma once

#include "tasks/task.h"
#include "tasks/taskloaderror.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace kiln {

// Reads one task folder (task.json plus the reference sources it names) and validates every
// field. A folder either loads completely or yields the list of everything wrong with it.
class TaskLoader
{
public:
    struct Result
    {
        std::optional<Task> task;
        QList<TaskLoadError> errors;
        bool ok() const { return task.has_value(); }
        QStringList errorStrings() const;
    };

    static constexpr int kSchemaVersion = 1;
    static constexpr int kMinCorrectnessShapes = 4;

    // `directory` may be a real path or a Qt resource path (":/tasks/matmul").
    static Result load(const QString &directory);
    // Validates JSON text as if it were `directory`/task.json; reference files are read from
    // `directory`.
    static Result loadJson(const QByteArray &json, const QString &directory);

    // True when `source` defines `extern "C" ... entry(`, comments ignored.
    static bool definesEntry(const QString &source, const QString &entry);
    static bool isIdentifier(const QString &name);
};

} // namespace kiln
