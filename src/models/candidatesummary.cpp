#include "candidatesummary.h"

namespace kiln {

QString CandidateSummary::verdictText() const
{
    return evaluated ? verdictName(verdict) : QStringLiteral("pending");
}

CandidateSummary CandidateSummary::fromRecord(const CandidateRecord &record)
{
    CandidateSummary s;
    s.id = record.id;
    s.task = record.task;
    s.parent = record.parent;
    s.secondParent = record.secondParent;
    s.operation = record.operation;
    s.generation = record.generation;
    s.island = record.island;
    s.sampleIndex = record.sampleIndex;
    s.round = record.round;
    s.policy = record.policy;
    s.simulated = record.policyMeta.value(QStringLiteral("simulated")).toBool() ||
                  record.policy == QStringLiteral("offline");
    s.promptTokens = record.promptTokens;
    s.completionTokens = record.completionTokens;
    s.reasoningTokens = record.reasoningTokens;
    s.reasoningLength = record.reasoningLength;
    s.createdAt = record.createdAt;
    s.ghost = record.policyMeta.value(QStringLiteral("evicted")).toBool();
    return s;
}

void CandidateSummary::applyEvaluation(const EvaluationResult &result)
{
    evaluated = true;
    verdict = result.verdict;
    correct = result.correct;
    speedup = result.speedup;
    candidateMs = result.candidateMs;
    summary = result.summary;
    evaluationMs = 0.0;
    for (const StageResult &stage : result.stages)
        evaluationMs += stage.ms;
    flagIds.clear();
    for (const CheatFlag &flag : result.flags)
        flagIds << flag.id;
    firstFlag.clear();
    if (!result.flags.isEmpty())
        firstFlag = result.flags.first().id + QStringLiteral(": ") + result.flags.first().message;
}

} // namespace kiln
