#pragma once

#include <QJsonObject>
#include <QString>
#include <optional>

namespace kiln {

// A completed answer, normalised over the API flavours. Token counts are disjoint:
// completionTokens excludes reasoningTokens (OpenAI reports reasoning inside completion_tokens;
// it is subtracted here) so BudgetUsage::totalTokens() never counts a token twice.
struct LlmResponse
{
    QString text;
    QString reasoning;
    QString finishReason;
    QString model; // as reported by the server
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 reasoningTokens = 0;
    bool usageReported = false;      // false: counts were estimated from the text (chars / 4)
    bool reasoningEstimated = false; // reasoning share of the output estimated (Anthropic)

    // Sets completion and reasoning counts from a provider's output count, which includes
    // reasoning: the reported reasoning count when there is one, otherwise (reasoning text but no
    // count, as vLLM and Anthropic report) the reasoning's share of the output characters.
    void splitOutputTokens(qint64 outputTokens, std::optional<qint64> reportedReasoning);
    // When the server reported no usage at all: estimates every count from text lengths.
    void finalizeUsage(qint64 promptChars);
    QJsonObject usageJson() const;
    QJsonObject toJson() const;
    static LlmResponse fromJson(const QJsonObject &object);
};

} // namespace kiln
