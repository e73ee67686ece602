#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <optional>

namespace kiln {

// When and how long to wait before trying a failed LLM call again: exponential backoff with
// jitter, or exactly what the server asked for in Retry-After (capped). 429, 408, 5xx and 529
// ("overloaded") are retried; 4xx such as 400/401/403/404 are not, since repeating cannot help.
class RetryPolicy
{
public:
    int maxAttempts = 5;       // first try included
    qint64 baseDelayMs = 1000; // before the second attempt
    qint64 maxDelayMs = 60000;
    double jitter = 0.5;             // the delay is drawn from [d * (1 - jitter), d]
    qint64 maxRetryAfterMs = 300000; // a longer Retry-After gives up instead of waiting

    static bool isRetryableStatus(int httpStatus);
    // Delay before attempt number `attempt + 1` (attempt counts from 1); random01 in [0, 1).
    qint64 delayMs(int attempt, std::optional<qint64> retryAfterMs, double random01) const;
    // Retry-After as delta-seconds ("120", "1.5") or an HTTP date; std::nullopt when unparsable.
    static std::optional<qint64> parseRetryAfter(const QByteArray &value, const QDateTime &now);

    QJsonObject toJson() const;
    void readJson(const QJsonObject &object);
};

} // namespace kiln
