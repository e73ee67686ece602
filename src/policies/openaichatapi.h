#pragma once

#include "policies/chatapi.h"

namespace kiln {

// OpenAI Chat Completions and the servers that copy it (vLLM, SGLang, Ollama, llama.cpp server,
// LM Studio, OpenRouter, DeepSeek). Reasoning text is read from `reasoning_content` (DeepSeek,
// vLLM, SGLang) or `reasoning` (OpenRouter, newer vLLM, Ollama); reasoning tokens from
// usage.completion_tokens_details.reasoning_tokens.
class OpenAiChatApi : public ChatApi
{
public:
    ApiFlavour flavour() const override { return ApiFlavour::OpenAiChat; }
    QString requestUrl(const QString &endpoint) const override;
    QList<QByteArray> headers(const QByteArray &apiKey, bool stream) const override;
    QByteArray requestBody(const LlmRequest &request) const override;
    ParseResult parseResponse(const QByteArray &body) const override;
    void onStreamEvent(const SseEvent &event, StreamState &state) const override;
};

} // namespace kiln
