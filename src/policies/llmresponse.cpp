#include "llmresponse.h"

#include <algorithm>

namespace kiln {

namespace {

// The usual rule of thumb for English and code; only used when a server reports no usage.
qint64 estimateTokens(qint64 chars)
{
    return chars <= 0 ? 0 : std::max<qint64>(1, (chars + 3) / 4);
}

} // namespace

void LlmResponse::splitOutputTokens(qint64 outputTokens, std::optional<qint64> reportedReasoning)
{
    outputTokens = std::max<qint64>(0, outputTokens);
    qint64 reasoningPart = 0;
    reasoningEstimated = false;
    if (reportedReasoning && *reportedReasoning > 0) {
        reasoningPart = std::min(*reportedReasoning, outputTokens);
    } else if (!reasoning.isEmpty()) {
        const double share = double(reasoning.size()) / double(reasoning.size() + text.size());
        reasoningPart = std::min<qint64>(outputTokens, qint64(double(outputTokens) * share + 0.5));
        reasoningEstimated = true;
    }
    reasoningTokens = reasoningPart;
    completionTokens = outputTokens - reasoningPart;
}

void LlmResponse::finalizeUsage(qint64 promptChars)
{
    if (!usageReported) {
        promptTokens = estimateTokens(promptChars);
        completionTokens = estimateTokens(text.size());
        reasoningTokens = estimateTokens(reasoning.size());
        return;
    }
    completionTokens = std::max<qint64>(0, completionTokens);
    reasoningTokens = std::max<qint64>(0, reasoningTokens);
}

QJsonObject LlmResponse::usageJson() const
{
    return {{QStringLiteral("prompt_tokens"), promptTokens},
            {QStringLiteral("completion_tokens"), completionTokens},
            {QStringLiteral("reasoning_tokens"), reasoningTokens},
            {QStringLiteral("usage_reported"), usageReported},
            {QStringLiteral("reasoning_estimated"), reasoningEstimated}};
}

QJsonObject LlmResponse::toJson() const
{
    QJsonObject object = usageJson();
    object.insert(QStringLiteral("text"), text);
    object.insert(QStringLiteral("reasoning"), reasoning);
    object.insert(QStringLiteral("finish_reason"), finishReason);
    object.insert(QStringLiteral("model"), model);
    return object;
}

LlmResponse LlmResponse::fromJson(const QJsonObject &object)
{
    LlmResponse r;
    r.text = object.value(QStringLiteral("text")).toString();
    r.reasoning = object.value(QStringLiteral("reasoning")).toString();
    r.finishReason = object.value(QStringLiteral("finish_reason")).toString();
    r.model = object.value(QStringLiteral("model")).toString();
    r.promptTokens = object.value(QStringLiteral("prompt_tokens")).toInteger();
    r.completionTokens = object.value(QStringLiteral("completion_tokens")).toInteger();
    r.reasoningTokens = object.value(QStringLiteral("reasoning_tokens")).toInteger();
    r.usageReported = object.value(QStringLiteral("usage_reported")).toBool();
    r.reasoningEstimated = object.value(QStringLiteral("reasoning_estimated")).toBool();
    return r;
}

} // namespace kiln
