#include "retrypolicy.h"

#include <QLocale>
#include <algorithm>
#include <cmath>

namespace kiln {

bool RetryPolicy::isRetryableStatus(int httpStatus)
{
    return httpStatus == 408 || httpStatus == 409 || httpStatus == 425 || httpStatus == 429 ||
           (httpStatus >= 500 && httpStatus <= 599);
}

qint64 RetryPolicy::delayMs(int attempt, std::optional<qint64> retryAfterMs, double random01) const
{
    if (retryAfterMs)
        return std::max<qint64>(0, *retryAfterMs);
    const double exponential =
        double(baseDelayMs) * std::pow(2.0, double(std::max(0, attempt - 1)));
    const double capped = std::min(exponential, double(maxDelayMs));
    const double j = std::clamp(jitter, 0.0, 1.0);
    return qint64(capped * (1.0 - j * std::clamp(random01, 0.0, 1.0)));
}

std::optional<qint64> RetryPolicy::parseRetryAfter(const QByteArray &value, const QDateTime &now)
{
    const QByteArray v = value.trimmed();
    if (v.isEmpty())
        return std::nullopt;
    bool ok = false;
    const double seconds = v.toDouble(&ok);
    if (ok)
        return seconds < 0 ? std::nullopt : std::optional<qint64>(qint64(seconds * 1000.0));
    // IMF-fixdate, e.g. "Wed, 21 Oct 2015 07:28:00 GMT" (RFC 9110); the day name is optional.
    QString text = QString::fromLatin1(v);
    if (text.size() > 4 && text.at(3) == QLatin1Char(','))
        text = text.mid(4).trimmed();
    text.remove(QStringLiteral(" GMT"));
    QDateTime when = QLocale::c().toDateTime(text, QStringLiteral("dd MMM yyyy HH:mm:ss"));
    if (!when.isValid())
        return std::nullopt;
    when.setTimeSpec(Qt::UTC);
    return std::max<qint64>(0, now.msecsTo(when));
}

QJsonObject RetryPolicy::toJson() const
{
    return {{QStringLiteral("max_attempts"), maxAttempts},
            {QStringLiteral("base_delay_ms"), baseDelayMs},
            {QStringLiteral("max_delay_ms"), maxDelayMs},
            {QStringLiteral("jitter"), jitter},
            {QStringLiteral("max_retry_after_ms"), maxRetryAfterMs}};
}

void RetryPolicy::readJson(const QJsonObject &object)
{
    maxAttempts = object.value(QStringLiteral("max_attempts")).toInt(maxAttempts);
    baseDelayMs = object.value(QStringLiteral("base_delay_ms")).toInteger(baseDelayMs);
    maxDelayMs = object.value(QStringLiteral("max_delay_ms")).toInteger(maxDelayMs);
    jitter = object.value(QStringLiteral("jitter")).toDouble(jitter);
    maxRetryAfterMs = object.value(QStringLiteral("max_retry_after_ms")).toInteger(maxRetryAfterMs);
}

} // namespace kiln
