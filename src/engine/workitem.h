#pragma once

#include "core/backend.h"
#include "core/evaluationresult.h"

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

    QJsonObject toJson() const;
    // Nothing (with *error) when the document is not a work item this version reads.
    static std::optional<WorkItem> fromJson(const QJsonObject &object, QString *error);
};

// A worker's answer: the verifier's result, and where it was computed.
struct WorkResult
{
    QString id;
    EvaluationResult evaluation;
    QString node;          // the host name the worker ran on
    QString job;           // SLURM_JOB_ID, or the worker's own name outside Slurm
    QString gpus;          // the GPUs the job was given (CUDA_VISIBLE_DEVICES), empty for none
    double workerMs = 0.0; // from the claim to the result, on the node

    QJsonObject toJson() const;
    static std::optional<WorkResult> fromJson(const QJsonObject &object, QString *error);
};

} // namespace kiln
