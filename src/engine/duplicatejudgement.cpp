#include "duplicatejudgement.h"

#include "policies/feedbacksummary.h"

namespace kiln {

EvaluationResult DuplicateJudgement::of(const EvaluationResult &original, qint64 originalId)
{
    EvaluationResult reused = original;
    reused.duplicateOf = originalId;
    reused.stages.clear();
    StageResult stage;
    stage.name = QStringLiteral("duplicate");
    stage.ok = true;
    stage.detail = QStringLiteral("the same source as #%1 (whitespace and comments aside): its "
                                  "judgement is reused, not measured again; line numbers of its "
                                  "flags refer to #%1")
                       .arg(originalId);
    stage.data = {{QStringLiteral("of"), double(originalId)},
                  {QStringLiteral("verdict"), verdictName(original.verdict)}};
    // The original's stages are dropped: which of them a policy may not be shown goes along.
    if (const QString hidden = FeedbackSummary::hiddenFailureStage(original); !hidden.isEmpty())
        stage.data.insert(QStringLiteral("hidden_failure"), hidden);
    reused.stages.append(stage);
    reused.summary = QStringLiteral("duplicate of #%1: %2").arg(originalId).arg(original.summary);
    return reused;
}

bool DuplicateJudgement::isReused(const EvaluationResult &result)
{
    return result.duplicateOf && result.stage(QStringLiteral("duplicate")) != nullptr;
}

} // namespace kiln
