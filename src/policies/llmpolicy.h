#pragma once

#include "policies/concurrencylimiter.h"
#include "policies/llmclient.h"
#include "policies/llmconfig.h"
#include "policies/policy.h"
#include "policies/pricetable.h"
#include "policies/promptbuilder.h"
#include "policies/responsecache.h"

#include <memory>

namespace kiln {

// Candidates from a real language model: prompt from the templates, one chat completion (cached,
// retried, limited to config.concurrency calls at once), the candidate extracted from the answer.
// Every failure (HTTP error, broken stream, no code block) is an ok=false result whose candidate
// still carries the prompt and whatever text came back, for the transcript.
class LlmPolicy : public Policy
{
public:
    // prices: std::nullopt loads config.priceTableFile, or the embedded example table.
    LlmPolicy(LlmConfig config, std::shared_ptr<ResponseCache> cache = nullptr,
              std::optional<PriceTable> prices = std::nullopt);
    // As the constructor, but reports an unreadable price table or a bad config instead of
    // falling back silently. This is what the engine calls with LlmConfig::fromCli's result.
    static std::unique_ptr<LlmPolicy> create(const LlmConfig &config,
                                             std::shared_ptr<ResponseCache> cache, QString *error);

    QString name() const override { return QStringLiteral("llm"); }
    GenerationResult generate(const GenerationRequest &request,
                              const std::atomic<bool> &cancel) override;

    const LlmConfig &config() const { return m_client.config(); }
    const PromptBuilder &promptBuilder() const { return m_prompts; }
    const PriceTable &priceTable() const { return m_prices; }
    const ConcurrencyLimiter &limiter() const { return m_limiter; }

    // The reasoning setting sent for a request: its reasoningLength when set, else the config.
    // OpenAI-style endpoints get an effort level, Anthropic a thinking budget.
    static QString effortForTokens(qint64 tokens);
    static qint64 tokensForEffort(const QString &effort);

private:
    // The chat request for this prompt, with the request's reasoning length and seed.
    LlmRequest llmRequest(const GenerationRequest &request, const Prompt &prompt) const;
    QJsonObject requestMeta(const GenerationRequest &request, const LlmRequest &llm) const;
    static void recordCall(const LlmCallResult &call, QJsonObject &meta);
    static void recordFailure(const LlmCallResult &call, const Prompt &prompt, CandidateRecord &c,
                              QJsonObject &meta);
    // The answer's text and reasoning into the candidate, with inline <think> text moved from
    // *answer to the reasoning; true when its reasoning tokens are an estimate from that text.
    static bool takeAnswer(const LlmResponse &r, QString *answer, CandidateRecord &c);
    // Cost, finish reason and how the token counts were obtained.
    void recordUsage(const LlmCallResult &call, const CandidateRecord &c, bool inlineEstimated,
                     QJsonObject &meta) const;

    LlmClient m_client;
    PromptBuilder m_prompts;
    PriceTable m_prices;
    ConcurrencyLimiter m_limiter;
};

} // namespace kiln
