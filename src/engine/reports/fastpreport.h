#pragma once

#include "engine/reports/fastpmetrics.h"

#include <QList>

namespace kiln {

class RunStore;
class TaskLibrary;

// The KernelBench problems of a whole workspace database, as fast_p counts them: every
// KernelBench task of every run is one problem, its candidates gathered over all those runs.
// Runs judged by the lenient verifier are left out (their passes are not the truth).
class FastPReport
{
public:
    struct Collected
    {
        QList<FastPProblem> problems;
        int runs = 0;        // runs with a KernelBench task that were counted
        int lenientRuns = 0; // runs with a KernelBench task left out as lenient
        bool isEmpty() const { return problems.isEmpty(); }
    };

    // A task's level comes from the library when it knows the task, else from the run's
    // snapshot of the task, else from its name (kb<level>_...); a task with none is not a
    // KernelBench problem.
    static Collected collect(RunStore &store, const TaskLibrary *library = nullptr);
    // The report's `fast_p` object (FastPMetrics::toJson); empty when there is no problem.
    static QJsonObject json(const Collected &collected);
};

} // namespace kiln
