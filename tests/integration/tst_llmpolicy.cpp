// The LLM policy end to end against a local server: prompt → request → candidate, the failure
// records, the concurrency limit, reasoning settings on the wire, and the privacy of the API key.

#include "llmtestdata.h"
#include "scriptedhttpserver.h"

#include "policies/llmpolicy.h"
#include "policies/memoryresponsecache.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <thread>

using namespace kiln;
using namespace kiln::test;

namespace {

const char *const keyVariable = "KILN_TEST_SECRET_KEY";
const QByteArray secretKey = "sk-kiln-test-0123456789abcdef-SECRET";

Task vectorAdd()
{
    Task t;
    t.name = QStringLiteral("vector_add");
    t.entry = QStringLiteral("vector_add");
    t.title = QStringLiteral("Vector addition");
    t.description = QStringLiteral("Compute c = a + b elementwise for n floats.");
    auto param = [](const char *name, TaskParameter::Role role, const char *dtype) {
        TaskParameter p;
        p.name = QString::fromLatin1(name);
        p.role = role;
        p.dtype = QString::fromLatin1(dtype);
        if (role != TaskParameter::Role::Scalar)
            p.shape = QStringList{QStringLiteral("n")};
        else
            p.value = QStringLiteral("n");
        return p;
    };
    t.parameters = {param("a", TaskParameter::Role::Input, "f32"),
                    param("b", TaskParameter::Role::Input, "f32"),
                    param("c", TaskParameter::Role::Output, "f32"),
                    param("n", TaskParameter::Role::Scalar, "i32")};
    t.referenceSource.insert(Backend::Cpu, QStringLiteral("// reference"));
    return t;
}

QByteArray requestBody(const QByteArray &request)
{
    return request.mid(request.indexOf("\r\n\r\n") + 4);
}

QJsonObject requestJson(const QByteArray &request)
{
    return QJsonDocument::fromJson(requestBody(request)).object();
}

} // namespace

class TestLlmPolicy : public QObject
{
    Q_OBJECT

private:
    LlmConfig config(const QString &api) const
    {
        LlmConfig c;
        c.endpoint = m_server->baseUrl() + QStringLiteral("/v1");
        c.model = QStringLiteral("test-model");
        c.api = apiFlavourFromName(api).value();
        c.apiKeyEnv = QString::fromLatin1(keyVariable);
        c.connectTimeoutMs = 1000;
        c.idleTimeoutMs = 2000;
        c.retry.maxAttempts = 2;
        c.retry.baseDelayMs = 10;
        c.retry.jitter = 0.0;
        return c;
    }
    GenerationRequest request(Operation op = Operation::Sample) const
    {
        GenerationRequest r;
        r.task = &m_task;
        r.backend = Backend::Cpu;
        r.operation = op;
        r.sampleIndex = 3;
        r.seed = 42;
        return r;
    }
    static void verifyNoKey(const GenerationResult &result)
    {
        const QByteArray record = QJsonDocument(result.candidate.toJson()).toJson();
        QVERIFY2(!record.contains(secretKey), "the API key leaked into the candidate record");
        QVERIFY(!result.error.toUtf8().contains(secretKey));
        QVERIFY(!QJsonDocument(result.candidate.policyMeta).toJson().contains(secretKey));
    }

    std::unique_ptr<ScriptedHttpServer> m_server;
    Task m_task = vectorAdd();

private slots:
    void initTestCase()
    {
        qputenv(keyVariable, secretKey);
        m_server = std::make_unique<ScriptedHttpServer>();
    }
    void cleanupTestCase() { m_server.reset(); }

    void openAiCandidate();
    void anthropicThinkingBudgetFromRequest();
    void noCodeIsARecordedFailure();
    void kernelBenchAnswerIsAPythonModule();
    void inlineThinkIsReasoning();
    void brokenStreamKeepsPartialAnswer();
    void httpFailureKeepsTranscriptAndHidesKey();
    void cacheHitIsMarked();
    void concurrencyIsLimited();
    void cancelWhileWaitingForASlot();
    void configFromCliFlags();
};

void TestLlmPolicy::openAiCandidate()
{
    m_server->setScript(
        {ScriptedResponse::stream(openAiStream(answerText(), QStringLiteral("reasoning_content"),
                                               QStringLiteral("think"), 500, 300, 100))});
    LlmConfig c = config(QStringLiteral("openai"));
    c.reasoningEffort = QStringLiteral("high");
    c.temperature = 0.7;
    PriceTable prices;
    prices.setPrice(QStringLiteral("test-*"), ModelPrice{1.0, 2.0, 4.0});
    LlmPolicy policy(c, nullptr, prices);
    std::atomic<bool> cancel{false};
    const GenerationResult result = policy.generate(request(), cancel);
    QVERIFY2(result.ok, qPrintable(result.error));
    const CandidateRecord &cand = result.candidate;
    QCOMPARE(cand.source, answerCode());
    QCOMPARE(cand.policy, QStringLiteral("llm"));
    QCOMPARE(cand.operation, Operation::Sample);
    QCOMPARE(cand.task, QStringLiteral("vector_add"));
    QCOMPARE(cand.response, answerText());
    QCOMPARE(cand.reasoning, QStringLiteral("think"));
    QCOMPARE(cand.promptTokens, 500);
    QCOMPARE(cand.completionTokens, 200);
    QCOMPARE(cand.reasoningTokens, 100);
    QCOMPARE(cand.reasoningLength, LlmPolicy::tokensForEffort(QStringLiteral("high")));
    QVERIFY(cand.prompt.contains(QStringLiteral("void vector_add(const float")));
    QVERIFY(cand.prompt.contains(QStringLiteral("Compute c = a + b")));
    const QJsonObject meta = cand.policyMeta;
    QCOMPARE(meta.value(QStringLiteral("endpoint_host")).toString(), QStringLiteral("127.0.0.1"));
    QCOMPARE(meta.value(QStringLiteral("model")).toString(), QStringLiteral("test-model"));
    QCOMPARE(meta.value(QStringLiteral("api")).toString(), QStringLiteral("openai"));
    QCOMPARE(meta.value(QStringLiteral("cache_hit")).toBool(), false);
    QVERIFY(meta.contains(QStringLiteral("latency_ms")));
    // 500 * 1 + 200 * 2 + 100 * 4 per million.
    QCOMPARE(meta.value(QStringLiteral("cost")).toDouble(), 1300.0 / 1e6);
    QVERIFY(meta.value(QStringLiteral("cost_known")).toBool());
    verifyNoKey(result);

    // On the wire: the key in the header (only there), effort and streaming usage requested.
    const QByteArray raw = m_server->requests().value(0);
    QVERIFY(raw.contains("Authorization: Bearer " + secretKey));
    QVERIFY(raw.startsWith("POST /v1/chat/completions HTTP/1.1"));
    const QJsonObject body = requestJson(raw);
    QCOMPARE(body.value(QStringLiteral("model")).toString(), QStringLiteral("test-model"));
    QCOMPARE(body.value(QStringLiteral("reasoning_effort")).toString(), QStringLiteral("high"));
    QCOMPARE(body.value(QStringLiteral("temperature")).toDouble(), 0.7);
    QCOMPARE(body.value(QStringLiteral("stream")).toBool(), true);
    QVERIFY(body.value(QStringLiteral("stream_options"))
                .toObject()
                .value(QStringLiteral("include_usage"))
                .toBool());
    QCOMPARE(body.value(QStringLiteral("messages")).toArray().size(), 2);
    QVERIFY(!requestBody(raw).contains(secretKey));
}

void TestLlmPolicy::anthropicThinkingBudgetFromRequest()
{
    m_server->setScript({ScriptedResponse::stream(
        anthropicStream(answerText(), QStringLiteral("Let me think."), 40, 80))});
    LlmConfig c = config(QStringLiteral("anthropic"));
    c.maxTokens = 2000;
    c.temperature = 0.5;
    LlmPolicy policy(c);
    GenerationRequest r = request(Operation::Refine);
    CandidateRecord parent;
    parent.id = 17;
    parent.source = QStringLiteral("extern \"C\" void vector_add() {}");
    r.parents = {parent};
    EvaluationResult e;
    e.verdict = Verdict::CompileError;
    e.summary = QStringLiteral("compile failed");
    r.parentEvaluations = {e};
    r.reasoningLength = 4096;
    std::atomic<bool> cancel{false};
    const GenerationResult result = policy.generate(r, cancel);
    QVERIFY2(result.ok, qPrintable(result.error));
    QCOMPARE(result.candidate.parent, std::optional<qint64>(17));
    QCOMPARE(result.candidate.operation, Operation::Refine);
    QCOMPARE(result.candidate.reasoningLength, 4096);
    QCOMPARE(result.candidate.reasoning, QStringLiteral("Let me think."));
    QVERIFY(
        result.candidate.policyMeta.value(QStringLiteral("reasoning_tokens_estimated")).toBool());
    QVERIFY(result.candidate.prompt.contains(QStringLiteral("compile_error")));
    verifyNoKey(result);

    const QByteArray raw = m_server->requests().value(0);
    QVERIFY(raw.startsWith("POST /v1/messages HTTP/1.1"));
    QVERIFY(raw.contains("x-api-key: " + secretKey));
    QVERIFY(raw.contains("anthropic-version: 2023-06-01"));
    const QJsonObject body = requestJson(raw);
    const QJsonObject thinking = body.value(QStringLiteral("thinking")).toObject();
    QCOMPARE(thinking.value(QStringLiteral("type")).toString(), QStringLiteral("enabled"));
    QCOMPARE(thinking.value(QStringLiteral("budget_tokens")).toInteger(), 4096);
    // max_tokens must exceed the budget; temperature is not allowed with thinking.
    QVERIFY(body.value(QStringLiteral("max_tokens")).toInteger() > 4096);
    QVERIFY(!body.contains(QStringLiteral("temperature")));
    QVERIFY(body.value(QStringLiteral("system")).toString().contains(QStringLiteral("extern")));
}

void TestLlmPolicy::noCodeIsARecordedFailure()
{
    const QString prose = QStringLiteral("I would use a grid-stride loop, but here is no code.");
    m_server->setScript(
        {ScriptedResponse::json(200, compact(openAiCompletion(prose, 10, 10, -1)))});
    LlmConfig c = config(QStringLiteral("openai"));
    c.stream = false;
    LlmPolicy policy(c);
    std::atomic<bool> cancel{false};
    const GenerationResult result = policy.generate(request(), cancel);
    QVERIFY(!result.ok);
    QVERIFY2(result.error.startsWith(QStringLiteral("no code")), qPrintable(result.error));
    QCOMPARE(result.candidate.response, prose);
    QVERIFY(result.candidate.source.isEmpty());
    QCOMPARE(result.candidate.policyMeta.value(QStringLiteral("error_kind")).toString(),
             QStringLiteral("no_code"));
    QCOMPARE(result.candidate.promptTokens, 10);
}

void TestLlmPolicy::kernelBenchAnswerIsAPythonModule()
{
    Task problem;
    problem.name = QStringLiteral("kb1_019_relu");
    problem.title = QStringLiteral("ReLU");
    problem.entry = QStringLiteral("ModelNew");
    problem.kernelBench = KernelBenchProblem{1, 19, QStringLiteral("level1/19_ReLU.py")};
    const QString reference = QStringLiteral(
        "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return "
        "torch.relu(x)\n\ndef get_inputs():\n    return [torch.randn(16, 16384)]\n\ndef "
        "get_init_inputs():\n    return []\n");
    problem.referenceSource.insert(Backend::Torch, reference);
    const QString module = QStringLiteral(
        "import torch\nfrom torch.utils.cpp_extension import load_inline\nops = "
        "load_inline(name='relu', cpp_sources=CPP, cuda_sources=CUDA, functions=['relu'])\n\n"
        "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return "
        "ops.relu(x)\n");
    const QString answer =
        QStringLiteral("The kernel:\n```cuda\n__global__ void relu_kernel(float* x) {}\n```\n"
                       "The module:\n```python\n") +
        module + QStringLiteral("```\n");
    GenerationRequest r = request();
    r.task = &problem;
    r.backend = Backend::Torch;
    LlmConfig c = config(QStringLiteral("openai"));
    c.stream = false;
    LlmPolicy policy(c);
    std::atomic<bool> cancel{false};

    m_server->setScript(
        {ScriptedResponse::json(200, compact(openAiCompletion(answer, 10, 10, -1)))});
    const GenerationResult result = policy.generate(r, cancel);
    QVERIFY2(result.ok, qPrintable(result.error));
    QCOMPARE(result.candidate.source, module);
    QCOMPARE(result.candidate.policyMeta.value(QStringLiteral("code_language")).toString(),
             QStringLiteral("python"));
    QVERIFY(result.candidate.prompt.contains(QStringLiteral("```python\n") + reference));
    QVERIFY(result.candidate.prompt.contains(QStringLiteral("class ModelNew(nn.Module)")));

    // A C kernel alone is no answer to a KernelBench problem.
    const QString kernelOnly = QStringLiteral("```cuda\n__global__ void k(float* x) {}\n```");
    m_server->setScript(
        {ScriptedResponse::json(200, compact(openAiCompletion(kernelOnly, 10, 10, -1)))});
    const GenerationResult refused = policy.generate(r, cancel);
    QVERIFY(!refused.ok);
    QVERIFY2(refused.error.startsWith(QStringLiteral("no code")) &&
                 refused.error.contains(QStringLiteral("class ModelNew(nn.Module)")),
             qPrintable(refused.error));
    QCOMPARE(refused.candidate.policyMeta.value(QStringLiteral("error_kind")).toString(),
             QStringLiteral("no_code"));
}

void TestLlmPolicy::inlineThinkIsReasoning()
{
    // llama.cpp / Ollama with a reasoning model: the thinking arrives inside the content.
    const QString draft = QStringLiteral("```cpp\nextern \"C\" void vector_add(const float* a, "
                                         "const float* b, float* c, int n) { /* draft */ }\n```");
    const QString text = QStringLiteral("<think>\nPlan: a simple loop.\n") + draft +
                         QStringLiteral("\n</think>\n\n") + answerText();
    m_server->setScript({ScriptedResponse::stream(openAiStream(text))});
    LlmPolicy policy(config(QStringLiteral("openai")));
    std::atomic<bool> cancel{false};
    const GenerationResult result = policy.generate(request(), cancel);
    QVERIFY2(result.ok, qPrintable(result.error));
    QCOMPARE(result.candidate.source, answerCode());
    QVERIFY(result.candidate.reasoning.startsWith(QStringLiteral("Plan: a simple loop.")));
    QCOMPARE(result.candidate.response, text); // the transcript keeps the answer as sent
    // The server counted 60 completion tokens including the thinking: its share moved over.
    QVERIFY(result.candidate.reasoningTokens > 0);
    QCOMPARE(result.candidate.reasoningTokens + result.candidate.completionTokens, 60);
    QVERIFY(
        result.candidate.policyMeta.value(QStringLiteral("reasoning_tokens_estimated")).toBool());
}

void TestLlmPolicy::brokenStreamKeepsPartialAnswer()
{
    const QList<QByteArray> chunks = openAiStream(answerText());
    QList<QByteArray> cut = chunks.mid(0, 3);
    cut << chunks.at(3).left(10);
    m_server->setScript({ScriptedResponse::stream(cut)});
    LlmPolicy policy(config(QStringLiteral("openai")));
    std::atomic<bool> cancel{false};
    const GenerationResult result = policy.generate(request(), cancel);
    QVERIFY(!result.ok);
    QVERIFY2(result.error.contains(QStringLiteral("cut mid-event")), qPrintable(result.error));
    QCOMPARE(m_server->requestCount(), 2); // retried once (config: 2 attempts)
    QVERIFY(answerText().startsWith(result.candidate.response));
    QVERIFY(!result.candidate.response.isEmpty());
    QVERIFY(result.candidate.completionTokens > 0);
    QVERIFY(result.candidate.promptTokens > 0);
    QCOMPARE(result.candidate.policyMeta.value(QStringLiteral("error_kind")).toString(),
             QStringLiteral("stream"));
    QCOMPARE(result.candidate.policyMeta.value(QStringLiteral("attempt_errors")).toArray().size(),
             2);
}

void TestLlmPolicy::httpFailureKeepsTranscriptAndHidesKey()
{
    // A hostile server echoing the key back in its error message.
    m_server->setScript(
        {ScriptedResponse::json(401, openAiError(QStringLiteral("invalid_request_error"),
                                                 QStringLiteral("Incorrect API key provided: ") +
                                                     QString::fromLatin1(secretKey)))});
    LlmPolicy policy(config(QStringLiteral("openai")));
    std::atomic<bool> cancel{false};
    const GenerationResult result = policy.generate(request(), cancel);
    QVERIFY(!result.ok);
    QVERIFY2(result.error.contains(QStringLiteral("HTTP 401")), qPrintable(result.error));
    QVERIFY2(result.error.contains(QStringLiteral("[redacted]")), qPrintable(result.error));
    QVERIFY(result.error.contains(QString::fromLatin1(keyVariable)));
    QCOMPARE(m_server->requestCount(), 1);
    QVERIFY(!result.candidate.prompt.isEmpty());
    QCOMPARE(result.candidate.policyMeta.value(QStringLiteral("http_status")).toInt(), 401);
    verifyNoKey(result);
    QVERIFY(!QJsonDocument(policy.config().toJson()).toJson().contains(secretKey));
}

void TestLlmPolicy::cacheHitIsMarked()
{
    m_server->setScript(
        {ScriptedResponse::json(200, compact(openAiCompletion(answerText(), 10, 10, -1)))});
    LlmConfig c = config(QStringLiteral("openai"));
    c.stream = false;
    auto cache = std::make_shared<MemoryResponseCache>();
    LlmPolicy policy(c, cache);
    std::atomic<bool> cancel{false};
    const GenerationResult first = policy.generate(request(), cancel);
    const GenerationResult again = policy.generate(request(), cancel);
    QVERIFY(first.ok && again.ok);
    QVERIFY(!first.candidate.policyMeta.value(QStringLiteral("cache_hit")).toBool());
    QVERIFY(again.candidate.policyMeta.value(QStringLiteral("cache_hit")).toBool());
    QCOMPARE(again.candidate.source, first.candidate.source);
    QCOMPARE(m_server->requestCount(), 1);
}

void TestLlmPolicy::concurrencyIsLimited()
{
    ScriptedResponse slow =
        ScriptedResponse::json(200, compact(openAiCompletion(answerText(), 1, 1, -1)));
    slow.delayMs = 200;
    m_server->setScript({slow});
    LlmConfig c = config(QStringLiteral("openai"));
    c.stream = false;
    c.concurrency = 2;
    LlmPolicy policy(c);
    std::atomic<bool> cancel{false};
    std::atomic<int> okCount{0};
    std::vector<std::thread> workers;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < 6; ++i)
        workers.emplace_back([&, i] {
            GenerationRequest r = request();
            r.sampleIndex = i;
            if (policy.generate(r, cancel).ok)
                ++okCount;
        });
    for (std::thread &t : workers)
        t.join();
    QCOMPARE(okCount.load(), 6);
    QCOMPARE(m_server->requestCount(), 6);
    QCOMPARE(policy.limiter().peakInUse(), 2);
    // Six 200 ms answers two at a time take three rounds; unlimited they would take one.
    QVERIFY2(timer.elapsed() >= 550, qPrintable(QString::number(timer.elapsed())));
}

void TestLlmPolicy::cancelWhileWaitingForASlot()
{
    ScriptedResponse slow =
        ScriptedResponse::json(200, compact(openAiCompletion(answerText(), 1, 1, -1)));
    slow.delayMs = 1500;
    m_server->setScript({slow});
    LlmConfig c = config(QStringLiteral("openai"));
    c.stream = false;
    c.concurrency = 1;
    LlmPolicy policy(c);
    std::atomic<bool> keepGoing{false};
    std::atomic<bool> busyOk{false};
    std::thread busy([&] { busyOk = policy.generate(request(), keepGoing).ok; });
    QTRY_COMPARE(policy.limiter().inUse(), 1);
    std::atomic<bool> cancel{false};
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        cancel = true;
    });
    QElapsedTimer timer;
    timer.start();
    GenerationRequest second = request();
    second.sampleIndex = 99;
    const GenerationResult r = policy.generate(second, cancel);
    canceller.join();
    QVERIFY(!r.ok);
    QCOMPARE(r.error, QStringLiteral("cancelled"));
    QVERIFY2(timer.elapsed() < 800, qPrintable(QString::number(timer.elapsed())));
    busy.join();
    QVERIFY(busyOk.load());
    QCOMPARE(m_server->requestCount(), 1);
}

void TestLlmPolicy::configFromCliFlags()
{
    QString error;
    const QMap<QString, QString> params{{QStringLiteral("llm.max_tokens"), QStringLiteral("4096")},
                                        {QStringLiteral("llm.concurrency"), QStringLiteral("8")},
                                        {QStringLiteral("llm.stream"), QStringLiteral("false")},
                                        {QStringLiteral("beam_width"), QStringLiteral("4")}};
    std::optional<LlmConfig> c = LlmConfig::fromCli(
        m_server->baseUrl() + QStringLiteral("/v1"), QStringLiteral("qwen"),
        QStringLiteral("openai"), QString::fromLatin1(keyVariable), params, &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->maxTokens, 4096);
    QCOMPARE(c->concurrency, 8);
    QCOMPARE(c->stream, false);
    QCOMPARE(c->apiKey(), secretKey);
    std::unique_ptr<LlmPolicy> policy = LlmPolicy::create(*c, nullptr, &error);
    QVERIFY2(policy, qPrintable(error));
    QCOMPARE(policy->name(), QStringLiteral("llm"));

    // A key pasted where the variable name belongs is refused without echoing it.
    c = LlmConfig::fromCli(QString(), QStringLiteral("gpt-4o"), QString(),
                           QString::fromLatin1(secretKey) + QStringLiteral("/x"), {}, &error);
    QVERIFY(!c);
    QVERIFY(!error.toUtf8().contains(secretKey));
    // Unknown llm parameters are errors; others belong to the strategy.
    c = LlmConfig::fromCli(QString(), QStringLiteral("m"), QString(), QString(),
                           {{QStringLiteral("llm.bogus"), QStringLiteral("1")}}, &error);
    QVERIFY(!c);
    QVERIFY(error.contains(QStringLiteral("llm.bogus")));
    // A missing price table is reported by create().
    LlmConfig withPrices = config(QStringLiteral("openai"));
    withPrices.priceTableFile = QStringLiteral("/nonexistent/prices.json");
    QVERIFY(!LlmPolicy::create(withPrices, nullptr, &error));
    QVERIFY(error.contains(QStringLiteral("/nonexistent/prices.json")));
}

QTEST_GUILESS_MAIN(TestLlmPolicy)
#include "tst_llmpolicy.moc"
