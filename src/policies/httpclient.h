#pragma once

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <atomic>
#include <functional>

namespace kiln {

struct HttpRequest
{
    QString url;
    QList<QByteArray> headers; // "Name: value"
    QByteArray body;           // POSTed as is
    int connectTimeoutMs = 10000;
    // Stall detection: abort when fewer than minBytesPerWindow bytes arrive in any idleTimeoutMs
    // window (1 byte: a plain idle timeout; more: a trickle of bytes is caught too).
    int idleTimeoutMs = 300000;
    qint64 minBytesPerWindow = 1;
    int totalTimeoutMs = 1800000;
    qint64 maxResponseBytes = 16 * 1024 * 1024;
};

struct HttpResponse
{
    enum class Error
    {
        None,
        Connect,     // could not connect / resolve / TLS handshake
        Transport,   // the connection broke mid-transfer
        IdleTimeout, // stalled or trickling (HttpRequest::idleTimeoutMs)
        TotalTimeout,
        TooLarge, // maxResponseBytes exceeded
        Cancelled,
        Aborted, // the data sink refused the data (its reason is in errorText)
    };
    Error error = Error::None;
    QString errorText; // one line, never containing request headers
    int status = 0;
    QMap<QByteArray, QByteArray> headers; // lower-case names; the final response's only
    QByteArray body; // when no sink was given, or the status is not 2xx (capped at 64 KiB)
    qint64 bytesReceived = 0;
    qint64 elapsedMs = 0;

    bool transportOk() const { return error == Error::None; }
    QByteArray header(const QByteArray &name) const { return headers.value(name.toLower()); }
};

// A blocking HTTP POST over libcurl, run in the calling thread (a multi handle polled in short
// slices so that cancellation and the stall check react within ~50 ms). Successful (2xx) bodies
// go to the sink chunk by chunk as they arrive; the sink sees the response headers and returns
// false (with a reason in *abortReason) to stop the transfer.
class HttpClient
{
public:
    using Sink =
        std::function<bool(const QByteArray &chunk, const QMap<QByteArray, QByteArray> &headers,
                           QString *abortReason)>;
    static HttpResponse post(const HttpRequest &request, const std::atomic<bool> &cancel,
                             const Sink &sink = {});
    static QString errorName(HttpResponse::Error error);
};

} // namespace kiln
