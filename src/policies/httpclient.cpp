#include "httpclient.h"

#include <QElapsedTimer>
#include <curl/curl.h>
#include <mutex>

namespace kiln {

namespace {

constexpr qsizetype errorBodyCap = 64 * 1024;

void globalInit()
{
    // curl_global_init is not thread-safe; every worker thread comes through here first.
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Transfer
{
    const HttpRequest *request = nullptr;
    const HttpClient::Sink *sink = nullptr;
    CURL *easy = nullptr;
    HttpResponse response;
    QMap<QByteArray, QByteArray> headers;
    qint64 windowBytes = 0;
    bool tooLarge = false;
    bool sinkAborted = false;
    QString abortReason;
};

size_t onHeader(char *data, size_t size, size_t count, void *user)
{
    auto *t = static_cast<Transfer *>(user);
    const size_t n = size * count;
    const QByteArray line = QByteArray(data, qsizetype(n)).trimmed();
    if (line.startsWith("HTTP/")) {
        // A new response (after 100 Continue or a proxy CONNECT): forget earlier headers.
        t->headers.clear();
        return n;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon > 0)
        t->headers.insert(line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed());
    return n;
}

size_t onWrite(char *data, size_t size, size_t count, void *user)
{
    auto *t = static_cast<Transfer *>(user);
    const size_t n = size * count;
    t->response.bytesReceived += qint64(n);
    t->windowBytes += qint64(n);
    long status = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status >= 300) {
        // Error bodies only explain the error: keep the start, drop the rest.
        const qsizetype room = errorBodyCap - t->response.body.size();
        if (room > 0)
            t->response.body.append(data, std::min<qsizetype>(room, qsizetype(n)));
        return n;
    }
    if (t->response.bytesReceived > t->request->maxResponseBytes) {
        t->tooLarge = true;
        return 0;
    }
    const QByteArray chunk(data, qsizetype(n));
    if (*t->sink) {
        if (!(*t->sink)(chunk, t->headers, &t->abortReason)) {
            t->sinkAborted = true;
            return 0;
        }
    } else {
        t->response.body.append(chunk);
    }
    return n;
}

HttpResponse::Error classify(CURLcode code)
{
    switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
        return HttpResponse::Error::Connect;
    case CURLE_OPERATION_TIMEDOUT:
        return HttpResponse::Error::TotalTimeout;
    default:
        return HttpResponse::Error::Transport;
    }
}

curl_slist *requestHeaders(const HttpRequest &request)
{
    curl_slist *headers = nullptr;
    for (const QByteArray &h : request.headers)
        headers = curl_slist_append(headers, h.constData());
    // No 100-continue round trip for large prompts.
    return curl_slist_append(headers, "Expect:");
}

// `url`, `headers` and `errorBuffer` must outlive the transfer.
void configure(CURL *easy, const HttpRequest &request, const QByteArray &url, curl_slist *headers,
               Transfer &t, char *errorBuffer)
{
    curl_easy_setopt(easy, CURLOPT_URL, url.constData());
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_POST, 1L);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.constData());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_USERAGENT, "kiln/" KILN_VERSION);
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, long(request.connectTimeoutMs));
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, long(request.totalTimeoutMs));
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, onWrite);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errorBuffer);
}

QString stallText(const HttpRequest &request, qint64 windowBytes)
{
    return windowBytes == 0 ? QStringLiteral("no data received for %1 s (idle timeout)")
                                  .arg(request.idleTimeoutMs / 1000.0)
                            : QStringLiteral("only %1 bytes received in %2 s, below the minimum of "
                                             "%3 (stalled trickle)")
                                  .arg(windowBytes)
                                  .arg(request.idleTimeoutMs / 1000.0)
                                  .arg(request.minBytesPerWindow);
}

// Runs the transfer in short slices until it ends, is cancelled or stalls; true when it was
// stopped here (t.response then says why).
bool drive(CURLM *multi, const HttpRequest &request, const std::atomic<bool> &cancel, Transfer &t)
{
    QElapsedTimer window;
    window.start();
    int running = 1;
    while (running) {
        if (curl_multi_perform(multi, &running) != CURLM_OK)
            break;
        if (!running)
            break;
        if (cancel.load()) {
            t.response.error = HttpResponse::Error::Cancelled;
            t.response.errorText = QStringLiteral("cancelled");
            return true;
        }
        if (window.elapsed() >= request.idleTimeoutMs) {
            if (t.windowBytes < request.minBytesPerWindow) {
                t.response.error = HttpResponse::Error::IdleTimeout;
                t.response.errorText = stallText(request, t.windowBytes);
                return true;
            }
            t.windowBytes = 0;
            window.restart();
        }
        curl_multi_poll(multi, nullptr, 0, 50, nullptr);
    }
    return false;
}

CURLcode finishedResult(CURLM *multi)
{
    CURLcode result = CURLE_OK;
    int queued = 0;
    while (CURLMsg *msg = curl_multi_info_read(multi, &queued)) {
        if (msg->msg == CURLMSG_DONE)
            result = msg->data.result;
    }
    return result;
}

// The error of a transfer that libcurl ended with `result` (not CURLE_OK).
void describeFailure(Transfer &t, CURLcode result, const char *errorBuffer)
{
    if (t.tooLarge) {
        t.response.error = HttpResponse::Error::TooLarge;
        t.response.errorText = QStringLiteral("response exceeds the size limit of %1 bytes")
                                   .arg(t.request->maxResponseBytes);
    } else if (t.sinkAborted) {
        t.response.error = HttpResponse::Error::Aborted;
        t.response.errorText = t.abortReason;
    } else {
        t.response.error = classify(result);
        const QString detail = QString::fromUtf8(errorBuffer).trimmed();
        // One arg() call: curl's text may itself contain '%' (URLs).
        t.response.errorText =
            QStringLiteral("%1 (curl %2)")
                .arg(detail.isEmpty() ? QString::fromUtf8(curl_easy_strerror(result)) : detail,
                     QString::number(int(result)));
    }
}

} // namespace

QString HttpClient::errorName(HttpResponse::Error error)
{
    switch (error) {
    case HttpResponse::Error::None:
        return QStringLiteral("none");
    case HttpResponse::Error::Connect:
        return QStringLiteral("connect");
    case HttpResponse::Error::Transport:
        return QStringLiteral("transport");
    case HttpResponse::Error::IdleTimeout:
        return QStringLiteral("idle_timeout");
    case HttpResponse::Error::TotalTimeout:
        return QStringLiteral("timeout");
    case HttpResponse::Error::TooLarge:
        return QStringLiteral("too_large");
    case HttpResponse::Error::Cancelled:
        return QStringLiteral("cancelled");
    case HttpResponse::Error::Aborted:
        return QStringLiteral("aborted");
    }
    return QString();
}

HttpResponse HttpClient::post(const HttpRequest &request, const std::atomic<bool> &cancel,
                              const Sink &sink)
{
    globalInit();
    Transfer t;
    t.request = &request;
    t.sink = &sink;
    QElapsedTimer clock;
    clock.start();
    if (cancel.load()) {
        t.response.error = HttpResponse::Error::Cancelled;
        t.response.errorText = QStringLiteral("cancelled");
        return t.response;
    }

    CURL *easy = curl_easy_init();
    CURLM *multi = curl_multi_init();
    t.easy = easy;
    char errorBuffer[CURL_ERROR_SIZE] = {0};
    curl_slist *headers = requestHeaders(request);
    const QByteArray url = request.url.toUtf8();
    configure(easy, request, url, headers, t, errorBuffer);
    curl_multi_add_handle(multi, easy);

    const bool stopped = drive(multi, request, cancel, t);
    const CURLcode result = stopped ? CURLE_OK : finishedResult(multi);
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    t.response.status = int(status);
    t.response.headers = t.headers;
    curl_multi_remove_handle(multi, easy);
    curl_easy_cleanup(easy);
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);

    if (!stopped && result != CURLE_OK)
        describeFailure(t, result, errorBuffer);
    t.response.elapsedMs = clock.elapsed();
    return t.response;
}

} // namespace kiln
