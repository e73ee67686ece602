#pragma once

#include "operation.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <optional>

namespace kiln {

// One generated (or hand-written) kernel: a node of the search tree.
struct CandidateRecord
{
    qint64 id = 0; // 0 until stored
    qint64 runId = 0;
    QString task;
    std::optional<qint64> parent;       // refine / mutate / crossover / manual-as-child
    std::optional<qint64> secondParent; // crossover only
    Operation operation = Operation::Sample;
    int generation = 0;
    int island = 0;
    QString source;
    QString policy;         // "offline", "llm", "command", "replay", "manual"
    QJsonObject policyMeta; // model, knobs, simulated=true, failure reason ...
    QString prompt;
    QString reasoning;
    QString response;
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 reasoningTokens = 0;
    qint64 reasoningLength = 0; // the requested reasoning budget / effort, in tokens
    qint64 sampleIndex = -1;    // position of the request in its run (engine-assigned)
    int round = -1;             // search round that asked for it (engine-assigned)
    QDateTime createdAt;

    QJsonObject toJson() const;
    static CandidateRecord fromJson(const QJsonObject &object);
};

} // namespace kiln

Q_DECLARE_METATYPE(kiln::CandidateRecord)
