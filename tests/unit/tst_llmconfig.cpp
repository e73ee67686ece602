#include "policies/llmclient.h"
#include "policies/llmconfig.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace kiln;

class TestLlmConfig : public QObject
{
    Q_OBJECT

private slots:
    void defaults_data();
    void defaults();
    void params_data();
    void params();
    void jsonRoundTripHasNoKey();
    void urls_data();
    void urls();
    void requestMapping();
};

void TestLlmConfig::defaults_data()
{
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QString>("api");
    QTest::addColumn<QString>("expectedApi");
    QTest::addColumn<QString>("expectedEndpoint");
    QTest::addColumn<QString>("keyEnv");
    QTest::newRow("openai default")
        << QString() << QString() << QStringLiteral("openai")
        << QStringLiteral("https://api.openai.com/v1") << QStringLiteral("OPENAI_API_KEY");
    QTest::newRow("anthropic default")
        << QString() << QStringLiteral("anthropic") << QStringLiteral("anthropic")
        << QStringLiteral("https://api.anthropic.com") << QStringLiteral("ANTHROPIC_API_KEY");
    QTest::newRow("anthropic from host")
        << QStringLiteral("https://api.anthropic.com") << QString() << QStringLiteral("anthropic")
        << QStringLiteral("https://api.anthropic.com") << QStringLiteral("ANTHROPIC_API_KEY");
    QTest::newRow("openrouter") << QStringLiteral("https://openrouter.ai/api/v1") << QString()
                                << QStringLiteral("openai")
                                << QStringLiteral("https://openrouter.ai/api/v1")
                                << QStringLiteral("OPENROUTER_API_KEY");
    QTest::newRow("deepseek") << QStringLiteral("https://api.deepseek.com") << QString()
                              << QStringLiteral("openai")
                              << QStringLiteral("https://api.deepseek.com")
                              << QStringLiteral("DEEPSEEK_API_KEY");
    // No key is assumed for other hosts, so an OpenAI key never travels to them.
    QTest::newRow("local vllm") << QStringLiteral("http://localhost:8000/v1") << QString()
                                << QStringLiteral("openai")
                                << QStringLiteral("http://localhost:8000/v1") << QString();
    QTest::newRow("anthropic-compatible proxy")
        << QStringLiteral("http://proxy.local:9000") << QStringLiteral("anthropic")
        << QStringLiteral("anthropic") << QStringLiteral("http://proxy.local:9000") << QString();
}

void TestLlmConfig::defaults()
{
    QFETCH(QString, endpoint);
    QFETCH(QString, api);
    QFETCH(QString, expectedApi);
    QFETCH(QString, expectedEndpoint);
    QFETCH(QString, keyEnv);
    QString error;
    const std::optional<LlmConfig> c =
        LlmConfig::fromCli(endpoint, QStringLiteral("m"), api, QString(), {}, &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(apiFlavourName(c->api), expectedApi);
    QCOMPARE(c->endpoint, expectedEndpoint);
    QCOMPARE(c->apiKeyEnv, keyEnv);
}

void TestLlmConfig::params_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<bool>("ok");
    QTest::newRow("max_tokens") << QStringLiteral("llm.max_tokens") << QStringLiteral("100")
                                << true;
    QTest::newRow("max_tokens zero")
        << QStringLiteral("llm.max_tokens") << QStringLiteral("0") << false;
    QTest::newRow("effort") << QStringLiteral("llm.reasoning_effort") << QStringLiteral("high")
                            << true;
    QTest::newRow("effort bad") << QStringLiteral("llm.reasoning_effort") << QStringLiteral("max")
                                << false;
    QTest::newRow("thinking") << QStringLiteral("llm.thinking_budget") << QStringLiteral("2048")
                              << true;
    QTest::newRow("stream") << QStringLiteral("llm.stream") << QStringLiteral("off") << true;
    QTest::newRow("stream bad") << QStringLiteral("llm.stream") << QStringLiteral("maybe") << false;
    QTest::newRow("timeout") << QStringLiteral("llm.idle_timeout_s") << QStringLiteral("0.5")
                             << true;
    QTest::newRow("timeout bad") << QStringLiteral("llm.timeout_s") << QStringLiteral("-1")
                                 << false;
    QTest::newRow("extra body") << QStringLiteral("llm.extra_body") << QStringLiteral("{\"a\":1}")
                                << true;
    QTest::newRow("extra body bad")
        << QStringLiteral("llm.extra_body") << QStringLiteral("[1]") << false;
    QTest::newRow("concurrency") << QStringLiteral("llm.concurrency") << QStringLiteral("0")
                                 << false;
    QTest::newRow("retries") << QStringLiteral("llm.retries") << QStringLiteral("0") << true;
    QTest::newRow("unknown") << QStringLiteral("llm.nope") << QStringLiteral("1") << false;
    QTest::newRow("strategy parameter ignored")
        << QStringLiteral("beam_width") << QStringLiteral("x") << true;
}

void TestLlmConfig::params()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(bool, ok);
    QString error;
    const std::optional<LlmConfig> c = LlmConfig::fromCli(QString(), QStringLiteral("m"), QString(),
                                                          QString(), {{key, value}}, &error);
    QCOMPARE(c.has_value(), ok);
    if (!ok)
        QVERIFY2(error.contains(key.mid(4)), qPrintable(error));
    if (ok && key == QStringLiteral("llm.idle_timeout_s"))
        QCOMPARE(c->idleTimeoutMs, 500);
    if (ok && key == QStringLiteral("llm.retries"))
        QCOMPARE(c->retry.maxAttempts, 1);
    if (ok && key == QStringLiteral("llm.stream"))
        QCOMPARE(c->stream, false);
}

void TestLlmConfig::jsonRoundTripHasNoKey()
{
    qputenv("KILN_TST_CONFIG_KEY", "sk-top-secret-value");
    LlmConfig c;
    c.endpoint = QStringLiteral("https://user:pw@example.com/v1?token=abc");
    c.model = QStringLiteral("m");
    c.apiKeyEnv = QStringLiteral("KILN_TST_CONFIG_KEY");
    c.temperature = 0.2;
    c.thinkingBudget = 3000;
    c.retry.maxAttempts = 7;
    QCOMPARE(c.apiKey(), QByteArray("sk-top-secret-value"));
    const QByteArray json = QJsonDocument(c.toJson()).toJson();
    QVERIFY(!json.contains("sk-top-secret-value"));
    QVERIFY(!json.contains("pw@"));
    QVERIFY(!json.contains("token=abc"));
    const LlmConfig back = LlmConfig::fromJson(c.toJson());
    QCOMPARE(back.apiKeyEnv, c.apiKeyEnv);
    QCOMPARE(back.temperature, c.temperature);
    QCOMPARE(back.thinkingBudget, 3000);
    QCOMPARE(back.retry.maxAttempts, 7);
    QCOMPARE(back.endpoint, QStringLiteral("https://example.com/v1"));
    // A key with a line break would inject a header: treated as unset.
    qputenv("KILN_TST_CONFIG_KEY", "sk-abc\r\nX-Evil: 1");
    QVERIFY(c.apiKey().isEmpty());
    QVERIFY(!LlmConfig::fromCli(QString(), QString(), QString(), QString(), {}, nullptr));
}

void TestLlmConfig::urls_data()
{
    QTest::addColumn<QString>("api");
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QString>("url");
    QTest::newRow("openai base") << QStringLiteral("openai")
                                 << QStringLiteral("https://api.openai.com/v1")
                                 << QStringLiteral("https://api.openai.com/v1/chat/completions");
    QTest::newRow("openai trailing slash")
        << QStringLiteral("openai") << QStringLiteral("http://localhost:11434/v1/")
        << QStringLiteral("http://localhost:11434/v1/chat/completions");
    QTest::newRow("openai full") << QStringLiteral("openai")
                                 << QStringLiteral("http://h/x/chat/completions")
                                 << QStringLiteral("http://h/x/chat/completions");
    QTest::newRow("anthropic root")
        << QStringLiteral("anthropic") << QStringLiteral("https://api.anthropic.com")
        << QStringLiteral("https://api.anthropic.com/v1/messages");
    QTest::newRow("anthropic v1") << QStringLiteral("anthropic")
                                  << QStringLiteral("https://api.anthropic.com/v1")
                                  << QStringLiteral("https://api.anthropic.com/v1/messages");
    QTest::newRow("anthropic full")
        << QStringLiteral("anthropic") << QStringLiteral("http://p/v1/messages")
        << QStringLiteral("http://p/v1/messages");
}

void TestLlmConfig::urls()
{
    QFETCH(QString, api);
    QFETCH(QString, endpoint);
    QFETCH(QString, url);
    LlmConfig c;
    c.api = apiFlavourFromName(api).value();
    c.endpoint = endpoint;
    QCOMPARE(c.requestUrl(), url);
}

void TestLlmConfig::requestMapping()
{
    LlmConfig c;
    c.model = QStringLiteral("o4-mini");
    c.endpoint = QStringLiteral("https://api.openai.com/v1");
    c.maxTokens = 1000;
    c.reasoningEffort = QStringLiteral("low");
    c.extraBody = QJsonObject{{QStringLiteral("user"), QStringLiteral("kiln")}};
    const LlmClient openai(c);
    const LlmRequest r = openai.makeRequest(QStringLiteral("sys"), QStringLiteral("hi"));
    QCOMPARE(r.maxTokensField, QStringLiteral("max_completion_tokens"));
    const QJsonObject body =
        QJsonDocument::fromJson(ChatApi::create(ApiFlavour::OpenAiChat)->requestBody(r)).object();
    QCOMPARE(body.value(QStringLiteral("max_completion_tokens")).toInt(), 1000);
    QVERIFY(!body.contains(QStringLiteral("max_tokens")));
    QCOMPARE(body.value(QStringLiteral("reasoning_effort")).toString(), QStringLiteral("low"));
    QCOMPARE(body.value(QStringLiteral("user")).toString(), QStringLiteral("kiln"));
    QCOMPARE(body.value(QStringLiteral("messages"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("role"))
                 .toString(),
             QStringLiteral("system"));

    c.endpoint = QStringLiteral("http://localhost:8080/v1");
    QCOMPARE(LlmClient(c).makeRequest(QString(), QStringLiteral("hi")).maxTokensField,
             QStringLiteral("max_tokens"));

    // Anthropic: budget below the minimum is raised; max_tokens stays above the budget.
    LlmRequest a = r;
    a.thinkingBudget = 100;
    a.maxTokens = 500;
    a.temperature = 0.3;
    const QJsonObject anthropic =
        QJsonDocument::fromJson(ChatApi::create(ApiFlavour::AnthropicMessages)->requestBody(a))
            .object();
    QCOMPARE(anthropic.value(QStringLiteral("thinking"))
                 .toObject()
                 .value(QStringLiteral("budget_tokens"))
                 .toInt(),
             1024);
    QCOMPARE(anthropic.value(QStringLiteral("max_tokens")).toInt(), 1524);
    QVERIFY(!anthropic.contains(QStringLiteral("temperature")));
    QVERIFY(!anthropic.contains(QStringLiteral("reasoning_effort")));
    QCOMPARE(anthropic.value(QStringLiteral("system")).toString(), QStringLiteral("sys"));
}

QTEST_GUILESS_MAIN(TestLlmConfig)
#include "tst_llmconfig.moc"
