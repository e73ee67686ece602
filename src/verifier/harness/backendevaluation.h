#pragma once

#include "core/backend.h"
#include "core/evaluationresult.h"
#include "verifier/harness/evaluationrecorder.h"

#include <QJsonObject>
#include <QString>
#include <optional>

namespace kiln {

// What every backend's evaluation of one candidate records into: the result with its stages and
// flags, the failure that ends it early, and the first wrong answer's detail. The backends
// derive from it, so these are kept (and read by EvaluationRecorder::conclude) alike.
class BackendEvaluation
{
protected:
    using Failure = EvaluationRecorder::Failure;

    explicit BackendEvaluation(Backend backend) { m_result.backend = backend; }

    void addFlag(const QString &id, const QString &detail = {})
    {
        EvaluationRecorder::addFlag(m_result, id, detail);
    }
    void addStage(const QString &name, bool ok, double ms, const QString &detail,
                  const QJsonObject &data = {})
    {
        EvaluationRecorder::addStage(m_result, name, ok, ms, detail, data);
    }

    EvaluationResult m_result;
    std::optional<Failure> m_failure;
    QString m_wrongDetail;
};

} // namespace kiln
