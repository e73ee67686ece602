#include "llmclient.h"

#include "policies/httpclient.h"
#include "policies/llmstreamreader.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QThread>
#include <QUrl>

namespace kiln {

struct LlmClient::Attempt
{
    bool ok = false;
    bool retryable = false;
    bool cancelled = false;
    QString error;
    QString errorKind;
    int status = 0;
    std::optional<qint64> retryAfterMs;
    LlmResponse response;
    QString partialText;
};

namespace {

// Sleeps in short slices so a cancel request is seen within ~20 ms.
bool sleepUnlessCancelled(qint64 ms, const std::atomic<bool> &cancel)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < ms) {
        if (cancel.load())
            return false;
        QThread::msleep(quint64(std::min<qint64>(20, ms - timer.elapsed() + 1)));
    }
    return !cancel.load();
}

QString statusPhrase(int status)
{
    switch (status) {
    case 400:
        return QStringLiteral("bad request");
    case 401:
        return QStringLiteral("unauthorized");
    case 403:
        return QStringLiteral("forbidden");
    case 404:
        return QStringLiteral("not found");
    case 408:
        return QStringLiteral("request timeout");
    case 413:
        return QStringLiteral("request too large");
    case 429:
        return QStringLiteral("rate limited");
    case 500:
        return QStringLiteral("internal server error");
    case 502:
        return QStringLiteral("bad gateway");
    case 503:
        return QStringLiteral("service unavailable");
    case 504:
        return QStringLiteral("gateway timeout");
    case 529:
        return QStringLiteral("overloaded");
    default:
        return QString();
    }
}

} // namespace

LlmClient::LlmClient(LlmConfig config, std::shared_ptr<ResponseCache> cache)
    : m_config(std::move(config)), m_api(ChatApi::create(m_config.api)), m_cache(std::move(cache))
{
    m_url = m_api->requestUrl(m_config.endpoint);
}

QString LlmClient::cacheKey(const QString &endpoint, const QString &model, const QByteArray &body,
                            qint64 sampleIndex)
{
    const QByteArray bodyHash = QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex();
    QByteArray material = endpoint.toUtf8() + '\n' + model.toUtf8() + '\n' + bodyHash + '\n' +
                          QByteArray::number(sampleIndex);
    return QString::fromLatin1(
        QCryptographicHash::hash(material, QCryptographicHash::Sha256).toHex());
}

QString LlmClient::redact(const QString &text) const
{
    const QByteArray key = m_config.apiKey();
    if (key.size() < 4 || text.isEmpty())
        return text;
    QString out = text;
    out.replace(QString::fromUtf8(key), QStringLiteral("[redacted]"));
    return out;
}

LlmRequest LlmClient::makeRequest(const QString &system, const QString &user) const
{
    LlmRequest r;
    r.model = m_config.model;
    r.system = system;
    r.user = user;
    r.maxTokens = m_config.maxTokens;
    r.temperature = m_config.temperature;
    r.topP = m_config.topP;
    r.reasoningEffort = m_config.reasoningEffort;
    r.thinkingBudget = m_config.thinkingBudget;
    r.stream = m_config.stream;
    r.streamUsage = m_config.streamUsage;
    r.maxTokensField = m_config.maxTokensField;
    if (r.maxTokensField.isEmpty())
        // OpenAI's reasoning models refuse max_tokens; most other servers only know max_tokens.
        r.maxTokensField = m_config.endpointHost() == QStringLiteral("api.openai.com")
                               ? QStringLiteral("max_completion_tokens")
                               : QStringLiteral("max_tokens");
    r.extraBody = m_config.extraBody;
    return r;
}

HttpRequest LlmClient::httpRequest(const QByteArray &body, bool stream) const
{
    HttpRequest http;
    http.url = m_url;
    http.headers = m_api->headers(m_config.apiKey(), stream);
    http.body = body;
    http.connectTimeoutMs = m_config.connectTimeoutMs;
    http.idleTimeoutMs = m_config.idleTimeoutMs;
    http.minBytesPerWindow = m_config.minBytesPerWindow;
    http.totalTimeoutMs = m_config.totalTimeoutMs;
    http.maxResponseBytes = m_config.maxResponseBytes;
    return http;
}

LlmClient::Attempt LlmClient::attemptOnce(const LlmRequest &request, const QByteArray &body,
                                          const std::atomic<bool> &cancel) const
{
    Attempt a;
    const HttpRequest http = httpRequest(body, request.stream);
    LlmStreamReader reader(*m_api);
    HttpClient::Sink sink;
    if (request.stream)
        sink = reader.sink();
    const HttpResponse reply = HttpClient::post(http, cancel, sink);
    a.status = reply.status;
    a.partialText = reader.state().response.text;
    if (reply.error == HttpResponse::Error::Cancelled || cancel.load()) {
        a.cancelled = true;
        a.error = QStringLiteral("cancelled");
        a.errorKind = QStringLiteral("cancelled");
        return a;
    }
    if (reply.status != 0 && (reply.status < 200 || reply.status >= 300)) {
        describeHttpError(reply, a);
        return a;
    }
    if (!reply.transportOk()) {
        describeTransportError(reply, reader.state().retryable, a);
        return a;
    }

    if (!request.stream || !reader.eventStream()) {
        const ChatApi::ParseResult parsed =
            m_api->parseResponse(request.stream ? reader.rawBody() : reply.body);
        if (!parsed.ok) {
            a.error = parsed.error;
            a.errorKind = QStringLiteral("parse");
            a.retryable = parsed.retryable;
            return a;
        }
        a.response = parsed.response;
    } else {
        if (!reader.complete()) {
            a.errorKind = QStringLiteral("stream");
            a.retryable = true;
            a.error = reader.incompleteError();
            return a;
        }
        a.response = reader.finish();
    }
    a.ok = true;
    return a;
}

void LlmClient::describeHttpError(const HttpResponse &reply, Attempt &a) const
{
    const QString phrase = statusPhrase(reply.status);
    a.errorKind = QStringLiteral("http");
    a.error =
        QStringLiteral("HTTP %1%2: %3")
            .arg(reply.status)
            .arg(phrase.isEmpty() ? QString() : QStringLiteral(" (") + phrase + QLatin1Char(')'))
            .arg(ChatApi::describeErrorBody(reply.body));
    if (reply.status == 401 || reply.status == 403)
        a.error += m_config.apiKeyEnv.isEmpty()
                       ? QStringLiteral(" - no API key was sent; name the variable holding "
                                        "it with --api-key-env")
                       : (m_config.apiKeyPresent()
                              ? QStringLiteral(" - check the key in $%1").arg(m_config.apiKeyEnv)
                              : QStringLiteral(" - $%1 is not set").arg(m_config.apiKeyEnv));
    a.retryable = RetryPolicy::isRetryableStatus(reply.status);
    const QByteArray retryAfter = reply.header("retry-after");
    if (!retryAfter.isEmpty())
        a.retryAfterMs = RetryPolicy::parseRetryAfter(retryAfter, QDateTime::currentDateTimeUtc());
}

void LlmClient::describeTransportError(const HttpResponse &reply, bool streamRetryable,
                                       Attempt &a) const
{
    a.error = reply.errorText;
    switch (reply.error) {
    case HttpResponse::Error::TooLarge:
        a.errorKind = QStringLiteral("too_large");
        break;
    case HttpResponse::Error::Aborted:
        // The stream carried an error event (overloaded, rate limited, ...).
        a.errorKind = QStringLiteral("stream");
        a.retryable = streamRetryable;
        break;
    case HttpResponse::Error::Connect:
        a.errorKind = QStringLiteral("connect");
        a.error = QStringLiteral("cannot connect to %1: %2")
                      .arg(m_config.endpointHost(), reply.errorText);
        a.retryable = true;
        break;
    case HttpResponse::Error::IdleTimeout:
    case HttpResponse::Error::TotalTimeout:
        a.errorKind = QStringLiteral("timeout");
        a.retryable = true;
        break;
    default:
        a.errorKind = QStringLiteral("transport");
        a.error = QStringLiteral("the connection broke after %1 bytes: %2")
                      .arg(reply.bytesReceived)
                      .arg(reply.errorText);
        a.retryable = true;
        break;
    }
}

LlmCallResult LlmClient::complete(const LlmRequest &request, qint64 sampleIndex,
                                  const std::atomic<bool> &cancel,
                                  ConcurrencyLimiter *limiter) const
{
    LlmCallResult result;
    QElapsedTimer clock;
    clock.start();
    const QByteArray body = m_api->requestBody(request);
    const QString endpoint =
        QUrl(m_url)
            .adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment)
            .toString();
    result.cacheKey = cacheKey(endpoint, request.model, body, sampleIndex);

    if (m_cache && m_config.useCache && readCache(result)) {
        result.latencyMs = clock.elapsed();
        return result;
    }

    std::optional<ConcurrencyLimiter::Guard> slot;
    if (limiter) {
        slot.emplace(*limiter, cancel);
        if (!slot->held()) {
            markCancelled(result);
            result.latencyMs = clock.elapsed();
            return result;
        }
    }
    callWithRetries(request, body, cancel, result);
    slot.reset();
    result.latencyMs = clock.elapsed();

    if (result.ok && m_cache && m_config.useCache)
        writeCache(request, body, endpoint, sampleIndex, result);
    return result;
}

bool LlmClient::readCache(LlmCallResult &result) const
{
    const std::optional<CachedCompletion> hit = m_cache->get(result.cacheKey);
    if (!hit)
        return false;
    const QJsonDocument doc = QJsonDocument::fromJson(hit->response.toUtf8());
    if (!doc.isObject())
        return false;
    result.ok = true;
    result.cacheHit = true;
    result.response = LlmResponse::fromJson(doc.object());
    return true;
}

void LlmClient::writeCache(const LlmRequest &request, const QByteArray &body,
                           const QString &endpoint, qint64 sampleIndex,
                           const LlmCallResult &result) const
{
    CachedCompletion entry;
    entry.key = result.cacheKey;
    entry.endpoint = endpoint;
    entry.model = request.model;
    entry.bodyHash =
        QString::fromLatin1(QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex());
    entry.sampleIndex = sampleIndex;
    entry.response =
        QString::fromUtf8(QJsonDocument(result.response.toJson()).toJson(QJsonDocument::Compact));
    entry.usage = result.response.usageJson();
    entry.createdAt = QDateTime::currentDateTimeUtc();
    m_cache->put(entry);
}

void LlmClient::markCancelled(LlmCallResult &result)
{
    result.cancelled = true;
    result.error = QStringLiteral("cancelled");
    result.errorKind = QStringLiteral("cancelled");
}

void LlmClient::callWithRetries(const LlmRequest &request, const QByteArray &body,
                                const std::atomic<bool> &cancel, LlmCallResult &result) const
{
    const qint64 promptChars = request.system.size() + request.user.size();
    const int maxAttempts = std::max(1, m_config.retry.maxAttempts);
    for (int attempt = 1; attempt <= maxAttempts; ++attempt) {
        result.attempts = attempt;
        Attempt a = attemptOnce(request, body, cancel);
        result.httpStatus = a.status;
        if (!a.partialText.isEmpty())
            result.partialText = redact(a.partialText);
        if (a.ok) {
            takeResponse(a.response, promptChars, result);
            return;
        }
        result.error = redact(a.error);
        result.errorKind = a.errorKind;
        result.attemptErrors << result.error;
        if (a.cancelled) {
            result.cancelled = true;
            return;
        }
        if (!retryAllowed(a, attempt, maxAttempts, result))
            return;
        const qint64 delay = m_config.retry.delayMs(attempt, a.retryAfterMs,
                                                    QRandomGenerator::global()->generateDouble());
        if (!sleepUnlessCancelled(delay, cancel)) {
            markCancelled(result);
            return;
        }
    }
}

void LlmClient::takeResponse(const LlmResponse &response, qint64 promptChars,
                             LlmCallResult &result) const
{
    result.ok = true;
    result.error.clear();
    result.errorKind.clear();
    result.response = response;
    result.response.text = redact(result.response.text);
    result.response.reasoning = redact(result.response.reasoning);
    if (!result.response.usageReported)
        result.response.finalizeUsage(promptChars);
}

bool LlmClient::retryAllowed(const Attempt &a, int attempt, int maxAttempts,
                             LlmCallResult &result) const
{
    if (!a.retryable || attempt == maxAttempts) {
        if (attempt > 1)
            result.error += QStringLiteral(" (gave up after %1 attempts)").arg(attempt);
        return false;
    }
    if (a.retryAfterMs && *a.retryAfterMs > m_config.retry.maxRetryAfterMs) {
        result.error += QStringLiteral(" (the server asked to wait %1 s, more than the "
                                       "%2 s limit)")
                            .arg(*a.retryAfterMs / 1000.0)
                            .arg(m_config.retry.maxRetryAfterMs / 1000.0);
        return false;
    }
    return true;
}

} // namespace kiln
