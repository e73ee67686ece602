#include "engine/reports/fastpreport.h"

#include "engine/runconfig.h"
#include "store/runstore.h"
#include "tasks/tasklibrary.h"

namespace kiln {

namespace {

std::optional<int> levelOf(RunStore &store, const TaskLibrary *library, qint64 runId,
                           const QString &task)
{
    if (const Task *known = library ? library->task(task) : nullptr)
        return known->isKernelBench() ? std::optional<int>(known->kernelBench->level)
                                      : std::nullopt;
    const QJsonValue level =
        store.runTaskJson(runId, task).value(QStringLiteral("kernelbench_level"));
    if (level.isDouble() && level.toInt() > 0)
        return level.toInt();
    return FastPMetrics::levelFromTaskName(task);
}

// The judged candidates of one run's KernelBench tasks.
QList<FastPSample> samplesOf(RunStore &store, qint64 runId, const QMap<QString, int> &levels)
{
    QList<FastPSample> samples;
    const QMap<qint64, EvaluationResult> evaluations = store.evaluationsForRun(runId);
    for (const CandidateSummary &c : store.lineage(runId)) {
        const auto it = evaluations.constFind(c.id);
        if (!c.evaluated || it == evaluations.cend() || !levels.contains(c.task))
            continue;
        samples.append({c.task, it->verdict, it->speedup, it->compiledSpeedup});
    }
    return samples;
}

} // namespace

FastPReport::Collected FastPReport::collect(RunStore &store, const TaskLibrary *library)
{
    Collected collected;
    QMap<QString, int> levels;
    QList<FastPSample> samples;
    for (const RunRecord &run : store.runs()) {
        QMap<QString, int> runLevels;
        for (const QString &task : run.tasks)
            if (const std::optional<int> level = levelOf(store, library, run.id, task))
                runLevels.insert(task, *level);
        if (runLevels.isEmpty())
            continue;
        if (RunConfig::lenientOf(run.config)) {
            collected.lenientRuns += 1;
            continue;
        }
        collected.runs += 1;
        for (auto it = runLevels.cbegin(); it != runLevels.cend(); ++it)
            levels.insert(it.key(), it.value());
        samples += samplesOf(store, run.id, runLevels);
    }
    collected.problems = FastPMetrics::bestPerTask(levels, samples);
    return collected;
}

QJsonObject FastPReport::json(const Collected &collected)
{
    if (collected.isEmpty())
        return {};
    return FastPMetrics::toJson(FastPMetrics::byLevel(collected.problems));
}

} // namespace kiln
