#include "candidatesummary.h"

#include <QHash>
#include <QMutex>

namespace kiln {

namespace {

// Summaries outlive the full records they are made from. Sharing a record's string buffers would
// pin those records' heap pages (a 100,000-candidate run kept ~600 MiB resident that way), so
// repeated values are interned and the rest copied.
QString intern(const QString &value)
{
    static QHash<QString, QString> pool;
    static QMutex mutex;
    if (value.isEmpty())
        return QString();
    QMutexLocker lock(&mutex);
    auto it = pool.constFind(value);
    if (it == pool.cend())
        it = pool.insert(QString(value.constData(), value.size()),
                         QString(value.constData(), value.size()));
    return it.value();
}

QString detached(const QString &value)
{
    return value.isEmpty() ? QString() : QString(value.constData(), value.size());
}

} // namespace

QString CandidateSummary::verdictText() const
{
    return evaluated ? verdictName(verdict) : QStringLiteral("pending");
}

CandidateSummary CandidateSummary::fromRecord(const CandidateRecord &record)
{
    CandidateSummary s;
    s.id = record.id;
    s.task = intern(record.task);
    s.parent = record.parent;
    s.secondParent = record.secondParent;
    s.operation = record.operation;
    s.generation = record.generation;
    s.island = record.island;
    s.sampleIndex = record.sampleIndex;
    s.round = record.round;
    s.policy = intern(record.policy);
    s.promptTokens = record.promptTokens;
    s.completionTokens = record.completionTokens;
    s.reasoningTokens = record.reasoningTokens;
    s.reasoningLength = record.reasoningLength;
    s.createdAt = record.createdAt;
    return s;
}

std::optional<SpeedupInterval> CandidateSummary::speedupInterval() const
{
    if (!speedup || !speedupLow || !speedupHigh)
        return std::nullopt;
    return SpeedupInterval{*speedup, *speedupLow, *speedupHigh};
}

void CandidateSummary::applyEvaluation(const EvaluationResult &result)
{
    evaluated = true;
    verdict = result.verdict;
    correct = result.correct;
    speedup = result.speedup;
    speedupLow.reset();
    speedupHigh.reset();
    if (result.speedupInterval) {
        speedupLow = result.speedupInterval->low;
        speedupHigh = result.speedupInterval->high;
    }
    confirmed = result.confirmed;
    duplicateOf = result.duplicateOf;
    candidateMs = result.candidateMs;
    summary = detached(result.summary);
    evaluationMs = 0.0;
    for (const StageResult &stage : result.stages)
        evaluationMs += stage.ms;
    flagIds.clear();
    for (const CheatFlag &flag : result.flags)
        flagIds << intern(flag.id);
    firstFlag.clear();
    if (!result.flags.isEmpty())
        firstFlag = result.flags.first().id + QStringLiteral(": ") + result.flags.first().message;
}

QString CandidateSummary::shared(const QString &value)
{
    return intern(value);
}

void CandidateSummary::shareRepeatedStrings()
{
    task = intern(task);
    policy = intern(policy);
    for (QString &id : flagIds)
        id = intern(id);
}

} // namespace kiln
