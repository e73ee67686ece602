#pragma once

#include "core/evaluationresult.h"

#include <QJsonObject>
#include <QString>
#include <optional>

namespace kiln {

// A worker's answer: the verifier's result, and where it was computed.
struct WorkResult
{
    QString id;
    EvaluationResult evaluation;
    QString node;          // the host name the worker ran on
    QString job;           // SLURM_JOB_ID, or the worker's own name outside Slurm
    QString gpus;          // the GPUs the job was given (CUDA_VISIBLE_DEVICES), empty for none
    double workerMs = 0.0; // from the claim to the result, on the node
    // Set when the item could not be judged at all (unreadable, unknown task); not a verdict.
    QString error;

    QJsonObject toJson() const;
    static std::optional<WorkResult> fromJson(const QJsonObject &object, QString *error);
};

} // namespace kiln
