#include "llmpolicy.h"

#include "policies/candidateanswer.h"
#include "policies/codeextractor.h"

#include <QDateTime>
#include <QJsonArray>
#include <algorithm>

namespace kiln {

namespace {

PriceTable loadPrices(const LlmConfig &config)
{
    if (!config.priceTableFile.isEmpty()) {
        if (std::optional<PriceTable> table = PriceTable::fromFile(config.priceTableFile))
            return *table;
    }
    return PriceTable::defaults();
}

// The table, with the price given for this model (llm.price_prompt / price_completion) on top.
PriceTable withModelPrice(PriceTable table, const LlmConfig &config)
{
    if (!config.pricePrompt && !config.priceCompletion)
        return table;
    ModelPrice price = table.price(config.model).value_or(ModelPrice());
    price.prompt = config.pricePrompt.value_or(price.prompt);
    if (config.priceCompletion)
        price.completion = price.reasoning = *config.priceCompletion;
    table.setPrice(config.model, price);
    return table;
}

// Whether the answer stopped at the max_tokens limit.
bool hitTokenLimit(const LlmResponse &r)
{
    return r.finishReason == QStringLiteral("length") ||
           r.finishReason == QStringLiteral("max_tokens");
}

} // namespace

LlmPolicy::LlmPolicy(LlmConfig config, std::shared_ptr<ResponseCache> cache,
                     std::optional<PriceTable> prices)
    : m_client(config, std::move(cache)), m_prompts(config.promptDir),
      m_prices(withModelPrice(prices ? *prices : loadPrices(config), config)),
      m_limiter(config.concurrency)
{
}

std::unique_ptr<LlmPolicy> LlmPolicy::create(const LlmConfig &config,
                                             std::shared_ptr<ResponseCache> cache, QString *error)
{
    const QString problem = config.validate();
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return nullptr;
    }
    std::optional<PriceTable> prices;
    if (!config.priceTableFile.isEmpty()) {
        prices = PriceTable::fromFile(config.priceTableFile, error);
        if (!prices)
            return nullptr;
    }
    return std::make_unique<LlmPolicy>(config, std::move(cache), prices);
}

QString LlmPolicy::effortForTokens(qint64 tokens)
{
    if (tokens <= 0)
        return QString();
    if (tokens <= 2048)
        return QStringLiteral("low");
    if (tokens <= 8192)
        return QStringLiteral("medium");
    return QStringLiteral("high");
}

qint64 LlmPolicy::tokensForEffort(const QString &effort)
{
    // Nominal budgets so effort levels sit on the same reasoning-length axis as token budgets.
    if (effort == QStringLiteral("minimal"))
        return 256;
    if (effort == QStringLiteral("low"))
        return 2048;
    if (effort == QStringLiteral("medium"))
        return 8192;
    if (effort == QStringLiteral("high"))
        return 32768;
    return 0;
}

GenerationResult LlmPolicy::generate(const GenerationRequest &request,
                                     const std::atomic<bool> &cancel)
{
    GenerationResult result;
    CandidateRecord &c = result.candidate;
    describeNewCandidate(request, name(), c);
    const Prompt prompt = m_prompts.build(request);
    c.prompt = prompt.transcript();

    const LlmRequest llm = llmRequest(request, prompt);
    c.reasoningLength = request.reasoningLength > 0 ? request.reasoningLength
                        : llm.thinkingBudget > 0    ? llm.thinkingBudget
                                                    : tokensForEffort(llm.reasoningEffort);
    QJsonObject meta = requestMeta(request, llm);
    const LlmCallResult call = m_client.complete(llm, request.sampleIndex, cancel, &m_limiter);
    recordCall(call, meta);
    if (!call.ok) {
        result.ok = false;
        result.error = call.error;
        recordFailure(call, prompt, c, meta);
        c.policyMeta = meta;
        return result;
    }

    QString answer = call.response.text;
    const bool inlineEstimated = takeAnswer(call.response, &answer, c);
    recordUsage(call, c, inlineEstimated, meta);
    // The agents strategy's profiler, planner and tester answer in prose (or JSON), not code.
    if (request.answersInProse())
        CandidateAnswer::takeRoleAnswer(request, answer, result, meta);
    else
        CandidateAnswer::takeSource(request, answer, hitTokenLimit(call.response), result, meta);
    c.policyMeta = meta;
    return result;
}

LlmRequest LlmPolicy::llmRequest(const GenerationRequest &request, const Prompt &prompt) const
{
    const LlmConfig &cfg = m_client.config();
    LlmRequest llm = m_client.makeRequest(prompt.system, prompt.user);
    if (request.reasoningLength > 0) {
        if (cfg.api == ApiFlavour::AnthropicMessages)
            llm.thinkingBudget = request.reasoningLength;
        else
            llm.reasoningEffort = effortForTokens(request.reasoningLength);
    }
    if (cfg.sendSeed)
        llm.seed = qint64(request.seed + quint64(request.sampleIndex));
    return llm;
}

QJsonObject LlmPolicy::requestMeta(const GenerationRequest &request, const LlmRequest &llm) const
{
    const LlmConfig &cfg = m_client.config();
    QJsonObject meta{{QStringLiteral("endpoint"), cfg.publicEndpoint()},
                     {QStringLiteral("endpoint_host"), cfg.endpointHost()},
                     {QStringLiteral("model"), cfg.model},
                     {QStringLiteral("api"), apiFlavourName(cfg.api)},
                     {QStringLiteral("stream"), llm.stream},
                     {QStringLiteral("sample_index"), request.sampleIndex}};
    if (!llm.reasoningEffort.isEmpty())
        meta.insert(QStringLiteral("reasoning_effort"), llm.reasoningEffort);
    if (llm.thinkingBudget > 0)
        meta.insert(QStringLiteral("thinking_budget"), llm.thinkingBudget);
    if (!m_prompts.overriddenTemplates().isEmpty())
        meta.insert(QStringLiteral("custom_templates"),
                    m_prompts.overriddenTemplates().join(QLatin1Char(',')));
    return meta;
}

void LlmPolicy::recordCall(const LlmCallResult &call, QJsonObject &meta)
{
    meta.insert(QStringLiteral("cache_hit"), call.cacheHit);
    meta.insert(QStringLiteral("latency_ms"), call.latencyMs);
    meta.insert(QStringLiteral("attempts"), call.attempts);
    if (!call.attemptErrors.isEmpty())
        meta.insert(QStringLiteral("attempt_errors"),
                    QJsonArray::fromStringList(call.attemptErrors));
}

void LlmPolicy::recordFailure(const LlmCallResult &call, const Prompt &prompt, CandidateRecord &c,
                              QJsonObject &meta)
{
    c.response = call.partialText;
    if (!call.partialText.isEmpty()) {
        // A stream that broke midway was still generated (and usually billed): charge an
        // estimate so token budgets stay honest.
        LlmResponse partial;
        partial.text = call.partialText;
        partial.finalizeUsage(prompt.system.size() + prompt.user.size());
        c.promptTokens = partial.promptTokens;
        c.completionTokens = partial.completionTokens;
        meta.insert(QStringLiteral("usage_reported"), false);
    }
    meta.insert(QStringLiteral("error"), call.error);
    meta.insert(QStringLiteral("error_kind"), call.errorKind);
    if (call.httpStatus != 0)
        meta.insert(QStringLiteral("http_status"), call.httpStatus);
}

bool LlmPolicy::takeAnswer(const LlmResponse &r, QString *answer, CandidateRecord &c)
{
    QString reasoning = r.reasoning;
    // Reasoning some servers inline as <think>...</think> belongs to the transcript's reasoning.
    const QString inlineThinking = CodeExtractor::splitThinking(answer);
    if (!inlineThinking.isEmpty())
        reasoning = reasoning.isEmpty() ? inlineThinking
                                        : reasoning + QStringLiteral("\n\n") + inlineThinking;
    c.response = r.text;
    c.reasoning = reasoning;
    c.promptTokens = r.promptTokens;
    c.completionTokens = r.completionTokens;
    c.reasoningTokens = r.reasoningTokens;
    const bool inlineEstimated =
        !inlineThinking.isEmpty() && r.reasoningTokens == 0 && r.usageReported && !r.text.isEmpty();
    if (inlineEstimated) {
        // The server counted the inline thinking as completion: move its share to reasoning.
        const double share = double(inlineThinking.size()) / double(r.text.size());
        c.reasoningTokens =
            std::min(c.completionTokens, qint64(double(c.completionTokens) * share));
        c.completionTokens -= c.reasoningTokens;
    }
    return inlineEstimated;
}

void LlmPolicy::recordUsage(const LlmCallResult &call, const CandidateRecord &c,
                            bool inlineEstimated, QJsonObject &meta) const
{
    const LlmConfig &cfg = m_client.config();
    const LlmResponse &r = call.response;
    // "cost" is what the generation costs at list price, so runs compare at equal budget whether
    // or not answers came from the cache; "cost_paid" is the money actually spent by this call.
    const std::optional<double> cost =
        m_prices.cost(cfg.model, c.promptTokens, c.completionTokens, c.reasoningTokens);
    meta.insert(QStringLiteral("cost"), cost.value_or(0.0));
    meta.insert(QStringLiteral("cost_paid"), call.cacheHit ? 0.0 : cost.value_or(0.0));
    meta.insert(QStringLiteral("cost_known"), cost.has_value());
    meta.insert(QStringLiteral("currency"), m_prices.currency());
    meta.insert(QStringLiteral("finish_reason"), r.finishReason);
    if (hitTokenLimit(r))
        meta.insert(QStringLiteral("truncated"), true);
    if (!r.model.isEmpty() && r.model != cfg.model)
        meta.insert(QStringLiteral("response_model"), r.model);
    meta.insert(QStringLiteral("usage_reported"), r.usageReported);
    if (r.reasoningEstimated || inlineEstimated)
        meta.insert(QStringLiteral("reasoning_tokens_estimated"), true);
}

} // namespace kiln
