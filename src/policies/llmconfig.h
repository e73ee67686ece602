#pragma once

#include "policies/apiflavour.h"
#include "policies/retrypolicy.h"

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <optional>

namespace kiln {

// Everything the LLM policy needs to talk to one endpoint. The API key itself is never part of
// it: only the name of the environment variable holding it, read at request time, so a config
// can be stored with a run (toJson) and shown in logs without leaking the secret.
struct LlmConfig
{
    QString endpoint; // base URL (https://api.openai.com/v1) or the full request URL
    QString model;
    ApiFlavour api = ApiFlavour::OpenAiChat;
    QString apiKeyEnv; // empty: send no key (local servers)

    // Generation
    int maxTokens = 8192;
    QString maxTokensField; // OpenAI flavour; empty: chosen from the endpoint
    std::optional<double> temperature;
    std::optional<double> topP;
    QString reasoningEffort;   // "minimal" | "low" | "medium" | "high"; empty: server default
    qint64 thinkingBudget = 0; // Anthropic thinking.budget_tokens; 0: no extended thinking
    bool sendSeed = false;     // send seed = run seed + sample index (vLLM / SGLang honour it)
    QJsonObject extraBody;     // merged into every request body (provider-specific options)

    // Transport
    bool stream = true;
    bool streamUsage = true;
    int concurrency = 4;
    int connectTimeoutMs = 10000;
    int idleTimeoutMs = 300000;
    qint64 minBytesPerWindow = 1;
    int totalTimeoutMs = 1800000;
    qint64 maxResponseBytes = 16 * 1024 * 1024;
    RetryPolicy retry;

    // Bookkeeping
    bool useCache = true;
    QString priceTableFile; // empty: the embedded example table
    // This model's price per million tokens, over the table's (reasoning at the completion price).
    std::optional<double> pricePrompt;
    std::optional<double> priceCompletion;
    QString promptDir; // user template overrides; empty: none

    // Builds a config from the cli.md flags (--endpoint --model --api --api-key-env) and the
    // "llm.*" entries of --param (others are ignored). Defaults: api from the endpoint host
    // (anthropic.com → anthropic, else openai); endpoint from the api; key variable from the
    // host for the known providers, none for other hosts so a key is never sent elsewhere.
    static std::optional<LlmConfig> fromCli(const QString &endpoint, const QString &model,
                                            const QString &api, const QString &apiKeyEnv,
                                            const QMap<QString, QString> &params, QString *error);
    // Applies one "llm.<name>" setting; false with *error for unknown names or bad values.
    bool applyParam(const QString &key, const QString &value, QString *error);
    static QStringList paramNames(); // without the "llm." prefix
    QString validate() const;        // empty when usable

    QByteArray apiKey() const; // from the environment; empty when unset
    bool apiKeyPresent() const { return !apiKey().isEmpty(); }
    QString endpointHost() const;
    QString requestUrl() const; // the URL requests go to (flavour path appended)
    // The endpoint without user info, query or fragment: safe for the database and the cache key.
    QString publicEndpoint() const;

    QJsonObject toJson() const; // never contains the key
    static LlmConfig fromJson(const QJsonObject &object);
};

} // namespace kiln
