#include "llmconfig.h"

#include "policies/chatapi.h"

#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrl>

namespace kiln {

namespace {

bool parseBool(const QString &value, bool *ok)
{
    const QString v = value.trimmed().toLower();
    *ok = true;
    if (v == QStringLiteral("1") || v == QStringLiteral("true") || v == QStringLiteral("yes") ||
        v == QStringLiteral("on"))
        return true;
    if (v == QStringLiteral("0") || v == QStringLiteral("false") || v == QStringLiteral("no") ||
        v == QStringLiteral("off"))
        return false;
    *ok = false;
    return false;
}

QString defaultKeyEnv(ApiFlavour api, const QString &host)
{
    if (api == ApiFlavour::AnthropicMessages)
        return host.endsWith(QStringLiteral("anthropic.com")) ? QStringLiteral("ANTHROPIC_API_KEY")
                                                              : QString();
    if (host == QStringLiteral("api.openai.com"))
        return QStringLiteral("OPENAI_API_KEY");
    if (host.endsWith(QStringLiteral("openrouter.ai")))
        return QStringLiteral("OPENROUTER_API_KEY");
    if (host.endsWith(QStringLiteral("deepseek.com")))
        return QStringLiteral("DEEPSEEK_API_KEY");
    return QString();
}

// One "llm.<name>=value" setting being applied, and where its error goes.
struct ParamInput
{
    const QString &name;
    const QString &value;
    QString *error;
};

// What a group of settings made of one: not one of its names, applied, or refused (*error set).
enum class ParamOutcome
{
    NotInGroup,
    Applied,
    Refused
};

ParamOutcome refuse(const ParamInput &in, const QString &what)
{
    if (in.error)
        *in.error = QStringLiteral("--param llm.%1=%2: %3").arg(in.name, in.value, what);
    return ParamOutcome::Refused;
}

ParamOutcome takeBool(const ParamInput &in, bool *target)
{
    bool ok = true;
    *target = parseBool(in.value, &ok);
    return ok ? ParamOutcome::Applied : refuse(in, QStringLiteral("expected true or false"));
}

ParamOutcome takeSeconds(const ParamInput &in, int *targetMs)
{
    bool ok = true;
    const double s = in.value.toDouble(&ok);
    if (!ok || s <= 0)
        return refuse(in, QStringLiteral("expected a positive number of seconds"));
    *targetMs = int(s * 1000.0);
    return ParamOutcome::Applied;
}

// The settings of what is asked of the model.
ParamOutcome applyGenerationParam(LlmConfig &c, const ParamInput &in)
{
    const QString &name = in.name;
    const QString &value = in.value;
    bool ok = true;
    if (name == QStringLiteral("max_tokens")) {
        c.maxTokens = value.toInt(&ok);
        if (!ok || c.maxTokens <= 0)
            return refuse(in, QStringLiteral("expected a positive integer"));
    } else if (name == QStringLiteral("max_tokens_field")) {
        if (value != QStringLiteral("max_tokens") &&
            value != QStringLiteral("max_completion_tokens"))
            return refuse(in, QStringLiteral("expected max_tokens or max_completion_tokens"));
        c.maxTokensField = value;
    } else if (name == QStringLiteral("temperature") || name == QStringLiteral("top_p")) {
        const double v = value.toDouble(&ok);
        if (!ok || v < 0)
            return refuse(in, QStringLiteral("expected a non-negative number"));
        (name == QStringLiteral("temperature") ? c.temperature : c.topP) = v;
    } else if (name == QStringLiteral("reasoning_effort")) {
        static const QStringList levels{QStringLiteral("minimal"), QStringLiteral("low"),
                                        QStringLiteral("medium"), QStringLiteral("high"),
                                        QString()};
        if (!levels.contains(value))
            return refuse(in, QStringLiteral("expected minimal, low, medium or high"));
        c.reasoningEffort = value;
    } else if (name == QStringLiteral("thinking_budget")) {
        c.thinkingBudget = value.toLongLong(&ok);
        if (!ok || c.thinkingBudget < 0)
            return refuse(in, QStringLiteral("expected a token count (0: off)"));
    } else if (name == QStringLiteral("seed")) {
        return takeBool(in, &c.sendSeed);
    } else if (name == QStringLiteral("extra_body")) {
        const QJsonDocument doc = QJsonDocument::fromJson(value.toUtf8());
        if (!doc.isObject())
            return refuse(in, QStringLiteral("expected a JSON object"));
        c.extraBody = doc.object();
    } else {
        return ParamOutcome::NotInGroup;
    }
    return ParamOutcome::Applied;
}

// The settings of the connection: streaming, parallel requests, timeouts and size limits.
ParamOutcome applyTransportParam(LlmConfig &c, const ParamInput &in)
{
    const QString &name = in.name;
    const QString &value = in.value;
    bool ok = true;
    if (name == QStringLiteral("stream"))
        return takeBool(in, &c.stream);
    if (name == QStringLiteral("stream_usage"))
        return takeBool(in, &c.streamUsage);
    if (name == QStringLiteral("connect_timeout_s"))
        return takeSeconds(in, &c.connectTimeoutMs);
    if (name == QStringLiteral("idle_timeout_s"))
        return takeSeconds(in, &c.idleTimeoutMs);
    if (name == QStringLiteral("timeout_s"))
        return takeSeconds(in, &c.totalTimeoutMs);
    if (name == QStringLiteral("concurrency")) {
        c.concurrency = value.toInt(&ok);
        if (!ok || c.concurrency < 1)
            return refuse(in, QStringLiteral("expected an integer >= 1"));
    } else if (name == QStringLiteral("min_bytes_per_window")) {
        c.minBytesPerWindow = value.toLongLong(&ok);
        if (!ok || c.minBytesPerWindow < 1)
            return refuse(in, QStringLiteral("expected an integer >= 1"));
    } else if (name == QStringLiteral("max_response_bytes")) {
        c.maxResponseBytes = value.toLongLong(&ok);
        if (!ok || c.maxResponseBytes < 1024)
            return refuse(in, QStringLiteral("expected an integer >= 1024"));
    } else {
        return ParamOutcome::NotInGroup;
    }
    return ParamOutcome::Applied;
}

ParamOutcome applyRetryParam(RetryPolicy &retry, const ParamInput &in)
{
    const QString &name = in.name;
    const QString &value = in.value;
    bool ok = true;
    if (name == QStringLiteral("retries")) {
        // The number of retries after the first attempt.
        const int retries = value.toInt(&ok);
        if (!ok || retries < 0)
            return refuse(in, QStringLiteral("expected an integer >= 0"));
        retry.maxAttempts = retries + 1;
    } else if (name == QStringLiteral("retry_base_ms")) {
        retry.baseDelayMs = value.toLongLong(&ok);
        if (!ok || retry.baseDelayMs < 0)
            return refuse(in, QStringLiteral("expected milliseconds >= 0"));
    } else if (name == QStringLiteral("retry_max_ms")) {
        retry.maxDelayMs = value.toLongLong(&ok);
        if (!ok || retry.maxDelayMs < 0)
            return refuse(in, QStringLiteral("expected milliseconds >= 0"));
    } else {
        return ParamOutcome::NotInGroup;
    }
    return ParamOutcome::Applied;
}

// The settings of what is kept: the response cache, prices and prompt templates.
ParamOutcome applyBookkeepingParam(LlmConfig &c, const ParamInput &in)
{
    const QString &name = in.name;
    const QString &value = in.value;
    if (name == QStringLiteral("cache"))
        return takeBool(in, &c.useCache);
    if (name == QStringLiteral("price_table")) {
        c.priceTableFile = value;
    } else if (name == QStringLiteral("price_prompt") ||
               name == QStringLiteral("price_completion")) {
        bool ok = true;
        const double price = value.toDouble(&ok);
        if (!ok || price < 0)
            return refuse(in, QStringLiteral("expected a price per million tokens >= 0"));
        (name == QStringLiteral("price_prompt") ? c.pricePrompt : c.priceCompletion) = price;
    } else if (name == QStringLiteral("prompts_dir")) {
        c.promptDir = value;
    } else {
        return ParamOutcome::NotInGroup;
    }
    return ParamOutcome::Applied;
}

} // namespace

QStringList LlmConfig::paramNames()
{
    return {QStringLiteral("max_tokens"),
            QStringLiteral("max_tokens_field"),
            QStringLiteral("temperature"),
            QStringLiteral("top_p"),
            QStringLiteral("reasoning_effort"),
            QStringLiteral("thinking_budget"),
            QStringLiteral("seed"),
            QStringLiteral("extra_body"),
            QStringLiteral("stream"),
            QStringLiteral("stream_usage"),
            QStringLiteral("concurrency"),
            QStringLiteral("connect_timeout_s"),
            QStringLiteral("idle_timeout_s"),
            QStringLiteral("min_bytes_per_window"),
            QStringLiteral("timeout_s"),
            QStringLiteral("max_response_bytes"),
            QStringLiteral("retries"),
            QStringLiteral("retry_base_ms"),
            QStringLiteral("retry_max_ms"),
            QStringLiteral("cache"),
            QStringLiteral("price_table"),
            QStringLiteral("price_prompt"),
            QStringLiteral("price_completion"),
            QStringLiteral("prompts_dir")};
}

bool LlmConfig::applyParam(const QString &key, const QString &value, QString *error)
{
    const QString name = key.startsWith(QStringLiteral("llm.")) ? key.mid(4) : key;
    const ParamInput in{name, value, error};
    ParamOutcome outcome = applyGenerationParam(*this, in);
    if (outcome == ParamOutcome::NotInGroup)
        outcome = applyTransportParam(*this, in);
    if (outcome == ParamOutcome::NotInGroup)
        outcome = applyRetryParam(retry, in);
    if (outcome == ParamOutcome::NotInGroup)
        outcome = applyBookkeepingParam(*this, in);
    if (outcome == ParamOutcome::NotInGroup) {
        if (error)
            *error = QStringLiteral("unknown parameter llm.%1 (known: %2)")
                         .arg(name, paramNames().join(QStringLiteral(", ")));
        return false;
    }
    return outcome == ParamOutcome::Applied;
}

std::optional<LlmConfig> LlmConfig::fromCli(const QString &endpoint, const QString &model,
                                            const QString &api, const QString &apiKeyEnv,
                                            const QMap<QString, QString> &params, QString *error)
{
    LlmConfig config;
    const QString host = QUrl(endpoint.trimmed()).host().toLower();
    if (!api.isEmpty()) {
        const std::optional<ApiFlavour> flavour = apiFlavourFromName(api);
        if (!flavour) {
            if (error)
                *error = QStringLiteral("--api %1: expected openai or anthropic").arg(api);
            return std::nullopt;
        }
        config.api = *flavour;
    } else if (host.endsWith(QStringLiteral("anthropic.com"))) {
        config.api = ApiFlavour::AnthropicMessages;
    }
    config.endpoint = endpoint.trimmed();
    if (config.endpoint.isEmpty())
        config.endpoint = config.api == ApiFlavour::AnthropicMessages
                              ? QStringLiteral("https://api.anthropic.com")
                              : QStringLiteral("https://api.openai.com/v1");
    config.model = model.trimmed();
    config.apiKeyEnv = apiKeyEnv.isEmpty() ? defaultKeyEnv(config.api, config.endpointHost())
                                           : apiKeyEnv.trimmed();
    for (auto it = params.begin(); it != params.end(); ++it) {
        if (!it.key().startsWith(QStringLiteral("llm.")))
            continue;
        if (!config.applyParam(it.key(), it.value(), error))
            return std::nullopt;
    }
    const QString problem = config.validate();
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return std::nullopt;
    }
    return config;
}

QString LlmConfig::validate() const
{
    if (model.isEmpty())
        return QStringLiteral("the llm policy needs --model");
    const QUrl url(endpoint);
    if (!url.isValid() || url.host().isEmpty() ||
        (url.scheme() != QStringLiteral("http") && url.scheme() != QStringLiteral("https")))
        return QStringLiteral("--endpoint %1: expected an http:// or https:// URL")
            .arg(publicEndpoint());
    if (!apiKeyEnv.isEmpty()) {
        static const QRegularExpression name(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
        if (!name.match(apiKeyEnv).hasMatch())
            return QStringLiteral("--api-key-env expects the NAME of an environment variable, "
                                  "not the key itself");
    }
    return QString();
}

QByteArray LlmConfig::apiKey() const
{
    if (apiKeyEnv.isEmpty())
        return QByteArray();
    const QByteArray key = qgetenv(apiKeyEnv.toLocal8Bit().constData()).trimmed();
    // A control character would split the header it is sent in: treat such a value as unset.
    for (char c : key) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return QByteArray();
    }
    return key;
}

QString LlmConfig::endpointHost() const
{
    return QUrl(endpoint).host();
}

QString LlmConfig::publicEndpoint() const
{
    QUrl url(endpoint);
    if (!url.isValid())
        return QStringLiteral("(invalid URL)");
    return url.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment).toString();
}

QString LlmConfig::requestUrl() const
{
    return ChatApi::create(api)->requestUrl(endpoint);
}

QJsonObject LlmConfig::toJson() const
{
    QJsonObject o{{QStringLiteral("endpoint"), publicEndpoint()},
                  {QStringLiteral("model"), model},
                  {QStringLiteral("api"), apiFlavourName(api)},
                  {QStringLiteral("api_key_env"), apiKeyEnv},
                  {QStringLiteral("max_tokens"), maxTokens},
                  {QStringLiteral("max_tokens_field"), maxTokensField},
                  {QStringLiteral("reasoning_effort"), reasoningEffort},
                  {QStringLiteral("thinking_budget"), thinkingBudget},
                  {QStringLiteral("seed"), sendSeed},
                  {QStringLiteral("extra_body"), extraBody},
                  {QStringLiteral("stream"), stream},
                  {QStringLiteral("stream_usage"), streamUsage},
                  {QStringLiteral("concurrency"), concurrency},
                  {QStringLiteral("connect_timeout_ms"), connectTimeoutMs},
                  {QStringLiteral("idle_timeout_ms"), idleTimeoutMs},
                  {QStringLiteral("min_bytes_per_window"), minBytesPerWindow},
                  {QStringLiteral("timeout_ms"), totalTimeoutMs},
                  {QStringLiteral("max_response_bytes"), maxResponseBytes},
                  {QStringLiteral("retry"), retry.toJson()},
                  {QStringLiteral("cache"), useCache},
                  {QStringLiteral("price_table"), priceTableFile},
                  {QStringLiteral("prompts_dir"), promptDir}};
    if (temperature)
        o.insert(QStringLiteral("temperature"), *temperature);
    if (topP)
        o.insert(QStringLiteral("top_p"), *topP);
    return o;
}

LlmConfig LlmConfig::fromJson(const QJsonObject &o)
{
    LlmConfig c;
    c.endpoint = o.value(QStringLiteral("endpoint")).toString();
    c.model = o.value(QStringLiteral("model")).toString();
    c.api = apiFlavourFromName(o.value(QStringLiteral("api")).toString())
                .value_or(ApiFlavour::OpenAiChat);
    c.apiKeyEnv = o.value(QStringLiteral("api_key_env")).toString();
    c.maxTokens = o.value(QStringLiteral("max_tokens")).toInt(c.maxTokens);
    c.maxTokensField = o.value(QStringLiteral("max_tokens_field")).toString();
    if (o.value(QStringLiteral("temperature")).isDouble())
        c.temperature = o.value(QStringLiteral("temperature")).toDouble();
    if (o.value(QStringLiteral("top_p")).isDouble())
        c.topP = o.value(QStringLiteral("top_p")).toDouble();
    c.reasoningEffort = o.value(QStringLiteral("reasoning_effort")).toString();
    c.thinkingBudget = o.value(QStringLiteral("thinking_budget")).toInteger();
    c.sendSeed = o.value(QStringLiteral("seed")).toBool();
    c.extraBody = o.value(QStringLiteral("extra_body")).toObject();
    c.stream = o.value(QStringLiteral("stream")).toBool(c.stream);
    c.streamUsage = o.value(QStringLiteral("stream_usage")).toBool(c.streamUsage);
    c.concurrency = o.value(QStringLiteral("concurrency")).toInt(c.concurrency);
    c.connectTimeoutMs = o.value(QStringLiteral("connect_timeout_ms")).toInt(c.connectTimeoutMs);
    c.idleTimeoutMs = o.value(QStringLiteral("idle_timeout_ms")).toInt(c.idleTimeoutMs);
    c.minBytesPerWindow =
        o.value(QStringLiteral("min_bytes_per_window")).toInteger(c.minBytesPerWindow);
    c.totalTimeoutMs = o.value(QStringLiteral("timeout_ms")).toInt(c.totalTimeoutMs);
    c.maxResponseBytes =
        o.value(QStringLiteral("max_response_bytes")).toInteger(c.maxResponseBytes);
    c.retry.readJson(o.value(QStringLiteral("retry")).toObject());
    c.useCache = o.value(QStringLiteral("cache")).toBool(c.useCache);
    c.priceTableFile = o.value(QStringLiteral("price_table")).toString();
    c.promptDir = o.value(QStringLiteral("prompts_dir")).toString();
    return c;
}

} // namespace kiln
