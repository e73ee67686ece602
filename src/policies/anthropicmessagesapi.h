#pragma once

#include "policies/chatapi.h"

namespace kiln {

// The Anthropic Messages API. Extended thinking is requested with thinking.budget_tokens and
// comes back as "thinking" content blocks (thinking_delta when streaming). Anthropic counts
// thinking inside output_tokens without a separate figure, so the reasoning share is estimated
// from the text lengths (LlmResponse::reasoningEstimated).
class AnthropicMessagesApi : public ChatApi
{
public:
    static constexpr const char *version = "2023-06-01";
    static constexpr qint64 minThinkingBudget = 1024;

    ApiFlavour flavour() const override { return ApiFlavour::AnthropicMessages; }
    QString requestUrl(const QString &endpoint) const override;
    QList<QByteArray> headers(const QByteArray &apiKey, bool stream) const override;
    QByteArray requestBody(const LlmRequest &request) const override;
    ParseResult parseResponse(const QByteArray &body) const override;
    void onStreamEvent(const SseEvent &event, StreamState &state) const override;
};

} // namespace kiln
