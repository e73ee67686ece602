// The LLM client against a real local HTTP server replaying provider formats and every kind of
// hostile or broken response: each must end in a recorded result with a clear reason, promptly.

#include "llmtestdata.h"
#include "scriptedhttpserver.h"

#include "policies/llmclient.h"
#include "policies/memoryresponsecache.h"

#include <QElapsedTimer>
#include <QtTest>

#include <thread>

using namespace kiln;
using namespace Qt::StringLiterals;
using namespace kiln::test;

class TestLlmClient : public QObject
{
    Q_OBJECT

private:
    LlmConfig config(const QString &api) const
    {
        LlmConfig c;
        c.endpoint = m_server->baseUrl() + QStringLiteral("/v1");
        c.model = QStringLiteral("test-model");
        c.api = apiFlavourFromName(api).value();
        c.connectTimeoutMs = 1000;
        c.idleTimeoutMs = 2000;
        c.totalTimeoutMs = 10000;
        c.retry.maxAttempts = 3;
        c.retry.baseDelayMs = 20;
        c.retry.maxDelayMs = 100;
        c.retry.jitter = 0.0;
        return c;
    }

    std::unique_ptr<ScriptedHttpServer> m_server;

private slots:
    void initTestCase() { m_server = std::make_unique<ScriptedHttpServer>(); }
    void cleanupTestCase() { m_server.reset(); }

    void responses_data();
    void responses();
    void retryAfterIsHonoured();
    void cancellationMidStreamReturnsPromptly();
    void cancellationDuringBackoffReturnsPromptly();
    void connectionRefusedIsAFailure();
    void cacheServesRepeatsAndKeysOnSampleIndex();
};

void TestLlmClient::responses_data()
{
    QTest::addColumn<QString>("api");
    QTest::addColumn<bool>("stream");
    QTest::addColumn<QList<ScriptedResponse>>("script");
    QTest::addColumn<QString>("tweak"); // config changes, "name=value;..."
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("expected"); // text contained (ok) or error contained (failure)
    QTest::addColumn<int>("requests");
    QTest::addColumn<int>("maxMs");
    QTest::addColumn<QList<qint64>>("tokens"); // prompt, completion, reasoning; empty: unchecked

    const QString answer = answerText();
    const QString reasoning = QStringLiteral("The kernel is bandwidth bound; one pass suffices.");
    using L = QList<ScriptedResponse>;
    using T = QList<qint64>;

    // Well-formed answers of each format.
    QTest::newRow("openai plain") << u"openai"_s << false
                                  << L{ScriptedResponse::json(
                                         200, compact(openAiCompletion(answer, 100, 50, 20)))}
                                  << u""_s << true << answer << 1 << 5000 << T{100, 30, 20};
    QTest::newRow("openai stream with usage in the final chunk")
        << u"openai"_s << true
        << L{ScriptedResponse::stream(openAiStream(answer, {}, {}, 90, 60, 0))} << u""_s << true
        << answer << 1 << 5000 << T{90, 60, 0};
    QTest::newRow("deepseek reasoning_content streamed")
        << u"openai"_s << true
        << L{ScriptedResponse::stream(
               openAiStream(answer, QStringLiteral("reasoning_content"), reasoning, 80, 200, 120))}
        << u""_s << true << answer << 1 << 5000 << T{80, 80, 120};
    QTest::newRow("deepseek reasoning_content plain")
        << u"openai"_s << false
        << L{ScriptedResponse::json(200,
                                    compact(openAiCompletion(answer, 70, 300, 200, reasoning)))}
        << u""_s << true << answer << 1 << 5000 << T{70, 100, 200};
    QTest::newRow("openrouter reasoning field streamed")
        << u"openai"_s << true
        << L{ScriptedResponse::stream(
               openAiStream(answer, QStringLiteral("reasoning"), reasoning, 80, 200, 150))}
        << u""_s << true << answer << 1 << 5000 << T{80, 50, 150};
    QTest::newRow("anthropic plain with thinking")
        << u"anthropic"_s << false
        << L{ScriptedResponse::json(200, compact(anthropicMessage(answer, reasoning, 120, 80)))}
        << u""_s << true << answer << 1 << 5000 << T{120, -1, -1};
    QTest::newRow("anthropic stream with thinking deltas")
        << u"anthropic"_s << true
        << L{ScriptedResponse::stream(anthropicStream(answer, reasoning, 120, 80))} << u""_s << true
        << answer << 1 << 5000 << T{120, -1, -1};
    QTest::newRow("server ignores stream:true and answers JSON")
        << u"openai"_s << true
        << L{ScriptedResponse::json(200, compact(openAiCompletion(answer, 10, 20, -1)))} << u""_s
        << true << answer << 1 << 5000 << T{10, 20, 0};

    // Byte-level abuse of the stream.
    {
        // Cut the stream inside the multi-byte characters, with pauses so TCP delivers them apart.
        const QString text = QStringLiteral("Gr\u00f6\u00dfe \U0001F680 \u2014 ") + answer;
        QByteArray all;
        for (const QByteArray &c : openAiStream(text))
            all += c;
        QList<ScriptedChunk> chunks;
        ScriptedResponse r = ScriptedResponse::stream({});
        qsizetype last = 0;
        for (const QByteArray &needle :
             {QByteArray("\xc3\xb6"), QByteArray("\xf0\x9f\x9a\x80"), QByteArray("\xe2\x80\x94")}) {
            const qsizetype at = all.indexOf(needle, last) + 1; // inside the character
            r.chunks << ScriptedChunk{all.mid(last, at - last), 30};
            last = at;
        }
        r.chunks << ScriptedChunk{all.mid(last), 30};
        QTest::newRow("utf-8 character split across chunks")
            << u"openai"_s << true << L{r} << u""_s << true << text << 1 << 5000 << T{100, 60, 0};
    }
    {
        QList<QByteArray> chunks{": keep-alive\r\n\r\n", ": OPENROUTER PROCESSING\r\n\r\n"};
        for (const QByteArray &c : openAiStream(answer)) {
            QByteArray crlf = c;
            crlf.replace("\n", "\r\n");
            chunks << crlf << QByteArray(": keep-alive\r\n\r\n");
        }
        QTest::newRow("keep-alive comments and CRLF")
            << u"openai"_s << true << L{ScriptedResponse::stream(chunks, 5)} << u""_s << true
            << answer << 1 << 5000 << T{100, 60, 0};
    }
    {
        QList<QByteArray> chunks = openAiStream(answer);
        QList<QByteArray> cut = chunks.mid(0, 3);
        cut << chunks.at(3).left(chunks.at(3).size() / 2);
        QTest::newRow("stream cut mid-event (retried, then given up)")
            << u"openai"_s << true << L{ScriptedResponse::stream(cut)} << u"retries=1"_s << false
            << u"cut mid-event"_s << 2 << 5000 << T{};
        QTest::newRow("stream cut, then a good one")
            << u"openai"_s << true
            << L{ScriptedResponse::stream(cut), ScriptedResponse::stream(chunks)} << u""_s << true
            << answer << 2 << 5000 << T{100, 60, 0};
        QList<QByteArray> noFinal = chunks.mid(0, 4);
        QTest::newRow("stream ends between events without a final event")
            << u"openai"_s << true << L{ScriptedResponse::stream(noFinal)} << u"retries=0"_s
            << false << u"without its final event"_s << 1 << 5000 << T{};
    }
    {
        const QList<QByteArray> chunks = anthropicStream(answer, reasoning, 10, 80);
        QList<QByteArray> overloaded = chunks.mid(0, 2);
        overloaded << sse(QJsonDocument::fromJson(anthropicError(QStringLiteral("overloaded_error"),
                                                                 QStringLiteral("Overloaded")))
                              .object(),
                          "error");
        QTest::newRow("anthropic overloaded error event mid-stream, then success")
            << u"anthropic"_s << true
            << L{ScriptedResponse::stream(overloaded), ScriptedResponse::stream(chunks)} << u""_s
            << true << answer << 2 << 5000 << T{10, -1, -1};
    }

    QTest::newRow("event stream holding a bare JSON error")
        << u"openai"_s << true
        << L{ScriptedResponse::body(
               200, "text/event-stream",
               openAiError(QStringLiteral("server_error"), QStringLiteral("upstream failed")))}
        << u"retries=0"_s << false << u"without any event"_s << 1 << 5000 << T{};

    // Broken bodies.
    QTest::newRow("invalid JSON") << u"openai"_s << false
                                  << L{ScriptedResponse::json(200,
                                                              "{\"choices\": [ {\"message\": ")}
                                  << u""_s << false << u"invalid JSON"_s << 1 << 5000 << T{};
    const QByteArray html = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>"
                            "<body><h1>Bad Gateway</h1></body></html>";
    QTest::newRow("HTML error page with status 200")
        << u"openai"_s << false << L{ScriptedResponse::body(200, "text/html", html)} << u""_s
        << false << u"HTML page ('502 Bad Gateway')"_s << 1 << 5000 << T{};
    QTest::newRow("HTML error page with status 200 to a stream request")
        << u"anthropic"_s << true << L{ScriptedResponse::body(200, "text/html", html)} << u""_s
        << false << u"HTML page ('502 Bad Gateway')"_s << 1 << 5000 << T{};
    QTest::newRow("error object with status 200")
        << u"openai"_s << false
        << L{ScriptedResponse::json(200, openAiError(QStringLiteral("invalid_request_error"),
                                                     QStringLiteral("model not found")))}
        << u""_s << false << u"model not found"_s << 1 << 5000 << T{};
    QTest::newRow("no choices") << u"openai"_s << false
                                << L{ScriptedResponse::json(200, "{\"id\":\"x\",\"choices\":[]}")}
                                << u""_s << false << u"no choices"_s << 1 << 5000 << T{};

    // Size limits.
    {
        QString big = QStringLiteral("```cpp\n") + answerCode();
        const QString filler = QStringLiteral("// padding padding padding padding padding\n");
        while (big.size() < 300 * 1024)
            big += filler;
        big += QStringLiteral("```\n");
        const QByteArray body = compact(openAiCompletion(big, 10, 75000, -1));
        QTest::newRow("300 KB answer is handled")
            << u"openai"_s << false << L{ScriptedResponse::json(200, body)} << u""_s << true
            << filler + filler << 1 << 5000 << T{10, 75000, 0};
        QTest::newRow("300 KB answer over a 100 KB limit is refused")
            << u"openai"_s << false << L{ScriptedResponse::json(200, body)}
            << u"max_response_bytes=102400"_s << false
            << u"exceeds the size limit of 102400 bytes"_s << 1 << 5000 << T{};
    }

    // Slow servers.
    {
        ScriptedResponse trickle = ScriptedResponse::stream({});
        for (int i = 0; i < 200; ++i)
            trickle.chunks << ScriptedChunk{": .\n", 100};
        QTest::newRow("trickle of bytes trips the stall check")
            << u"openai"_s << true << L{trickle} << u"idle_ms=500;min_bytes=64;retries=0"_s << false
            << u"stalled trickle"_s << 1 << 2500 << T{};
        ScriptedResponse silent = ScriptedResponse::stream({});
        silent.chunks << ScriptedChunk{"data: never\n\n", 20000};
        QTest::newRow("silence after the headers trips the idle timeout")
            << u"openai"_s << true << L{silent} << u"idle_ms=400;retries=1"_s << false
            << u"no data received for 0.4 s"_s << 2 << 3000 << T{};
    }

    // HTTP errors.
    QTest::newRow("401 is not retried")
        << u"openai"_s << false
        << L{ScriptedResponse::json(401, openAiError(QStringLiteral("invalid_request_error"),
                                                     QStringLiteral("Incorrect API key")))}
        << u""_s << false << u"HTTP 401 (unauthorized): invalid_request_error: Incorrect API key"_s
        << 1 << 5000 << T{};
    QTest::newRow("400 is not retried")
        << u"anthropic"_s << false
        << L{ScriptedResponse::json(400, anthropicError(QStringLiteral("invalid_request_error"),
                                                        QStringLiteral("max_tokens too large")))}
        << u""_s << false << u"max_tokens too large"_s << 1 << 5000 << T{};
    QTest::newRow("500 then success is retried")
        << u"openai"_s << false
        << L{ScriptedResponse::json(
                 500, openAiError(QStringLiteral("server_error"), QStringLiteral("boom"))),
             ScriptedResponse::json(200, compact(openAiCompletion(answer, 1, 2, -1)))}
        << u""_s << true << answer << 2 << 5000 << T{1, 2, 0};
    QTest::newRow("502 HTML from a proxy, then success")
        << u"anthropic"_s << true
        << L{ScriptedResponse::body(502, "text/html", html),
             ScriptedResponse::stream(anthropicStream(answer, {}, 5, 6))}
        << u""_s << true << answer << 2 << 5000 << T{5, 6, 0};
    QTest::newRow("529 overloaded is retried, then given up")
        << u"anthropic"_s << false
        << L{ScriptedResponse::json(529, anthropicError(QStringLiteral("overloaded_error"),
                                                        QStringLiteral("Overloaded")))}
        << u""_s << false
        << u"HTTP 529 (overloaded): overloaded_error: Overloaded (gave up after 3 attempts)"_s << 3
        << 5000 << T{};
    QTest::newRow("429 with a Retry-After beyond the limit gives up")
        << u"openai"_s << false
        << L{ScriptedResponse::json(
               429, openAiError(QStringLiteral("rate_limit_exceeded"), QStringLiteral("slow down")),
               {"Retry-After: 3600"})}
        << u""_s << false << u"more than the"_s << 1 << 5000 << T{};
}

void TestLlmClient::responses()
{
    QFETCH(QString, api);
    QFETCH(bool, stream);
    QFETCH(QList<ScriptedResponse>, script);
    QFETCH(QString, tweak);
    QFETCH(bool, ok);
    QFETCH(QString, expected);
    QFETCH(int, requests);
    QFETCH(int, maxMs);
    QFETCH(QList<qint64>, tokens);

    m_server->setScript(script);
    LlmConfig c = config(api);
    c.stream = stream;
    c.retry.maxRetryAfterMs = 5000;
    for (const QString &item : tweak.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const QString name = item.section(QLatin1Char('='), 0, 0);
        const qint64 value = item.section(QLatin1Char('='), 1).toLongLong();
        if (name == QStringLiteral("retries"))
            c.retry.maxAttempts = int(value) + 1;
        else if (name == QStringLiteral("idle_ms"))
            c.idleTimeoutMs = int(value);
        else if (name == QStringLiteral("min_bytes"))
            c.minBytesPerWindow = value;
        else if (name == QStringLiteral("max_response_bytes"))
            c.maxResponseBytes = value;
        else
            QFAIL("unknown tweak");
    }
    LlmClient client(c);
    std::atomic<bool> cancel{false};
    QElapsedTimer timer;
    timer.start();
    const LlmCallResult r = client.complete(
        client.makeRequest(QStringLiteral("sys"), QStringLiteral("user")), 0, cancel);
    const qint64 elapsed = timer.elapsed();

    QCOMPARE(r.ok, ok);
    if (ok) {
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QVERIFY2(r.response.text.contains(expected), qPrintable(r.response.text.left(200)));
    } else {
        QVERIFY2(r.error.contains(expected), qPrintable(r.error));
        QVERIFY(!r.errorKind.isEmpty());
    }
    QCOMPARE(m_server->requestCount(), requests);
    QCOMPARE(r.attempts, requests);
    QVERIFY2(elapsed < maxMs, qPrintable(QString::number(elapsed)));
    if (tokens.size() == 3) {
        QCOMPARE(r.response.promptTokens, tokens.at(0));
        QVERIFY(r.response.usageReported);
        if (tokens.at(1) >= 0) {
            QCOMPARE(r.response.completionTokens, tokens.at(1));
            QCOMPARE(r.response.reasoningTokens, tokens.at(2));
        }
    }
    if (ok && api == QStringLiteral("anthropic") && !r.response.reasoning.isEmpty()) {
        // Anthropic counts thinking inside output_tokens: split by the text share, total kept.
        QVERIFY(r.response.reasoningEstimated);
        QVERIFY(r.response.reasoningTokens > 0);
        QCOMPARE(r.response.reasoningTokens + r.response.completionTokens, 80);
        QVERIFY(r.response.reasoning.contains(QStringLiteral("bandwidth bound")));
    }
}

void TestLlmClient::retryAfterIsHonoured()
{
    m_server->setScript(
        {ScriptedResponse::json(
             429, openAiError(QStringLiteral("rate_limit_exceeded"), QStringLiteral("slow down")),
             {"Retry-After: 1"}),
         ScriptedResponse::json(200, compact(openAiCompletion(answerText(), 1, 1, -1)))});
    LlmConfig c = config(QStringLiteral("openai"));
    c.stream = false;
    LlmClient client(c);
    std::atomic<bool> cancel{false};
    const LlmCallResult r =
        client.complete(client.makeRequest(QString(), QStringLiteral("u")), 0, cancel);
    QVERIFY2(r.ok, qPrintable(r.error));
    const QList<qint64> times = m_server->requestTimesMs();
    QCOMPARE(times.size(), 2);
    // The backoff alone would wait 20 ms; the server asked for a second.
    QVERIFY2(times.at(1) - times.at(0) >= 950,
             qPrintable(QString::number(times.at(1) - times.at(0))));
    QVERIFY(times.at(1) - times.at(0) < 3000);
}

void TestLlmClient::cancellationMidStreamReturnsPromptly()
{
    ScriptedResponse slow = ScriptedResponse::stream({});
    for (int i = 0; i < 300; ++i)
        slow.chunks << ScriptedChunk{
            sse(openAiDelta(QStringLiteral("content"), QStringLiteral("x"))), 100};
    m_server->setScript({slow});
    LlmConfig c = config(QStringLiteral("openai"));
    LlmClient client(c);
    std::atomic<bool> cancel{false};
    QElapsedTimer timer;
    timer.start();
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        cancel = true;
    });
    const LlmCallResult r =
        client.complete(client.makeRequest(QString(), QStringLiteral("u")), 0, cancel);
    canceller.join();
    QVERIFY(!r.ok);
    QVERIFY(r.cancelled);
    QCOMPARE(r.error, QStringLiteral("cancelled"));
    QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(r.partialText.startsWith(QStringLiteral("x"))); // what arrived is kept
}

void TestLlmClient::cancellationDuringBackoffReturnsPromptly()
{
    m_server->setScript({ScriptedResponse::json(503, "{}")});
    LlmConfig c = config(QStringLiteral("openai"));
    c.stream = false;
    c.retry.baseDelayMs = 20000;
    c.retry.maxDelayMs = 20000;
    LlmClient client(c);
    std::atomic<bool> cancel{false};
    QElapsedTimer timer;
    timer.start();
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancel = true;
    });
    const LlmCallResult r =
        client.complete(client.makeRequest(QString(), QStringLiteral("u")), 0, cancel);
    canceller.join();
    QVERIFY(r.cancelled);
    QCOMPARE(m_server->requestCount(), 1);
    QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
}

void TestLlmClient::connectionRefusedIsAFailure()
{
    quint16 unusedPort = 0;
    {
        ScriptedHttpServer closed;
        unusedPort = closed.port();
    }
    LlmConfig c = config(QStringLiteral("openai"));
    c.endpoint = QStringLiteral("http://127.0.0.1:%1/v1").arg(unusedPort);
    c.retry.maxAttempts = 2;
    LlmClient client(c);
    std::atomic<bool> cancel{false};
    QElapsedTimer timer;
    timer.start();
    const LlmCallResult r =
        client.complete(client.makeRequest(QString(), QStringLiteral("u")), 0, cancel);
    QVERIFY(!r.ok);
    QVERIFY2(r.error.contains(QStringLiteral("cannot connect to 127.0.0.1")), qPrintable(r.error));
    QCOMPARE(r.attempts, 2);
    QVERIFY(timer.elapsed() < 3000);
}

void TestLlmClient::cacheServesRepeatsAndKeysOnSampleIndex()
{
    m_server->setScript(
        {ScriptedResponse::json(200, compact(openAiCompletion(answerText(), 11, 22, 3)))});
    auto cache = std::make_shared<MemoryResponseCache>();
    LlmConfig c = config(QStringLiteral("openai"));
    c.stream = false;
    LlmClient client(c, cache);
    std::atomic<bool> cancel{false};
    const LlmRequest request = client.makeRequest(QStringLiteral("s"), QStringLiteral("u"));
    const LlmCallResult first = client.complete(request, 7, cancel);
    QVERIFY(first.ok);
    QVERIFY(!first.cacheHit);
    const LlmCallResult second = client.complete(request, 7, cancel);
    QVERIFY(second.ok);
    QVERIFY(second.cacheHit);
    QCOMPARE(second.response.text, first.response.text);
    QCOMPARE(second.response.reasoningTokens, 3);
    QCOMPARE(second.response.completionTokens, 19);
    QCOMPARE(m_server->requestCount(), 1);
    QCOMPARE(second.cacheKey, first.cacheKey);

    const LlmCallResult other = client.complete(request, 8, cancel);
    QVERIFY(!other.cacheHit);
    QVERIFY(other.cacheKey != first.cacheKey);
    QCOMPARE(m_server->requestCount(), 2);
    QCOMPARE(cache->size(), 2);

    // The key depends on endpoint, model, body and sample index, nothing else.
    QCOMPARE(LlmClient::cacheKey(QStringLiteral("e"), QStringLiteral("m"), "b", 1),
             LlmClient::cacheKey(QStringLiteral("e"), QStringLiteral("m"), "b", 1));
    QVERIFY(LlmClient::cacheKey(QStringLiteral("e"), QStringLiteral("m"), "b", 1) !=
            LlmClient::cacheKey(QStringLiteral("e"), QStringLiteral("m2"), "b", 1));
    QVERIFY(LlmClient::cacheKey(QStringLiteral("e"), QStringLiteral("m"), "b", 1) !=
            LlmClient::cacheKey(QStringLiteral("e"), QStringLiteral("m"), "c", 1));
    QCOMPARE(first.cacheKey.size(), 64);
}

QTEST_GUILESS_MAIN(TestLlmClient)
#include "tst_llmclient.moc"
