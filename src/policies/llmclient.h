#pragma once

#include "policies/chatapi.h"
#include "policies/concurrencylimiter.h"
#include "policies/llmconfig.h"
#include "policies/llmrequest.h"
#include "policies/llmresponse.h"
#include "policies/responsecache.h"

#include <QStringList>
#include <atomic>
#include <memory>

namespace kiln {

struct HttpRequest;
struct HttpResponse;

// The outcome of one logical call (all its retries). Failures carry a one-line reason that never
// contains the API key; partialText keeps whatever arrived before a stream broke.
struct LlmCallResult
{
    bool ok = false;
    bool cancelled = false;
    QString error;
    QString errorKind; // "http", "transport", "timeout", "too_large", "parse", "stream", ...
    int httpStatus = 0;
    LlmResponse response;
    QString partialText;
    bool cacheHit = false;
    int attempts = 0;
    QStringList attemptErrors; // why each failed attempt failed, in order
    qint64 latencyMs = 0;
    QString cacheKey;
};

// Sends chat completions to one endpoint: request mapping per API flavour, streaming or not,
// limits and timeouts, retries with backoff (honouring Retry-After), the response cache, and
// cancellation. Blocking; call it from a worker thread. Thread-safe (no mutable state besides
// the cache, which is itself thread-safe).
class LlmClient
{
public:
    explicit LlmClient(LlmConfig config, std::shared_ptr<ResponseCache> cache = nullptr);

    // A request with the config's model and generation settings for these messages.
    LlmRequest makeRequest(const QString &system, const QString &user) const;
    // When a limiter is given, a slot is held for the network part only: cache hits never wait.
    LlmCallResult complete(const LlmRequest &request, qint64 sampleIndex,
                           const std::atomic<bool> &cancel,
                           ConcurrencyLimiter *limiter = nullptr) const;

    // sha256 hex over endpoint, model, sha256(body) and the sample index.
    static QString cacheKey(const QString &endpoint, const QString &model, const QByteArray &body,
                            qint64 sampleIndex);
    const LlmConfig &config() const { return m_config; }
    // Replaces every occurrence of the API key in text (servers sometimes echo it in errors).
    QString redact(const QString &text) const;

private:
    struct Attempt;
    Attempt attemptOnce(const LlmRequest &request, const QByteArray &body,
                        const std::atomic<bool> &cancel) const;
    HttpRequest httpRequest(const QByteArray &body, bool stream) const;
    // A non-2xx answer; 401 and 403 also say what to check about the key.
    void describeHttpError(const HttpResponse &reply, Attempt &a) const;
    // A transfer that failed; `streamRetryable`: the stream's error event is worth retrying.
    void describeTransportError(const HttpResponse &reply, bool streamRetryable, Attempt &a) const;

    // The cached answer for result.cacheKey into `result`; false when there is none usable.
    bool readCache(LlmCallResult &result) const;
    void writeCache(const LlmRequest &request, const QByteArray &body, const QString &endpoint,
                    qint64 sampleIndex, const LlmCallResult &result) const;
    // The attempts of one call, with backoff between them, until one succeeds or retrying stops.
    void callWithRetries(const LlmRequest &request, const QByteArray &body,
                         const std::atomic<bool> &cancel, LlmCallResult &result) const;
    void takeResponse(const LlmResponse &response, qint64 promptChars, LlmCallResult &result) const;
    // Whether a failed attempt may be retried; if not, result.error says why it stopped.
    bool retryAllowed(const Attempt &a, int attempt, int maxAttempts, LlmCallResult &result) const;
    static void markCancelled(LlmCallResult &result);

    LlmConfig m_config;
    std::unique_ptr<ChatApi> m_api;
    std::shared_ptr<ResponseCache> m_cache;
    QString m_url;
};

} // namespace kiln
