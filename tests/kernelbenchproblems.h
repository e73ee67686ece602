#pragma once

// KernelBench problem files of the test data as the importer names them, for tests that need
// the tasks without importing (no torch): the static screen, the offline policy's spaces.

#include "candidateexpectation.h"
#include "tasks/kernelbenchsource.h"
#include "tasks/task.h"

#include <QDir>
#include <QMap>

namespace kiln::testing {

// The problems of `folder` (a KernelBench level-N folder), by task name; files that are no
// problem (problemDefects) are left out.
inline QMap<QString, Task> kernelBenchProblemsIn(const QString &folder, int level)
{
    QMap<QString, Task> tasks;
    const QDir dir(folder);
    for (const QFileInfo &file :
         dir.entryInfoList({QStringLiteral("*.py")}, QDir::Files, QDir::Name)) {
        const QString source = readFile(file.filePath());
        int number = 0;
        QString title;
        if (!KernelBenchSource::parseFileName(file.fileName(), &number, &title) ||
            !KernelBenchSource::problemDefects(source).isEmpty())
            continue;
        Task task;
        task.name = KernelBenchSource::taskName(level, number, title);
        task.title = title;
        task.entry = QStringLiteral("ModelNew");
        task.kernelBench = KernelBenchProblem{level, number, file.fileName()};
        task.referenceSource.insert(Backend::Torch, source);
        tasks.insert(task.name, task);
    }
    return tasks;
}

} // namespace kiln::testing
