#include "models/rules/fileevaluationplan.h"

#include "tasks/tasklibrary.h"

#include <QObject>

namespace kiln {

FileEvaluationPlan FileEvaluationPlan::make(const CandidateFile &file, const RunRecord *shown,
                                            const QString &task, const QStringList &taskNames)
{
    FileEvaluationPlan plan(file);
    if (shown && shown->kind == QLatin1String("search"))
        plan.planInRun(*shown, task);
    else
        plan.planAlone(task, taskNames);
    return plan;
}

void FileEvaluationPlan::planInRun(const RunRecord &run, const QString &task)
{
    m_run = run;
    const bool cudaFile = m_file.isCuda();
    const bool cudaRun = run.backend == QLatin1String("cuda");
    if (cudaFile != cudaRun) {
        m_refusal =
            QObject::tr("run #%1 judges %2 candidates; %3 is a %4 file")
                .arg(run.id)
                .arg(cudaRun ? QObject::tr("CUDA (.cu)") : QObject::tr("CPU (.cpp)"),
                     m_file.fileName(), cudaFile ? QStringLiteral(".cu") : QStringLiteral("C++"));
        return;
    }
    m_task = task.isEmpty() ? run.tasks.value(0) : task;
    // A suite's run: which of its tasks the file solves.
    if (task.isEmpty() && run.tasks.size() > 1)
        m_question = TaskQuestion{QObject::tr("Evaluate %1").arg(m_file.fileName()),
                                  QObject::tr("Task of the suite:"), run.tasks};
}

void FileEvaluationPlan::planAlone(const QString &task, const QStringList &taskNames)
{
    m_task = task;
    if (task.isEmpty())
        m_question = TaskQuestion{QObject::tr("Evaluate %1").arg(m_file.fileName()),
                                  QObject::tr("Task:"), taskNames};
}

void FileEvaluationPlan::setTask(const QString &task)
{
    m_task = task;
    m_question.reset();
}

QString FileEvaluationPlan::gpuRefusal(const CudaAvailability &gpus) const
{
    if (!needsGpu() || gpus.usable)
        return {};
    return QObject::tr("%1 is a CUDA kernel, and there is no usable GPU: %2")
        .arg(m_file.fileName(), gpus.reason);
}

Backend FileEvaluationPlan::backend(const TaskLibrary &library) const
{
    const Task *chosen = library.task(m_task);
    return chosen && chosen->isKernelBench() ? Backend::Torch
           : m_file.isCuda()                 ? Backend::Cuda
                                             : Backend::Cpu;
}

ManualSubmission::Request FileEvaluationPlan::submission() const
{
    ManualSubmission::Request request;
    request.runId = m_run ? m_run->id : 0;
    request.task = m_task;
    request.source = m_file.source();
    request.note = QObject::tr("from the file %1").arg(m_file.fileName());
    return request;
}

QString FileEvaluationPlan::startedMessage() const
{
    if (m_run)
        return QObject::tr("Verifying %1 on run #%2's inputs…")
            .arg(m_file.fileName())
            .arg(m_run->id);
    return QObject::tr("Verifying %1 against %2…").arg(m_file.fileName(), m_task);
}

} // namespace kiln
