#pragma once

// A real HTTP/1.1 server on 127.0.0.1 for the LLM client tests: it replays scripted raw responses
// (status line, headers, body chunks with delays) so every byte-level misbehaviour of a provider
// or proxy can be reproduced against the real libcurl client. One thread per connection; each
// response closes its connection.

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QMetaType>
#include <QString>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln::test {

struct ScriptedChunk
{
    QByteArray bytes;
    int delayMs = 0; // before sending these bytes
};

struct ScriptedResponse
{
    QList<ScriptedChunk> chunks;
    int delayMs = 0; // before anything is sent (server "thinking")

    static QByteArray head(int status, const QByteArray &contentType,
                           const QList<QByteArray> &extraHeaders, qint64 contentLength)
    {
        QByteArray h = "HTTP/1.1 " + QByteArray::number(status) + " Scripted\r\n";
        if (!contentType.isEmpty())
            h += "Content-Type: " + contentType + "\r\n";
        for (const QByteArray &extra : extraHeaders)
            h += extra + "\r\n";
        if (contentLength >= 0)
            h += "Content-Length: " + QByteArray::number(contentLength) + "\r\n";
        h += "Connection: close\r\n\r\n";
        return h;
    }
    // A complete response with a Content-Length.
    static ScriptedResponse body(int status, const QByteArray &contentType, const QByteArray &body,
                                 const QList<QByteArray> &extraHeaders = {})
    {
        ScriptedResponse r;
        r.chunks << ScriptedChunk{head(status, contentType, extraHeaders, body.size()) + body, 0};
        return r;
    }
    static ScriptedResponse json(int status, const QByteArray &json,
                                 const QList<QByteArray> &extraHeaders = {})
    {
        return body(status, "application/json", json, extraHeaders);
    }
    // An event stream without a length: it ends when the server closes the connection.
    static ScriptedResponse stream(const QList<QByteArray> &chunks, int delayBetweenMs = 0,
                                   const QByteArray &contentType = "text/event-stream")
    {
        ScriptedResponse r;
        r.chunks << ScriptedChunk{head(200, contentType, {"Cache-Control: no-cache"}, -1), 0};
        for (const QByteArray &c : chunks)
            r.chunks << ScriptedChunk{c, delayBetweenMs};
        return r;
    }
};

class ScriptedHttpServer
{
public:
    ScriptedHttpServer()
    {
        m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        ::bind(m_listen, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
        ::listen(m_listen, 64);
        socklen_t len = sizeof addr;
        ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&addr), &len);
        m_port = ntohs(addr.sin_port);
        m_clock.start();
        m_acceptor = std::thread([this] { acceptLoop(); });
    }
    ~ScriptedHttpServer()
    {
        m_stop = true;
        m_acceptor.join();
        std::vector<std::thread> workers;
        {
            std::lock_guard lock(m_mutex);
            workers.swap(m_workers);
        }
        for (std::thread &t : workers)
            t.join();
        ::close(m_listen);
    }
    ScriptedHttpServer(const ScriptedHttpServer &) = delete;
    ScriptedHttpServer &operator=(const ScriptedHttpServer &) = delete;

    quint16 port() const { return m_port; }
    QString baseUrl() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_port); }
    // Responses are served in order; once the script runs out the last one repeats.
    void setScript(const QList<ScriptedResponse> &script)
    {
        std::lock_guard lock(m_mutex);
        m_script = script;
        m_served = 0;
        m_requests.clear();
        m_requestTimes.clear();
        m_peak = 0;
    }
    QList<QByteArray> requests() const
    {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }
    int requestCount() const
    {
        std::lock_guard lock(m_mutex);
        return int(m_requests.size());
    }
    QList<qint64> requestTimesMs() const
    {
        std::lock_guard lock(m_mutex);
        return m_requestTimes;
    }
    int peakConnections() const { return m_peak.load(); }

private:
    void acceptLoop()
    {
        while (!m_stop) {
            pollfd p{m_listen, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0)
                continue;
            const int fd = ::accept(m_listen, nullptr, nullptr);
            if (fd < 0)
                continue;
            std::lock_guard lock(m_mutex);
            m_workers.emplace_back([this, fd] { serve(fd); });
        }
    }

    bool sleepMs(int ms)
    {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        while (std::chrono::steady_clock::now() < end) {
            if (m_stop)
                return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min(ms, 10)));
        }
        return true;
    }

    void serve(int fd)
    {
        const int now = ++m_active;
        int peak = m_peak.load();
        while (now > peak && !m_peak.compare_exchange_weak(peak, now)) {
        }
        QByteArray request;
        qsizetype headerEnd = -1;
        qint64 contentLength = 0;
        char buffer[65536];
        // Read the head, then the body by Content-Length.
        while (!m_stop) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 20) <= 0)
                continue;
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0)
                break;
            request.append(buffer, n);
            if (headerEnd < 0) {
                headerEnd = request.indexOf("\r\n\r\n");
                if (headerEnd >= 0) {
                    for (const QByteArray &line : request.left(headerEnd).split('\n')) {
                        if (line.toLower().startsWith("content-length:"))
                            contentLength = line.mid(15).trimmed().toLongLong();
                    }
                }
            }
            if (headerEnd >= 0 && request.size() >= headerEnd + 4 + contentLength)
                break;
        }
        ScriptedResponse response;
        {
            std::lock_guard lock(m_mutex);
            m_requests << request;
            m_requestTimes << m_clock.elapsed();
            if (!m_script.isEmpty())
                response = m_script.at(std::min<qsizetype>(m_served, m_script.size() - 1));
            ++m_served;
        }
        bool alive = sleepMs(response.delayMs);
        for (const ScriptedChunk &chunk : response.chunks) {
            if (!alive || !sleepMs(chunk.delayMs))
                break;
            qsizetype sent = 0;
            while (sent < chunk.bytes.size()) {
                const ssize_t n = ::send(fd, chunk.bytes.constData() + sent,
                                         size_t(chunk.bytes.size() - sent), MSG_NOSIGNAL);
                if (n <= 0) {
                    alive = false;
                    break;
                }
                sent += n;
            }
        }
        ::shutdown(fd, SHUT_RDWR);
        ::close(fd);
        --m_active;
    }

    int m_listen = -1;
    quint16 m_port = 0;
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_active{0};
    std::atomic<int> m_peak{0};
    std::thread m_acceptor;
    mutable std::mutex m_mutex;
    std::vector<std::thread> m_workers;
    QList<ScriptedResponse> m_script;
    qsizetype m_served = 0;
    QList<QByteArray> m_requests;
    QList<qint64> m_requestTimes;
    QElapsedTimer m_clock;
};

} // namespace kiln::test

Q_DECLARE_METATYPE(kiln::test::ScriptedResponse)
