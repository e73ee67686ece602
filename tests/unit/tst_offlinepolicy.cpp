#include "policies/offline/counterrng.h"
#include "policies/offline/defectinjector.h"
#include "policies/offline/offlinepolicy.h"
#include "policies/offline/tokenestimator.h"
#include "policies/offline/variantspace.h"
#include "tasks/tasklibrary.h"

#include <QTest>
#include <QtConcurrent>
#include <cmath>

using namespace kiln;

class TstOfflinePolicy : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void spacesLoad_data();
    void spacesLoad();
    void counterRngIsPure();
    void deterministicPerSeedAndIndex();
    void concurrencyDoesNotChangeResults();
    void labelledSimulated();
    void ratesHonoured();
    void refinementFixesCompileErrorsAtConfiguredRate();
    void refinementFixesWrongAndFlagged();
    void refinementFollowsFeedback();
    void mutationMovesKnobs();
    void crossoverTakesKnobsFromBothParents();
    void skillRaisesPriorQuality();
    void tokenCounts();
    void reasoningLengthFollowsConcur();
    void misconceptionRepeatsAcrossSamples();
    void presetsDiffer();
    void gamingKindsRewriteTheEntry_data();
    void gamingKindsRewriteTheEntry();
    void taskWithoutSpaceIsRefused();
    void kernelBenchTaskIsRefused_data();
    void kernelBenchTaskIsRefused();
    void foreignParentIsRefused();

private:
    GenerationRequest request(const QString &task, Backend backend, qint64 index,
                              quint64 seed = 42) const;
    TaskLibrary m_tasks;
};

void TstOfflinePolicy::initTestCase()
{
    m_tasks.loadEmbedded();
    for (const QString &name :
         {QStringLiteral("vector_add"), QStringLiteral("reduce_sum"), QStringLiteral("softmax"),
          QStringLiteral("layernorm"), QStringLiteral("matmul"), QStringLiteral("transpose")})
        QVERIFY2(m_tasks.contains(name), qPrintable(name));
}

GenerationRequest TstOfflinePolicy::request(const QString &task, Backend backend, qint64 index,
                                            quint64 seed) const
{
    GenerationRequest r;
    r.task = m_tasks.task(task);
    r.backend = backend;
    r.seed = seed;
    r.sampleIndex = index;
    return r;
}

void TstOfflinePolicy::spacesLoad_data()
{
    QTest::addColumn<QString>("task");
    QTest::addColumn<Backend>("backend");
    for (const char *task :
         {"vector_add", "reduce_sum", "softmax", "layernorm", "matmul", "transpose"})
        for (Backend backend : {Backend::Cpu, Backend::Cuda})
            QTest::newRow(
                qPrintable(QStringLiteral("%1/%2").arg(QLatin1String(task), backendName(backend))))
                << QString::fromLatin1(task) << backend;
}

void TstOfflinePolicy::spacesLoad()
{
    QFETCH(QString, task);
    QFETCH(Backend, backend);
    QString error;
    const auto space = VariantSpace::loadEmbedded(task, backend, &error);
    QVERIFY2(space, qPrintable(error));
    QCOMPARE(space->task(), task);
    QVERIFY(space->knobs().size() >= 6);
    QVERIFY(space->combinationCount() >= 64);
    // The best point is valid, renders, and is better than the prior's average.
    const KnobConfig best = space->bestConfig();
    QVERIFY(space->isValid(best));
    const auto rendered = space->render(best);
    QVERIFY2(rendered.ok, qPrintable(rendered.error));
    // A host entry, or on CUDA the device-only form: the kernel is the entry, with its launch.
    const bool deviceOnly = backend == Backend::Cuda &&
                            rendered.text.contains(QLatin1String("// kiln-launch: grid=")) &&
                            rendered.text.contains(QStringLiteral("extern \"C\" __global__ void"));
    QVERIFY2(deviceOnly ||
                 rendered.text.contains(QStringLiteral("extern \"C\" void %1(").arg(task)),
             qPrintable(rendered.text));
    if (backend == Backend::Cuda && !deviceOnly)
        QVERIFY(rendered.text.contains(QStringLiteral("cudaStream_t stream")));
    // Every value of every knob renders (branch coverage of the template language).
    for (const Knob &knob : space->knobs())
        for (const QString &value : knob.values) {
            KnobConfig config = best;
            config.insert(knob.name, value);
            const auto r = space->render(config);
            QVERIFY2(r.ok, qPrintable(knob.name + QLatin1Char('=') + value + QLatin1String(": ") +
                                      r.error));
        }
}

void TstOfflinePolicy::counterRngIsPure()
{
    CounterRng a(7, 3);
    CounterRng b(7, 3);
    for (int i = 0; i < 100; ++i)
        QCOMPARE(a.next(), b.next());
    CounterRng c(7, 4);
    CounterRng d(8, 3);
    CounterRng e(7, 3);
    QVERIFY(c.next() != e.next());
    CounterRng f(7, 3);
    QVERIFY(d.next() != f.next());
    // Forked streams are independent of draws on the parent.
    CounterRng g(1, 2);
    const quint64 forkedFirst = g.fork(5).next();
    g.next();
    g.next();
    QCOMPARE(g.fork(5).next(), forkedFirst);
    // uniform() is in [0, 1) and roughly uniform.
    double sum = 0.0;
    CounterRng u(11, 0);
    for (int i = 0; i < 10000; ++i) {
        const double x = u.uniform();
        QVERIFY(x >= 0.0 && x < 1.0);
        sum += x;
    }
    QVERIFY(std::abs(sum / 10000 - 0.5) < 0.02);
}

void TstOfflinePolicy::deterministicPerSeedAndIndex()
{
    OfflinePolicy policy;
    OfflinePolicy other; // a second instance must agree too
    const std::atomic<bool> cancel{false};
    QSet<QString> distinct;
    for (int i = 0; i < 20; ++i) {
        const auto a =
            policy.generate(request(QStringLiteral("softmax"), Backend::Cuda, i), cancel);
        const auto b = other.generate(request(QStringLiteral("softmax"), Backend::Cuda, i), cancel);
        QVERIFY2(a.ok, qPrintable(a.error));
        QCOMPARE(a.candidate.source, b.candidate.source);
        QCOMPARE(a.candidate.policyMeta, b.candidate.policyMeta);
        QCOMPARE(a.candidate.reasoningTokens, b.candidate.reasoningTokens);
        distinct.insert(a.candidate.source);
    }
    QVERIFY2(distinct.size() >= 17, qPrintable(QString::number(distinct.size())));
    // Another run seed gives another sequence.
    const auto s1 = policy.generate(request(QStringLiteral("matmul"), Backend::Cpu, 3, 1), cancel);
    const auto s2 = policy.generate(request(QStringLiteral("matmul"), Backend::Cpu, 3, 2), cancel);
    const auto s3 = policy.generate(request(QStringLiteral("matmul"), Backend::Cpu, 4, 1), cancel);
    QVERIFY(s1.candidate.source != s2.candidate.source ||
            s1.candidate.source != s3.candidate.source);
}

void TstOfflinePolicy::concurrencyDoesNotChangeResults()
{
    OfflinePolicy policy;
    const std::atomic<bool> cancel{false};
    QList<qint64> indices;
    for (qint64 i = 0; i < 64; ++i)
        indices.append(i);
    QStringList sequential;
    for (qint64 i : indices)
        sequential.append(
            policy.generate(request(QStringLiteral("layernorm"), Backend::Cuda, i), cancel)
                .candidate.source);
    std::reverse(indices.begin(), indices.end());
    const QList<QPair<qint64, QString>> parallel =
        QtConcurrent::blockingMapped(indices, [&](qint64 i) {
            return qMakePair(
                i, policy.generate(request(QStringLiteral("layernorm"), Backend::Cuda, i), cancel)
                       .candidate.source);
        });
    for (const auto &[i, source] : parallel)
        QCOMPARE(source, sequential.at(i));
}

void TstOfflinePolicy::labelledSimulated()
{
    OfflinePolicy policy;
    QVERIFY(policy.isSimulated());
    QCOMPARE(policy.name(), QStringLiteral("offline"));
    const std::atomic<bool> cancel{false};
    const auto r = policy.generate(request(QStringLiteral("vector_add"), Backend::Cpu, 0), cancel);
    QVERIFY(r.ok);
    const CandidateRecord &c = r.candidate;
    QCOMPARE(c.policy, QStringLiteral("offline"));
    QCOMPARE(c.policyMeta.value(QStringLiteral("simulated")).toBool(), true);
    QVERIFY(c.policyMeta.value(QStringLiteral("knobs")).toObject().size() >= 6);
    QVERIFY(!c.policyMeta.value(QStringLiteral("injected")).toString().isEmpty());
    QVERIFY(c.reasoning.contains(QStringLiteral("simulated")));
    QVERIFY(c.response.contains(QStringLiteral("simulated")));
    QVERIFY(c.response.contains(QStringLiteral("```cpp\n")));
    QVERIFY(c.response.contains(c.source));
    QVERIFY(!c.prompt.isEmpty());
    // Cancellation is honoured before any work.
    const std::atomic<bool> cancelled{true};
    QVERIFY(!policy.generate(request(QStringLiteral("vector_add"), Backend::Cpu, 0), cancelled).ok);
}

void TstOfflinePolicy::ratesHonoured()
{
    OfflinePolicyOptions options;
    options.stuckShare = 0.0; // every task one the model knows: the rates alone decide
    options.compileErrorRate = 0.2;
    options.wrongRate = 0.15;
    options.gamingRate = 0.1;
    OfflinePolicy policy(options);
    const std::atomic<bool> cancel{false};
    const int n = 600;
    QMap<QString, int> counts;
    QMap<QString, int> kinds;
    for (int i = 0; i < n; ++i) {
        const char *task = i % 2 ? "softmax" : "matmul";
        const Backend backend = i % 3 ? Backend::Cuda : Backend::Cpu;
        const auto r = policy.generate(request(QString::fromLatin1(task), backend, i, 9), cancel);
        QVERIFY(r.ok);
        const QString injected =
            r.candidate.policyMeta.value(QStringLiteral("injected")).toString();
        counts[injected.section(QLatin1Char(':'), 0, 0)]++;
        kinds[injected]++;
    }
    auto near = [n](int count, double p) {
        const double sigma = std::sqrt(n * p * (1 - p));
        return std::abs(count - n * p) <= 4.0 * sigma;
    };
    QVERIFY2(near(counts.value(QStringLiteral("compile_error")), 0.2),
             qPrintable(QString::number(counts.value(QStringLiteral("compile_error")))));
    QVERIFY2(near(counts.value(QStringLiteral("wrong")), 0.15),
             qPrintable(QString::number(counts.value(QStringLiteral("wrong")))));
    QVERIFY2(near(counts.value(QStringLiteral("gaming")), 0.1),
             qPrintable(QString::number(counts.value(QStringLiteral("gaming")))));
    // Several kinds of each category occur.
    int compileKinds = 0;
    for (const QString &k : DefectInjector::compileErrorKinds())
        compileKinds += kinds.contains(QStringLiteral("compile_error:") + k) ? 1 : 0;
    QCOMPARE(compileKinds, 3);
    // Zero rates give clean code only.
    OfflinePolicyOptions clean;
    clean.compileErrorRate = clean.wrongRate = clean.gamingRate = 0.0;
    OfflinePolicy cleanPolicy(clean);
    for (int i = 0; i < 50; ++i)
        QCOMPARE(
            cleanPolicy.generate(request(QStringLiteral("transpose"), Backend::Cuda, i), cancel)
                .candidate.policyMeta.value(QStringLiteral("injected"))
                .toString(),
            QStringLiteral("none"));
}

static EvaluationResult evaluation(Verdict verdict)
{
    EvaluationResult e;
    e.verdict = verdict;
    e.correct = verdict == Verdict::Pass;
    return e;
}

// Feedback as the verifier writes it for a parent's failure: a compiler diagnostic at `line`, a
// mismatch on a named shape, or a blocking flag at `line`.
static EvaluationResult feedbackAt(Verdict verdict, int line)
{
    EvaluationResult e = evaluation(verdict);
    StageResult stage;
    stage.ok = false;
    if (verdict == Verdict::CompileError) {
        stage.name = QStringLiteral("compile");
        stage.detail = QStringLiteral("line %1: expected a ';'").arg(line);
        stage.data.insert(
            QStringLiteral("diagnostics"),
            QJsonArray{QJsonObject{{QStringLiteral("line"), line},
                                   {QStringLiteral("message"), QStringLiteral("expected a ';'")}}});
    } else if (verdict == Verdict::Flagged) {
        CheatFlag flag;
        flag.id = QStringLiteral("cached_result");
        flag.message = QStringLiteral("returns the previous call's answer");
        flag.blocking = true;
        flag.lines = {line};
        e.flags.append(flag);
        return e;
    } else {
        stage.name = QStringLiteral("correctness");
        stage.detail = QStringLiteral("y on rows=7, cols=1000 (normal data): 12 of 7000 elements "
                                      "wrong; first at index 5: got 0, expected 0.25");
    }
    e.stages.append(stage);
    return e;
}

static int injectedLine(const GenerationResult &parent)
{
    return parent.candidate.policyMeta.value(QStringLiteral("injected_line")).toInt();
}

void TstOfflinePolicy::refinementFixesCompileErrorsAtConfiguredRate()
{
    OfflinePolicyOptions broken;
    broken.compileErrorRate = 1.0;
    broken.wrongRate = broken.gamingRate = broken.stuckShare = 0.0;
    OfflinePolicy breaker(broken);
    OfflinePolicyOptions fixerOptions;
    fixerOptions.fixRate = 0.65;
    fixerOptions.compileErrorRate = fixerOptions.wrongRate = fixerOptions.gamingRate = 0.0;
    OfflinePolicy fixer(fixerOptions);
    const std::atomic<bool> cancel{false};
    const int n = 300;
    int fixed = 0;
    for (int i = 0; i < n; ++i) {
        const auto parent =
            breaker.generate(request(QStringLiteral("reduce_sum"), Backend::Cpu, i), cancel);
        QVERIFY(parent.candidate.policyMeta.value(QStringLiteral("injected"))
                    .toString()
                    .startsWith(QStringLiteral("compile_error:")));
        GenerationRequest refine = request(QStringLiteral("reduce_sum"), Backend::Cpu, 10000 + i);
        refine.operation = Operation::Refine;
        refine.parents = {parent.candidate};
        refine.parentEvaluations = {feedbackAt(Verdict::CompileError, injectedLine(parent))};
        const auto child = fixer.generate(refine, cancel);
        QVERIFY(child.ok);
        const QString injected =
            child.candidate.policyMeta.value(QStringLiteral("injected")).toString();
        if (injected == QLatin1String("none")) {
            ++fixed;
        } else {
            // A failed fix keeps the parent's code; the model does not know its defect.
            QCOMPARE(injected, QStringLiteral("inherited"));
            QCOMPARE(child.candidate.source, parent.candidate.source);
        }
        // The knobs of the parent are kept while fixing.
        QCOMPARE(child.candidate.policyMeta.value(QStringLiteral("knobs")),
                 parent.candidate.policyMeta.value(QStringLiteral("knobs")));
    }
    const double p = fixerOptions.fixRate; // guided: the configured fix rate
    const double sigma = std::sqrt(n * p * (1 - p));
    QVERIFY2(std::abs(fixed - n * p) <= 4 * sigma, qPrintable(QString::number(fixed)));
    // Feedback that points away from the defect: a fix only as often as a guess of where to
    // look lands on it.
    int blindFixed = 0;
    for (int i = 0; i < n; ++i) {
        const auto parent =
            breaker.generate(request(QStringLiteral("reduce_sum"), Backend::Cpu, i), cancel);
        GenerationRequest refine = request(QStringLiteral("reduce_sum"), Backend::Cpu, 10000 + i);
        refine.operation = Operation::Refine;
        refine.parents = {parent.candidate};
        refine.parentEvaluations = {feedbackAt(Verdict::CompileError, 100000)};
        blindFixed += fixer.generate(refine, cancel)
                          .candidate.policyMeta.value(QStringLiteral("injected"))
                          .toString() == QLatin1String("none");
    }
    QVERIFY2(blindFixed <= fixed / 5,
             qPrintable(QStringLiteral("%1 blind against %2 pointed").arg(blindFixed).arg(fixed)));
    // A model with a higher fix rate fixes more.
    fixerOptions.fixRate = 0.95;
    OfflinePolicy expert(fixerOptions);
    int expertFixed = 0;
    for (int i = 0; i < 100; ++i) {
        const auto parent =
            breaker.generate(request(QStringLiteral("reduce_sum"), Backend::Cpu, i), cancel);
        GenerationRequest refine = request(QStringLiteral("reduce_sum"), Backend::Cpu, 10000 + i);
        refine.operation = Operation::Refine;
        refine.parents = {parent.candidate};
        refine.parentEvaluations = {feedbackAt(Verdict::CompileError, injectedLine(parent))};
        expertFixed += expert.generate(refine, cancel)
                           .candidate.policyMeta.value(QStringLiteral("injected"))
                           .toString() == QLatin1String("none");
    }
    QVERIFY2(expertFixed >= 85, qPrintable(QString::number(expertFixed)));
}

void TstOfflinePolicy::refinementFixesWrongAndFlagged()
{
    const std::atomic<bool> cancel{false};
    for (const auto &[category, verdict] :
         {qMakePair(QStringLiteral("wrong"), Verdict::Wrong),
          qMakePair(QStringLiteral("gaming"), Verdict::Flagged)}) {
        OfflinePolicyOptions broken;
        broken.compileErrorRate = 0.0;
        broken.wrongRate = category == QLatin1String("wrong") ? 1.0 : 0.0;
        broken.gamingRate = category == QLatin1String("gaming") ? 1.0 : 0.0;
        broken.stuckShare = 0.0;
        OfflinePolicy breaker(broken);
        OfflinePolicyOptions fixerOptions;
        fixerOptions.fixRate = 0.8;
        fixerOptions.compileErrorRate = fixerOptions.wrongRate = fixerOptions.gamingRate = 0.0;
        OfflinePolicy fixer(fixerOptions);
        int fixed = 0;
        int kept = 0;
        for (int i = 0; i < 100; ++i) {
            const auto parent =
                breaker.generate(request(QStringLiteral("softmax"), Backend::Cuda, i), cancel);
            const QString parentInjected =
                parent.candidate.policyMeta.value(QStringLiteral("injected")).toString();
            QVERIFY2(parentInjected.startsWith(category + QLatin1Char(':')),
                     qPrintable(parentInjected));
            GenerationRequest refine = request(QStringLiteral("softmax"), Backend::Cuda, 500 + i);
            refine.operation = Operation::Refine;
            refine.parents = {parent.candidate};
            refine.parentEvaluations = {feedbackAt(verdict, injectedLine(parent))};
            const QString injected = fixer.generate(refine, cancel)
                                         .candidate.policyMeta.value(QStringLiteral("injected"))
                                         .toString();
            if (injected == QLatin1String("none"))
                ++fixed;
            else if (injected == QLatin1String("inherited"))
                ++kept;
        }
        QCOMPARE(fixed + kept, 100);
        QVERIFY2(fixed >= 65 && fixed <= 98, qPrintable(category + QString::number(fixed)));
    }
}

void TstOfflinePolicy::refinementFollowsFeedback()
{
    // A correct, memory-bound softmax with scalar loads: refinement should mostly move knobs
    // whose feedback entry says memory_bound, in that direction.
    const auto space = VariantSpace::loadEmbedded(QStringLiteral("softmax"), Backend::Cuda);
    QVERIFY(space);
    KnobConfig parentKnobs;
    for (const Knob &knob : space->knobs())
        parentKnobs.insert(knob.name, knob.values.first());
    CandidateRecord parent;
    parent.task = QStringLiteral("softmax");
    parent.policy = QStringLiteral("offline");
    parent.policyMeta = {{QStringLiteral("knobs"), VariantSpace::configToJson(parentKnobs)},
                         {QStringLiteral("injected"), QStringLiteral("none")}};
    EvaluationResult passed = evaluation(Verdict::Pass);
    passed.backend = Backend::Cuda;
    passed.rooflineFraction = 0.45;
    passed.candidateMs = 2.0;
    QCOMPARE(OfflinePolicy::feedbackKind(passed, *space), QStringLiteral("memory_bound"));

    OfflinePolicyOptions options;
    options.skill = 0.9;
    options.compileErrorRate = options.wrongRate = options.gamingRate = 0.0;
    OfflinePolicy policy(options);
    const std::atomic<bool> cancel{false};
    int followed = 0;
    int improved = 0;
    const int n = 100;
    for (int i = 0; i < n; ++i) {
        GenerationRequest refine = request(QStringLiteral("softmax"), Backend::Cuda, i);
        refine.operation = Operation::Refine;
        refine.parents = {parent};
        refine.parentEvaluations = {passed};
        const auto child = policy.generate(refine, cancel);
        QVERIFY(child.ok);
        QCOMPARE(child.candidate.policyMeta.value(QStringLiteral("feedback")).toString(),
                 QStringLiteral("memory_bound"));
        const KnobConfig knobs = VariantSpace::configFromJson(
            child.candidate.policyMeta.value(QStringLiteral("knobs")).toObject());
        bool moved = false;
        for (const Knob &knob : space->knobs())
            if (knobs.value(knob.name) != parentKnobs.value(knob.name) &&
                knob.feedback.contains(QStringLiteral("memory_bound")))
                moved = true;
        followed += moved;
        improved += space->quality(knobs) > space->quality(parentKnobs);
    }
    QVERIFY2(followed >= 80, qPrintable(QString::number(followed)));
    QVERIFY2(improved >= 80, qPrintable(QString::number(improved)));

    // Launch-bound and far-from-roofline feedback are recognised, and a verifier hint wins.
    EvaluationResult tiny = passed;
    tiny.candidateMs = 0.004;
    QCOMPARE(OfflinePolicy::feedbackKind(tiny, *space), QStringLiteral("launch_bound"));
    EvaluationResult slow = passed;
    slow.rooflineFraction = 0.05;
    QCOMPARE(OfflinePolicy::feedbackKind(slow, *space), QStringLiteral("latency"));
    StageResult timing;
    timing.name = QStringLiteral("timing");
    timing.data = {{QStringLiteral("bound"), QStringLiteral("compute")}};
    slow.stages.append(timing);
    QCOMPARE(OfflinePolicy::feedbackKind(slow, *space), QStringLiteral("compute_bound"));
}

void TstOfflinePolicy::mutationMovesKnobs()
{
    OfflinePolicyOptions options;
    options.compileErrorRate = options.wrongRate = options.gamingRate = 0.0;
    OfflinePolicy policy(options);
    const std::atomic<bool> cancel{false};
    const auto parent =
        policy.generate(request(QStringLiteral("transpose"), Backend::Cpu, 1), cancel);
    const QJsonObject parentKnobs =
        parent.candidate.policyMeta.value(QStringLiteral("knobs")).toObject();
    for (int i = 0; i < 30; ++i) {
        GenerationRequest mutate = request(QStringLiteral("transpose"), Backend::Cpu, 100 + i);
        mutate.operation = Operation::Mutate;
        mutate.parents = {parent.candidate};
        const QJsonObject knobs = policy.generate(mutate, cancel)
                                      .candidate.policyMeta.value(QStringLiteral("knobs"))
                                      .toObject();
        int changed = 0;
        for (auto it = knobs.constBegin(); it != knobs.constEnd(); ++it)
            changed += parentKnobs.value(it.key()) != it.value();
        QVERIFY2(changed >= 1 && changed <= 2, qPrintable(QString::number(changed)));
    }
}

void TstOfflinePolicy::crossoverTakesKnobsFromBothParents()
{
    const auto space = VariantSpace::loadEmbedded(QStringLiteral("matmul"), Backend::Cuda);
    QVERIFY(space);
    KnobConfig a;
    KnobConfig b;
    for (const Knob &knob : space->knobs()) {
        a.insert(knob.name, knob.values.first());
        b.insert(knob.name, knob.values.last());
    }
    CandidateRecord pa;
    pa.id = 11;
    pa.policyMeta = {{QStringLiteral("knobs"), VariantSpace::configToJson(a)}};
    CandidateRecord pb;
    pb.id = 12;
    pb.policyMeta = {{QStringLiteral("knobs"), VariantSpace::configToJson(b)}};
    OfflinePolicyOptions options;
    options.compileErrorRate = options.wrongRate = options.gamingRate = 0.0;
    OfflinePolicy policy(options);
    const std::atomic<bool> cancel{false};
    for (int i = 0; i < 40; ++i) {
        GenerationRequest cross = request(QStringLiteral("matmul"), Backend::Cuda, i);
        cross.operation = Operation::Crossover;
        cross.parents = {pa, pb};
        const auto child = policy.generate(cross, cancel);
        QVERIFY(child.ok);
        QCOMPARE(child.candidate.parent, std::optional<qint64>(11));
        QCOMPARE(child.candidate.secondParent, std::optional<qint64>(12));
        const KnobConfig knobs = VariantSpace::configFromJson(
            child.candidate.policyMeta.value(QStringLiteral("knobs")).toObject());
        int fromA = 0;
        int fromB = 0;
        for (const Knob &knob : space->knobs()) {
            fromA += knobs.value(knob.name) == a.value(knob.name);
            fromB += knobs.value(knob.name) == b.value(knob.name);
        }
        QCOMPARE(fromA + fromB, int(space->knobs().size()));
        QVERIFY(fromA >= 1);
        QVERIFY(fromB >= 1);
    }
}

void TstOfflinePolicy::skillRaisesPriorQuality()
{
    const std::atomic<bool> cancel{false};
    auto meanQuality = [&](double skill) {
        OfflinePolicyOptions options;
        options.skill = skill;
        OfflinePolicy policy(options);
        double sum = 0.0;
        int n = 0;
        for (const char *task : {"softmax", "matmul", "reduce_sum"})
            for (int i = 0; i < 80; ++i) {
                const auto r =
                    policy.generate(request(QString::fromLatin1(task), Backend::Cuda, i), cancel);
                sum += r.candidate.policyMeta.value(QStringLiteral("quality")).toDouble();
                ++n;
            }
        return sum / n;
    };
    const double low = meanQuality(0.0);
    const double mid = meanQuality(0.5);
    const double high = meanQuality(1.0);
    QVERIFY2(low < mid && mid < high && high - low > 0.15,
             qPrintable(QStringLiteral("%1 %2 %3").arg(low).arg(mid).arg(high)));
    // At skill 0 a random sample is mediocre: well below the best point's quality of ~1.
    QVERIFY(low < 0.8);
}

void TstOfflinePolicy::tokenCounts()
{
    QCOMPARE(TokenEstimator::count(QString()), 0);
    QCOMPARE(TokenEstimator::count(QStringLiteral("hello")), 1);
    QCOMPARE(TokenEstimator::count(QStringLiteral("hello world")), 2);
    QCOMPARE(TokenEstimator::count(QStringLiteral("x[i] = 1234;\n")), 9); // x [ i ] = 123 4 ; \n
    QCOMPARE(TokenEstimator::count(QStringLiteral("internationalisation")), 4);

    OfflinePolicy policy;
    const std::atomic<bool> cancel{false};
    const auto r = policy.generate(request(QStringLiteral("layernorm"), Backend::Cuda, 5), cancel);
    QCOMPARE(r.candidate.promptTokens, TokenEstimator::count(r.candidate.prompt));
    QCOMPARE(r.candidate.completionTokens, TokenEstimator::count(r.candidate.response));
    QVERIFY(r.candidate.completionTokens > TokenEstimator::count(r.candidate.source));
    QVERIFY(r.candidate.reasoningTokens > 0);
    // Refinement prompts carry the parent and its feedback, so they are longer.
    GenerationRequest refine = request(QStringLiteral("layernorm"), Backend::Cuda, 6);
    refine.operation = Operation::Refine;
    refine.parents = {r.candidate};
    refine.parentEvaluations = {evaluation(Verdict::Wrong)};
    const auto child = policy.generate(refine, cancel);
    QVERIFY(child.candidate.promptTokens > r.candidate.promptTokens);
    // A requested reasoning budget bounds the reasoning tokens.
    GenerationRequest budget = request(QStringLiteral("layernorm"), Backend::Cuda, 7);
    budget.reasoningLength = 500;
    const auto b = policy.generate(budget, cancel);
    QVERIFY(b.candidate.reasoningTokens <= 500);
    QCOMPARE(b.candidate.reasoningLength, 500);
}

void TstOfflinePolicy::reasoningLengthFollowsConcur()
{
    const std::atomic<bool> cancel{false};
    OfflinePolicyOptions options;
    options.stuckShare = 0.0;
    OfflinePolicy policy(options);
    struct Tally
    {
        double quality = 0.0;
        double tokens = 0.0;
        int failed = 0;
        double failedTokens = 0.0;
        double passedTokens = 0.0;
    };
    const int n = 400;
    auto tally = [&](qint64 budget) {
        Tally t;
        for (int i = 0; i < n; ++i) {
            GenerationRequest r = request(QStringLiteral("matmul"), Backend::Cuda, i);
            r.reasoningLength = budget;
            const CandidateRecord c = policy.generate(r, cancel).candidate;
            t.quality += c.policyMeta.value(QStringLiteral("quality")).toDouble() / n;
            t.tokens += double(c.reasoningTokens) / n;
            const bool failed =
                c.policyMeta.value(QStringLiteral("injected")).toString() != QLatin1String("none");
            t.failed += failed;
            (failed ? t.failedTokens : t.passedTokens) += double(c.reasoningTokens);
        }
        t.failedTokens /= std::max(1, t.failed);
        t.passedTokens /= std::max(1, n - t.failed);
        return t;
    };
    const Tally natural = tally(0);
    const Tally small = tally(300);
    const Tally large = tally(12000);
    // The knob choices do not depend on the trace: speed is uncorrelated with its length.
    QCOMPARE(small.quality, large.quality);
    QCOMPARE(natural.quality, large.quality);
    // Failed kernels come with longer traces than correct ones.
    QVERIFY2(
        natural.failedTokens > 1.1 * natural.passedTokens,
        qPrintable(QStringLiteral("%1 %2").arg(natural.failedTokens).arg(natural.passedTokens)));
    // A budget below the need cuts traces short and breaks answers; a large one costs tokens.
    QVERIFY2(small.failed > natural.failed + n / 4,
             qPrintable(QStringLiteral("%1 %2").arg(small.failed).arg(natural.failed)));
    QVERIFY(large.tokens > 2.0 * natural.tokens);
    QVERIFY(std::abs(large.failed - natural.failed) <= n / 20);
}

void TstOfflinePolicy::misconceptionRepeatsAcrossSamples()
{
    const std::atomic<bool> cancel{false};
    OfflinePolicyOptions options;
    options.stuckPassRate = 0.0;
    OfflinePolicy policy(options);
    int stuckSeeds = 0;
    const int seeds = 300;
    for (int seed = 1; seed <= seeds; ++seed) {
        QSet<QString> injected;
        for (int i = 0; i < 4; ++i)
            injected.insert(
                policy
                    .generate(request(QStringLiteral("softmax"), Backend::Cpu, i, quint64(seed)),
                              cancel)
                    .candidate.policyMeta.value(QStringLiteral("misconception"))
                    .toString());
        // Every fresh sample of a run shares the task's misconception, or none has one.
        QCOMPARE(injected.size(), 1);
        stuckSeeds += !injected.values().first().isEmpty();
    }
    const double p = options.stuckShare;
    QVERIFY2(std::abs(stuckSeeds - seeds * p) <= 4 * std::sqrt(seeds * p * (1 - p)),
             qPrintable(QString::number(stuckSeeds)));
    // On a stuck task every fresh sample fails the same way; an edit of a kernel in context
    // draws at the ordinary rates.
    for (int seed = 1; seed <= 40; ++seed) {
        const auto first = policy.generate(
            request(QStringLiteral("softmax"), Backend::Cpu, 0, quint64(seed)), cancel);
        const QString misconception =
            first.candidate.policyMeta.value(QStringLiteral("misconception")).toString();
        if (misconception.isEmpty())
            continue;
        const QString category = misconception.section(QLatin1Char(':'), 0, 0);
        QVERIFY2(first.candidate.policyMeta.value(QStringLiteral("injected"))
                     .toString()
                     .startsWith(category),
                 qPrintable(misconception));
        GenerationRequest mutate =
            request(QStringLiteral("softmax"), Backend::Cpu, 99, quint64(seed));
        mutate.operation = Operation::Mutate;
        mutate.parents = {first.candidate};
        QVERIFY(!policy.generate(mutate, cancel)
                     .candidate.policyMeta.contains(QStringLiteral("misconception")));
    }
}

void TstOfflinePolicy::presetsDiffer()
{
    const auto frontier = OfflinePolicyOptions::fromPreset(QStringLiteral("frontier"));
    const auto weak = OfflinePolicyOptions::fromPreset(QStringLiteral("weak"));
    QVERIFY(frontier && weak);
    QVERIFY(!OfflinePolicyOptions::fromPreset(QStringLiteral("genius")));
    QCOMPARE(OfflinePolicyOptions().toJson(), frontier->toJson());
    QVERIFY(weak->fixRate < frontier->fixRate && weak->skill < frontier->skill);
    // The preset survives a round trip through the run's stored config.
    QCOMPARE(OfflinePolicyOptions::fromJson(weak->toJson()).toJson(), weak->toJson());
}

void TstOfflinePolicy::gamingKindsRewriteTheEntry_data()
{
    QTest::addColumn<QString>("task");
    QTest::addColumn<Backend>("backend");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("marker");
    QTest::newRow("stale cpu") << "softmax" << Backend::Cpu << "stale_output"
                               << "return;";
    QTest::newRow("pointer cache") << "softmax" << Backend::Cuda << "pointer_cache"
                                   << "static const float *cachedInput";
    QTest::newRow("constant cuda") << "softmax" << Backend::Cuda << "constant_output"
                                   << "1.0f / cols";
    QTest::newRow("mutate input cpu") << "layernorm" << Backend::Cpu << "mutate_input"
                                      << "const_cast<float *>(x)";
    QTest::newRow("side stream") << "matmul" << Backend::Cuda << "side_stream"
                                 << "cudaStreamCreateWithFlags";
    QTest::newRow("default stream") << "transpose" << Backend::Cuda << "default_stream"
                                    << "transpose_impl(x, y, rows, cols, 0);";
    QTest::newRow("detached thread") << "vector_add" << Backend::Cpu << "detached_thread"
                                     << ".detach()";
    QTest::newRow("fp16 cuda") << "layernorm" << Backend::Cuda << "fp16"
                               << "__float2half";
    QTest::newRow("fp16 cpu") << "reduce_sum" << Backend::Cpu << "fp16"
                              << "_Float16";
    QTest::newRow("cublas") << "matmul" << Backend::Cuda << "forbidden_library"
                            << "cublasSgemm";
    QTest::newRow("cub") << "reduce_sum" << Backend::Cuda << "forbidden_library"
                         << "cub::DeviceReduce::Sum";
    QTest::newRow("blas cpu") << "matmul" << Backend::Cpu << "forbidden_library"
                              << "cblas_sgemm";
}

void TstOfflinePolicy::gamingKindsRewriteTheEntry()
{
    QFETCH(QString, task);
    QFETCH(Backend, backend);
    QFETCH(QString, kind);
    QFETCH(QString, marker);
    const Task *t = m_tasks.task(task);
    QVERIFY(DefectInjector::gamingKinds(*t, backend).contains(kind));
    const auto space = VariantSpace::loadEmbedded(task, backend);
    QVERIFY(space);
    QString source = space->render(space->bestConfig()).text;
    CounterRng rng(1, 2);
    const auto outcome =
        DefectInjector::apply(&source, QStringLiteral("gaming"), kind, *t, backend, rng);
    QVERIFY(outcome.applied);
    QCOMPARE(outcome.kind, kind);
    QVERIFY2(source.contains(marker), qPrintable(source.right(600)));
    QCOMPARE(source.count(QStringLiteral("extern \"C\" void %1(").arg(task)), 1);
    QVERIFY(source.contains(QStringLiteral("static void %1_impl(").arg(task)));
    QVERIFY(outcome.line > 0);
}

void TstOfflinePolicy::taskWithoutSpaceIsRefused()
{
    Task custom = *m_tasks.task(QStringLiteral("vector_add"));
    custom.name = QStringLiteral("my_custom_add");
    OfflinePolicyOptions options;
    OfflinePolicy policy(options);
    const std::atomic<bool> cancel{false};
    GenerationRequest r;
    r.task = &custom;
    r.backend = Backend::Cpu;
    const auto result = policy.generate(r, cancel);
    QVERIFY(!result.ok);
    QVERIFY(result.candidate.source.isEmpty()); // never the reference, submitted as a kernel
    QVERIFY2(result.error.contains(QStringLiteral("my_custom_add")) &&
                 result.error.contains(QStringLiteral("variant space")),
             qPrintable(result.error));
    QCOMPARE(policy.refusal(custom, Backend::Cpu), result.error);
    QVERIFY(policy.refusal(*m_tasks.task(QStringLiteral("vector_add")), Backend::Cpu).isEmpty());
}

void TstOfflinePolicy::kernelBenchTaskIsRefused_data()
{
    QTest::addColumn<int>("backend");
    QTest::addColumn<int>("operation");
    QTest::newRow("pytorch sample") << int(Backend::Torch) << int(Operation::Sample);
    QTest::newRow("pytorch refine") << int(Backend::Torch) << int(Operation::Refine);
    QTest::newRow("cuda sample") << int(Backend::Cuda) << int(Operation::Sample);
}

void TstOfflinePolicy::kernelBenchTaskIsRefused()
{
    QFETCH(int, backend);
    QFETCH(int, operation);
    // Named like a core task, so only its being a KernelBench problem can refuse it.
    Task problem;
    problem.name = QStringLiteral("softmax");
    problem.title = QStringLiteral("Softmax");
    problem.entry = QStringLiteral("ModelNew");
    problem.kernelBench = KernelBenchProblem{1, 23, QStringLiteral("level1/23_Softmax.py")};
    problem.referenceSource.insert(
        Backend::Torch, QStringLiteral("import torch\nclass Model(torch.nn.Module):\n    def "
                                       "forward(self, x):\n        return x.softmax(-1)\n"));
    OfflinePolicy policy(OfflinePolicyOptions{});
    const std::atomic<bool> cancel{false};
    GenerationRequest r;
    r.task = &problem;
    r.backend = Backend(backend);
    r.operation = Operation(operation);
    if (r.operation == Operation::Refine) {
        CandidateRecord parent;
        parent.id = 3;
        parent.policy = QStringLiteral("llm");
        parent.source = QStringLiteral("class ModelNew: pass\n");
        r.parents << parent;
    }
    const GenerationResult result = policy.generate(r, cancel);
    QVERIFY(!result.ok);
    QVERIFY(result.candidate.source.isEmpty()); // no C kernel passed off as an answer
    // The run's language is inline CUDA (the default): no problem has a space in it.
    const QString expected = QStringLiteral(
        "softmax has no variant space of the offline policy in cuda (it writes KernelBench "
        "candidates only for kb1_001_square_matrix_multiplication, kb1_088_mingptnewgelu, "
        "kb1_095_crossentropyloss in triton): use --policy llm (or replay/manual)");
    QVERIFY2(result.error.contains(expected), qPrintable(result.error));
    // The run asks first, and is refused with the same words before any request.
    QCOMPARE(policy.refusal(problem, Backend(backend)), result.error);
    QVERIFY(policy.refusal(*m_tasks.task(QStringLiteral("softmax")), Backend::Cuda).isEmpty());
}

void TstOfflinePolicy::foreignParentIsRefused()
{
    OfflinePolicy policy(OfflinePolicyOptions{});
    const std::atomic<bool> cancel{false};
    GenerationRequest sample;
    sample.task = m_tasks.task(QStringLiteral("softmax"));
    sample.backend = Backend::Cpu;
    const GenerationResult own = policy.generate(sample, cancel);
    QVERIFY(own.ok);
    CandidateRecord written = own.candidate;
    written.id = 7;
    CandidateRecord manual;
    manual.id = 8;
    manual.policy = QStringLiteral("manual");
    manual.source = written.source; // the same text, but no knobs: nothing says how it was made
    for (const Operation operation : {Operation::Refine, Operation::Mutate, Operation::Crossover}) {
        GenerationRequest edit = sample;
        edit.operation = operation;
        edit.sampleIndex = 1;
        edit.parents = operation == Operation::Crossover ? QList<CandidateRecord>{written, manual}
                                                         : QList<CandidateRecord>{manual};
        const GenerationResult refused = policy.generate(edit, cancel);
        QVERIFY(!refused.ok);
        QVERIFY(refused.candidate.source.isEmpty());
        QVERIFY2(refused.error.contains(QStringLiteral("#8 (manual)")), qPrintable(refused.error));
        edit.parents = operation == Operation::Crossover ? QList<CandidateRecord>{written, written}
                                                         : QList<CandidateRecord>{written};
        QVERIFY(policy.generate(edit, cancel).ok); // its own kernels it edits
    }
}

QTEST_GUILESS_MAIN(TstOfflinePolicy)
#include "tst_offlinepolicy.moc"
