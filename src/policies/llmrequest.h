#pragma once

#include <QJsonObject>
#include <QString>
#include <optional>

namespace kiln {

// One chat completion to ask for, independent of the wire format.
struct LlmRequest
{
    QString model;
    QString system;
    QString user;
    int maxTokens = 8192;
    std::optional<double> temperature;
    std::optional<double> topP;
    QString reasoningEffort;   // OpenAI-style "minimal" | "low" | "medium" | "high"; empty: omit
    qint64 thinkingBudget = 0; // Anthropic thinking.budget_tokens; 0: thinking off
    bool stream = true;
    bool streamUsage = true;    // OpenAI stream_options.include_usage
    QString maxTokensField;     // OpenAI: "max_tokens" or "max_completion_tokens"
    std::optional<qint64> seed; // OpenAI-compatible servers that honour it (vLLM, SGLang)
    QJsonObject extraBody;      // merged into the request body last (provider extras)
};

} // namespace kiln
