#pragma once

#include <QString>
#include <optional>

namespace kiln {

// The wire format an endpoint speaks. OpenAiChat covers every Chat Completions server (OpenAI,
// vLLM, SGLang, Ollama, llama.cpp, LM Studio, OpenRouter, DeepSeek).
enum class ApiFlavour
{
    OpenAiChat,
    AnthropicMessages
};

QString apiFlavourName(ApiFlavour flavour); // "openai", "anthropic"
std::optional<ApiFlavour> apiFlavourFromName(const QString &name);

} // namespace kiln
