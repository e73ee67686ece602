#pragma once

#include <QString>

namespace kiln {

// One problem found while loading a task folder: which file, which field (a JSON path such as
// "parameters[2].dtype", or "(json)" for a syntax error), and why.
struct TaskLoadError
{
    QString file;
    QString field;
    QString reason;

    QString toString() const
    {
        return file + QStringLiteral(": ") + field + QStringLiteral(": ") + reason;
    }
    bool operator==(const TaskLoadError &other) const = default;
};

} // namespace kiln
