#pragma once

#include "tasks/taskloader.h"

#include <QJsonObject>

namespace kiln {

// Reads a task.json whose "format" is "kernelbench" (written by `kiln-cli import-kernelbench`):
// the problem's level, number and origin, the output tolerance, and the Python reference file.
// Every field is validated, as TaskLoader does for Kiln's own tasks.
class KernelBenchTaskLoader
{
public:
    static TaskLoader::Result load(const QJsonObject &root, const QString &directory);
    // The task.json text for an imported problem (the reverse of load).
    static QJsonObject taskJson(const Task &task, const QString &referenceFile);

    static constexpr double kDefaultTolerance = 1e-2; // KernelBench's own atol and rtol
};

} // namespace kiln
