#pragma once

#include "models/rules/candidatefile.h"

#include "core/backend.h"
#include "core/runrecord.h"
#include "engine/manualsubmission.h"
#include "verifier/harness/cudadevices.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace kiln {

class TaskLibrary;

// How a candidate file is judged, decided without a window. With a search run shown it joins
// that run as a manual root (refused when its kind is not the run's backend); otherwise it is
// judged alone, as an evaluation run of the workspace (refused for CUDA without a usable GPU).
// Either way a task may have to be asked for first: the window asks taskQuestion() and hands
// the answer to setTask().
class FileEvaluationPlan
{
public:
    struct TaskQuestion
    {
        QString title;
        QString label;
        QStringList choices;
    };

    // `shown` is the run on screen (nullptr: none); `task` the one asked for (empty: ask when
    // there is a choice); `taskNames` the workspace's tasks, offered when judged alone.
    static FileEvaluationPlan make(const CandidateFile &file, const RunRecord *shown,
                                   const QString &task, const QStringList &taskNames);

    // True: a manual root of the shown search run; false: an evaluation run of its own.
    bool joinsRun() const { return m_run.has_value(); }
    // Why the file cannot join the shown run; empty when it can (or when judged alone).
    QString refusal() const { return m_refusal; }
    std::optional<TaskQuestion> taskQuestion() const { return m_question; }
    void setTask(const QString &task);
    QString task() const { return m_task; }

    // Judged alone: only a CUDA file needs a GPU, so only then are the GPUs probed.
    bool needsGpu() const { return !joinsRun() && m_file.isCuda(); }
    QString gpuRefusal(const CudaAvailability &gpus) const;
    // Judged alone: a KernelBench problem has one backend; otherwise the file's kind decides.
    Backend backend(const TaskLibrary &library) const;

    // Joining the run: what the workspace is asked to judge.
    ManualSubmission::Request submission() const;
    // The status line while the verifier works on it.
    QString startedMessage() const;

private:
    explicit FileEvaluationPlan(CandidateFile file) : m_file(std::move(file)) {}
    void planInRun(const RunRecord &run, const QString &task);
    void planAlone(const QString &task, const QStringList &taskNames);

    CandidateFile m_file;
    std::optional<RunRecord> m_run; // the search run it joins
    QString m_refusal;
    std::optional<TaskQuestion> m_question;
    QString m_task;
};

} // namespace kiln
