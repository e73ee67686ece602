// The workshop of docs/workshop.md, each exercise at a small budget through the real kiln-cli
// and the CPU verifier. Each test asserts the direction of the exercise's observation, not a
// tuned number: if the policy, a strategy or the verifier stops showing the lesson, it fails.
#include "engine/reports/coveragemetrics.h"
#include "kilncli.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

namespace {

using kiln::test::runCli;

const QStringList kSuite{QStringLiteral("vector_add"), QStringLiteral("reduce_sum"),
                         QStringLiteral("softmax"),    QStringLiteral("layernorm"),
                         QStringLiteral("matmul"),     QStringLiteral("transpose")};

struct Candidate
{
    qint64 id = 0;
    qint64 parent = 0;
    QString task;
    QString operation;
    bool pass = false;
    double speedup = 0.0; // 0 unless it passed
    qint64 reasoningTokens = 0;
};

QJsonObject objectOf(const QJsonValue &value)
{
    // export stores some columns as JSON text, others as objects.
    return value.isString() ? QJsonDocument::fromJson(value.toString().toUtf8()).object()
                            : value.toObject();
}

// One search in its own database; its candidates as kiln-cli export lists them.
QList<Candidate> search(const QTemporaryDir &dir, const QString &name, QStringList arguments)
{
    const QString db = dir.filePath(name + QStringLiteral(".db"));
    arguments = QStringList{QStringLiteral("run"), QStringLiteral("--backend"),
                            QStringLiteral("cpu"), QStringLiteral("--db"), db} +
                arguments;
    const kiln::test::CliOutcome run = runCli(arguments);
    if (run.status != 0) {
        qWarning("%s: %s", qPrintable(name), run.err.constData());
        return {};
    }
    const kiln::test::CliOutcome exported =
        runCli({QStringLiteral("export"), QStringLiteral("--db"), db, QStringLiteral("--run"),
                QStringLiteral("1"), QStringLiteral("--format"), QStringLiteral("json")});
    QList<Candidate> candidates;
    for (const QJsonValue &v : QJsonDocument::fromJson(exported.out)
                                   .object()
                                   .value(QStringLiteral("candidates"))
                                   .toArray()) {
        const QJsonObject c = v.toObject();
        const QJsonObject e = objectOf(c.value(QStringLiteral("evaluation")));
        Candidate item;
        item.id = c.value(QStringLiteral("id")).toInteger();
        item.parent = c.value(QStringLiteral("parent")).toInteger();
        item.task = c.value(QStringLiteral("task")).toString();
        item.operation = c.value(QStringLiteral("operation")).toString();
        item.pass = e.value(QStringLiteral("verdict")).toString() == QLatin1String("pass");
        item.speedup = item.pass ? e.value(QStringLiteral("speedup")).toDouble() : 0.0;
        item.reasoningTokens = c.value(QStringLiteral("reasoning_tokens")).toInteger();
        candidates.append(item);
    }
    return candidates;
}

QStringList suiteRun(const QString &strategy, int budget, const QStringList &more = {})
{
    return QStringList{QStringLiteral("--suite"),    kSuite.join(QLatin1Char(',')),
                       QStringLiteral("--strategy"), strategy,
                       QStringLiteral("--budget"),   QString::number(budget),
                       QStringLiteral("--seed"),     QStringLiteral("7")} +
           more;
}

double meanPassAtK(const QList<Candidate> &candidates, int k)
{
    QMap<QString, QPair<int, int>> perTask; // task -> (samples, passes)
    for (const Candidate &c : candidates) {
        perTask[c.task].first += 1;
        perTask[c.task].second += c.pass;
    }
    double sum = 0.0;
    for (const auto &[n, passed] : perTask)
        sum += kiln::CoverageMetrics::atK(n, passed, k);
    return perTask.isEmpty() ? 0.0 : sum / perTask.size();
}

int tasksSolved(const QList<Candidate> &candidates)
{
    QSet<QString> solved;
    for (const Candidate &c : candidates)
        if (c.pass)
            solved.insert(c.task);
    return int(solved.size());
}

int depthOf(const QList<Candidate> &candidates, const Candidate &c)
{
    QMap<qint64, qint64> parents;
    for (const Candidate &x : candidates)
        parents.insert(x.id, x.parent);
    int depth = 0;
    for (qint64 p = c.parent; p > 0 && depth < 1000; p = parents.value(p))
        ++depth;
    return depth;
}

} // namespace

class TstWorkshop : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    // 1. Width: coverage rises with k but stays far below what independent tries at the same
    // pass@1 would give, because a misconception repeats in every fresh sample.
    void widthPlateaus()
    {
        const QList<Candidate> c =
            search(m_dir, QStringLiteral("width"),
                   suiteRun(QStringLiteral("best-of-n"), 48,
                            {QStringLiteral("--param"), QStringLiteral("allocation=even")}));
        QVERIFY(c.size() >= 36 && c.size() <= 48);
        const double p1 = meanPassAtK(c, 1), p6 = meanPassAtK(c, 6);
        const double independent = 1.0 - std::pow(1.0 - p1, 6);
        QVERIFY2(p6 > p1 && p6 < independent - 0.05,
                 qPrintable(QStringLiteral("pass@1 %1, pass@6 %2, independent tries %3")
                                .arg(p1)
                                .arg(p6)
                                .arg(independent)));
    }

    // 2. Depth against width at equal budget: feedback fixes what resampling repeats.
    void depthBeatsWidthOnCoverage()
    {
        const QList<Candidate> width =
            search(m_dir, QStringLiteral("w6"), suiteRun(QStringLiteral("best-of-n"), 36));
        const QList<Candidate> depth =
            search(m_dir, QStringLiteral("d6"),
                   suiteRun(QStringLiteral("refine"), 36,
                            {QStringLiteral("--param"), QStringLiteral("width=1"),
                             QStringLiteral("--param"), QStringLiteral("turns=6")}));
        // A suite may stop a task early once it plateaus; neither run exceeds the budget.
        QVERIFY(!width.isEmpty() && width.size() <= 36);
        QVERIFY(!depth.isEmpty() && depth.size() <= 36);
        QVERIFY2(tasksSolved(depth) >= tasksSolved(width),
                 qPrintable(QStringLiteral("refine solved %1 tasks, best-of-n %2")
                                .arg(tasksSolved(depth))
                                .arg(tasksSolved(width))));
    }

    // 3. Structured search keeps building on its best kernels: beam's lineages go deep.
    void structuredSearchBuildsLineages()
    {
        const QStringList args{QStringLiteral("--task"),   QStringLiteral("softmax"),
                               QStringLiteral("--budget"), QStringLiteral("27"),
                               QStringLiteral("--seed"),   QStringLiteral("7")};
        const QList<Candidate> beam =
            search(m_dir, QStringLiteral("beam"),
                   args + QStringList{QStringLiteral("--strategy"), QStringLiteral("beam"),
                                      QStringLiteral("--param"), QStringLiteral("beams=3"),
                                      QStringLiteral("--param"), QStringLiteral("children=3")});
        QVERIFY(!beam.isEmpty());
        int deepest = 0;
        for (const Candidate &c : beam)
            deepest = std::max(deepest, depthOf(beam, c));
        QVERIFY2(deepest >= 2, qPrintable(QString::number(deepest)));
    }

    // 4. The reasoning-length knob: a longer budget costs tokens and buys no speed; one below
    // what the task needs cuts traces short and breaks kernels.
    void reasoningLengthKnob()
    {
        auto run = [&](const QString &name, int length) {
            return search(
                m_dir, name,
                {QStringLiteral("--task"), QStringLiteral("matmul"), QStringLiteral("--strategy"),
                 QStringLiteral("best-of-n"), QStringLiteral("--budget"), QStringLiteral("12"),
                 QStringLiteral("--seed"), QStringLiteral("11"), QStringLiteral("--param"),
                 QStringLiteral("reasoning_length=%1").arg(length), QStringLiteral("--param"),
                 QStringLiteral("stuck_share=0")});
        };
        const QList<Candidate> shortRun = run(QStringLiteral("short"), 400);
        const QList<Candidate> longRun = run(QStringLiteral("long"), 12000);
        QCOMPARE(shortRun.size(), 12);
        QCOMPARE(longRun.size(), 12);
        qint64 shortTokens = 0, longTokens = 0;
        int shortPass = 0, longPass = 0;
        for (const Candidate &c : shortRun) {
            shortTokens += c.reasoningTokens;
            shortPass += c.pass;
        }
        for (const Candidate &c : longRun) {
            longTokens += c.reasoningTokens;
            longPass += c.pass;
        }
        QVERIFY(longTokens > 2 * shortTokens);
        QVERIFY2(shortPass < longPass,
                 qPrintable(QStringLiteral("%1 short, %2 long").arg(shortPass).arg(longPass)));
    }

    // 5. Compute-optimal allocation: adaptive and diagnosed move evaluations between the suite's
    // tasks; even does not.
    void allocationsOtherThanEvenAreUneven()
    {
        auto perTask = [](const QList<Candidate> &c) {
            QMap<QString, int> counts;
            for (const Candidate &x : c)
                counts[x.task]++;
            return counts;
        };
        const QMap<QString, int> even = perTask(
            search(m_dir, QStringLiteral("even"),
                   suiteRun(QStringLiteral("best-of-n"), 36,
                            {QStringLiteral("--param"), QStringLiteral("allocation=even")})));
        const QMap<QString, int> adaptive = perTask(
            search(m_dir, QStringLiteral("adaptive"),
                   suiteRun(QStringLiteral("best-of-n"), 36,
                            {QStringLiteral("--param"), QStringLiteral("allocation=adaptive")})));
        auto spread = [](const QMap<QString, int> &m) {
            int lo = 1 << 30, hi = 0;
            for (int v : m)
                lo = std::min(lo, v), hi = std::max(hi, v);
            return hi - lo;
        };
        const QMap<QString, int> diagnosed = perTask(
            search(m_dir, QStringLiteral("diagnosed"),
                   suiteRun(QStringLiteral("best-of-n"), 36,
                            {QStringLiteral("--param"), QStringLiteral("allocation=diagnosed")})));
        QCOMPARE(even.size(), 6);
        QCOMPARE(diagnosed.size(), 6);
        QVERIFY2(spread(even) <= 1, qPrintable(QString::number(spread(even))));
        QVERIFY2(spread(adaptive) >= 2, qPrintable(QString::number(spread(adaptive))));
        QVERIFY2(spread(diagnosed) >= 2, qPrintable(QString::number(spread(diagnosed))));
    }

    // 6. The leaky verifier: the naive harness passes kernels the strict verifier blocks.
    void leakyVerifierOverstates()
    {
        const QStringList args{QStringLiteral("--task"),     QStringLiteral("reduce_sum"),
                               QStringLiteral("--strategy"), QStringLiteral("best-of-n"),
                               QStringLiteral("--budget"),   QStringLiteral("10"),
                               QStringLiteral("--seed"),     QStringLiteral("5"),
                               QStringLiteral("--param"),    QStringLiteral("gaming_rate=0.5"),
                               QStringLiteral("--param"),    QStringLiteral("stuck_share=0")};
        const QList<Candidate> lenient =
            search(m_dir, QStringLiteral("lenient"),
                   args + QStringList{QStringLiteral("--verifier"), QStringLiteral("lenient")});
        const QList<Candidate> strict = search(m_dir, QStringLiteral("strict"), args);
        QCOMPARE(lenient.size(), 10);
        QCOMPARE(strict.size(), 10);
        int lenientPass = 0, strictPass = 0;
        for (const Candidate &c : lenient)
            lenientPass += c.pass;
        for (const Candidate &c : strict)
            strictPass += c.pass;
        QVERIFY2(
            lenientPass > strictPass,
            qPrintable(QStringLiteral("%1 lenient, %2 strict").arg(lenientPass).arg(strictPass)));
    }

    // 7. Beat the search by hand: a hand-written kernel joins the run, judged like the rest.
    void handWrittenKernelJoinsTheRun()
    {
        const QString db = m_dir.filePath(QStringLiteral("hand.db"));
        QCOMPARE(runCli({QStringLiteral("run"), QStringLiteral("--task"),
                         QStringLiteral("vector_add"), QStringLiteral("--backend"),
                         QStringLiteral("cpu"), QStringLiteral("--budget"), QStringLiteral("4"),
                         QStringLiteral("--seed"), QStringLiteral("2"), QStringLiteral("--db"), db})
                     .status,
                 0);
        const kiln::test::CliOutcome submitted = runCli(
            {QStringLiteral("submit"), QStringLiteral("--db"), db, QStringLiteral("--run"),
             QStringLiteral("1"), QStringLiteral("--json"),
             QStringLiteral(KILN_SOURCE_DIR "/tests/data/candidates/cpu/vector_add_openmp.cpp")});
        QVERIFY2(submitted.status == 0, submitted.err.constData());
        const QJsonObject doc = submitted.json();
        const QString verdict = doc.value(QStringLiteral("verdict")).toString();
        QVERIFY2(verdict == QLatin1String("pass"), submitted.out.constData());
        const kiln::test::CliOutcome report =
            runCli({QStringLiteral("report"), QStringLiteral("--db"), db, QStringLiteral("--run"),
                    QStringLiteral("1"), QStringLiteral("--json")});
        QCOMPARE(report.json()
                     .value(QStringLiteral("runs"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("candidates"))
                     .toInt(),
                 5);
    }
};

QTEST_GUILESS_MAIN(TstWorkshop)
#include "tst_workshop.moc"
