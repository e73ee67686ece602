// Each analyzer of a run's diagnosis on a history built to show its condition and on one built
// not to: the rating moves from 1 to 4 or 5, and the evidence names the candidates that show it.
#include "engine/diagnosis/rundiagnosis.h"

#include <QJsonArray>
#include <QtTest>

using namespace kiln;

namespace {

CandidateSummary candidate(qint64 id, Verdict verdict, std::optional<double> speedup = {},
                           Operation operation = Operation::Sample)
{
    CandidateSummary c;
    c.id = id;
    c.round = int(id / 4);
    c.operation = operation;
    c.evaluated = true;
    c.verdict = verdict;
    c.correct = verdict == Verdict::Pass;
    c.speedup = speedup;
    if (speedup) {
        c.speedupLow = *speedup * 0.98;
        c.speedupHigh = *speedup * 1.02;
    }
    c.promptTokens = 1000;
    c.completionTokens = 500;
    return c;
}

// n passing candidates whose speedups rise by 0.1 at each listed position, 1.0 elsewhere.
QList<CandidateSummary> risingAt(int n, const QList<int> &raises)
{
    QList<CandidateSummary> list;
    double best = 1.0;
    for (int i = 0; i < n; ++i) {
        if (raises.contains(i))
            best += 0.1;
        list.append(candidate(i + 1, Verdict::Pass, raises.contains(i) ? best : 1.0));
    }
    return list;
}

DiagnosisFinding finding(const RunHistory &history, const QString &analyzer)
{
    for (const DiagnosisFinding &f : RunDiagnosis::diagnose(history))
        if (f.analyzer == analyzer)
            return f;
    return {};
}

// A small CUDA kernel with one varying constant; `distinct` changes its whole body.
QString kernelSource(int variant, bool distinct)
{
    if (!distinct)
        return QStringLiteral("// try %1\n__global__ void k(float *x, int n) { int i = "
                              "blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2.0f; }")
            .arg(variant);
    QString body;
    for (int s = 0; s < 6; ++s)
        body += QStringLiteral("float v%1_%2 = x[i + %3] * w%4; ")
                    .arg(variant)
                    .arg(s)
                    .arg(variant * 7 + s)
                    .arg(variant * 13 + s);
    return QStringLiteral("__global__ void k%1(float *x) { int i = threadIdx.x; %2 }")
        .arg(variant)
        .arg(body);
}

} // namespace

class TestRunDiagnosis : public QObject
{
    Q_OBJECT

private slots:
    void stagnation()
    {
        RunHistory stalled(risingAt(40, {0, 3, 5}));
        stalled.budget = 40;
        stalled.budgetAxis = QStringLiteral("evals");
        const DiagnosisFinding shown = finding(stalled, QStringLiteral("stagnation"));
        QCOMPARE(shown.rating, 5);
        QCOMPARE(shown.candidates, QList<qint64>{6});
        QCOMPARE(shown.figures.value(QStringLiteral("evaluations_since")).toInt(), 34);

        const DiagnosisFinding notShown =
            finding(RunHistory(risingAt(40, {0, 10, 20, 30, 38})), QStringLiteral("stagnation"));
        QCOMPARE(notShown.rating, 1);

        // The budget, not the evaluations so far, is what a live run's stall is measured by.
        RunHistory early(risingAt(10, {0}));
        early.budget = 100;
        early.budgetAxis = QStringLiteral("evals");
        QCOMPARE(finding(early, QStringLiteral("stagnation")).rating, 1);
    }

    void explorationCollapse()
    {
        QList<CandidateSummary> list;
        for (int i = 0; i < 20; ++i)
            list.append(candidate(i + 1, Verdict::Pass, 1.0));
        RunHistory same(list), varied(list);
        for (int i = 0; i < 20; ++i) {
            same.sources.insert(i + 1, kernelSource(i, false)); // only the comment differs
            varied.sources.insert(i + 1, kernelSource(i, true));
        }
        const DiagnosisFinding shown = finding(same, QStringLiteral("exploration_collapse"));
        QCOMPARE(shown.rating, 5);
        QCOMPARE(shown.candidates.size(), 19); // all but the first repeat it
        QCOMPARE(finding(varied, QStringLiteral("exploration_collapse")).rating, 1);

        // One changed token among about 250 distinct trigrams (0.976) is a new kernel, not a
        // repeat; a block comment is no change at all; an empty source repeats nothing.
        QString longer;
        for (int s = 0; s < 40; ++s)
            longer += QStringLiteral("acc += x[i + %1] * w[%1]; ").arg(s);
        RunHistory edits(list.mid(0, 8));
        for (int i = 0; i < 8; ++i)
            edits.sources.insert(i + 1, QStringLiteral("__global__ void k(float *x) { %1 }")
                                            .arg(longer + QStringLiteral("int tile = %1;").arg(i)));
        QCOMPARE(finding(edits, QStringLiteral("exploration_collapse")).candidates.size(), 0);
        for (int i = 0; i < 8; ++i)
            edits.sources.insert(i + 1, QStringLiteral("/* try %1 */ ").arg(i) + longer);
        QCOMPARE(finding(edits, QStringLiteral("exploration_collapse")).candidates.size(), 7);
        for (int i = 0; i < 8; ++i)
            edits.sources.insert(i + 1, QString());
        QCOMPARE(finding(edits, QStringLiteral("exploration_collapse")).candidates.size(), 0);

        // Judged duplicates count without their sources.
        QList<CandidateSummary> duplicates = list;
        for (int i = 10; i < 20; ++i)
            duplicates[i].duplicateOf = 1;
        QCOMPARE(finding(RunHistory(duplicates), QStringLiteral("exploration_collapse")).rating, 4);
    }

    void repeatedMisconception()
    {
        QList<CandidateSummary> same, different;
        for (int i = 0; i < 20; ++i) {
            CandidateSummary c = candidate(i + 1, i < 12 ? Verdict::CompileError : Verdict::Pass,
                                           i < 12 ? std::nullopt : std::optional<double>(1.0));
            CandidateSummary d = c;
            c.summary = QStringLiteral("/tmp/kiln-%1/candidate.cu(%2): error: identifier "
                                       "\"blockdim\" is undefined")
                            .arg(i * 977)
                            .arg(10 + i);
            d.summary = QStringLiteral("error: identifier \"name%1\" is undefined")
                            .arg(QChar(QLatin1Char('a' + i)));
            same.append(c);
            different.append(d);
        }
        const DiagnosisFinding shown =
            finding(RunHistory(same), QStringLiteral("repeated_misconception"));
        QCOMPARE(shown.rating, 5);
        QCOMPARE(shown.candidates.size(), 12);
        QVERIFY2(shown.finding.contains(QStringLiteral("blockdim")), qPrintable(shown.finding));
        QCOMPARE(finding(RunHistory(different), QStringLiteral("repeated_misconception")).rating,
                 1);

        // Refinements are not fresh samples: the same failures there are not this condition.
        for (CandidateSummary &c : same)
            c.operation = Operation::Refine;
        QCOMPARE(finding(RunHistory(same), QStringLiteral("repeated_misconception")).rating, 1);
    }

    void evaluatorNoise()
    {
        QList<CandidateSummary> close = {candidate(1, Verdict::Pass, 1.45),
                                         candidate(2, Verdict::Pass, 1.50),
                                         candidate(3, Verdict::Pass, 1.40)};
        close[1].speedupLow = 1.2;
        close[1].speedupHigh = 1.8;
        const DiagnosisFinding shown =
            finding(RunHistory(close), QStringLiteral("evaluator_noise"));
        QCOMPARE(shown.rating, 5);
        QCOMPARE(shown.candidates, (QList<qint64>{2, 1, 3})); // the best, then who reaches it

        QList<CandidateSummary> clear = {candidate(1, Verdict::Pass, 1.5),
                                         candidate(2, Verdict::Pass, 3.0)};
        const DiagnosisFinding notShown =
            finding(RunHistory(clear), QStringLiteral("evaluator_noise"));
        QCOMPARE(notShown.rating, 1);
        QCOMPARE(notShown.candidates, QList<qint64>{2});
    }

    void ceiling()
    {
        RunHistory near(risingAt(5, {0, 2}));
        near.bestFacts[QString()].rooflineFraction = 0.9;
        QCOMPARE(finding(near, QStringLiteral("ceiling")).rating, 5);
        RunHistory far(risingAt(5, {0, 2}));
        far.bestFacts[QString()].rooflineFraction = 0.1;
        const DiagnosisFinding notShown = finding(far, QStringLiteral("ceiling"));
        QCOMPARE(notShown.rating, 1);
        QCOMPARE(notShown.figures.value(QStringLiteral("headroom")).toDouble(), 10.0);
    }

    void costEfficiency()
    {
        const DiagnosisFinding shown =
            finding(RunHistory(risingAt(40, {0, 1, 2})), QStringLiteral("cost_efficiency"));
        QCOMPARE(shown.rating, 5);
        const QJsonArray quarters = shown.figures.value(QStringLiteral("quarters")).toArray();
        QCOMPARE(quarters.size(), 4);
        // 1x -> 1.3x over the first ten evaluations, of 1,500 tokens each.
        QCOMPARE(quarters[0].toObject().value(QStringLiteral("gain_per_1k_tokens")).toDouble(),
                 1000.0 * 0.3 / 15000.0);
        QCOMPARE(quarters[3].toObject().value(QStringLiteral("gain")).toDouble(), 0.0);

        // 1x -> 1.3x in the first half, 1.3x -> 1.6x in the later one.
        const DiagnosisFinding notShown = finding(RunHistory(risingAt(40, {0, 5, 12, 25, 33, 39})),
                                                  QStringLiteral("cost_efficiency"));
        QCOMPARE(notShown.rating, 1);
        QCOMPARE(notShown.candidates, (QList<qint64>{26, 34, 40}));
    }

    void rewardHacking()
    {
        QList<CandidateSummary> list = risingAt(40, {0});
        RunHistory quiet(list);
        QCOMPARE(finding(quiet, QStringLiteral("reward_hacking")).rating, 1);
        for (int i = 20; i < 40; i += 3) {
            list[i].verdict = Verdict::Flagged;
            list[i].flagIds = {QStringLiteral("timer_tampering")};
        }
        const DiagnosisFinding shown = finding(RunHistory(list), QStringLiteral("reward_hacking"));
        QCOMPARE(shown.rating, 5);
        QCOMPARE(shown.candidates.size(), 7);
        QCOMPARE(shown.figures.value(QStringLiteral("most_common_flag")).toString(),
                 QStringLiteral("timer_tampering"));
    }

    void depthVersusWidth()
    {
        // A fifth of the evaluations refine, and they made every raise.
        QList<CandidateSummary> list = risingAt(20, {0, 4, 9, 14});
        for (int i : {0, 4, 9, 14})
            list[i].operation = Operation::Refine;
        const DiagnosisFinding shown = finding(RunHistory(list), QStringLiteral("depth_width"));
        QCOMPARE(shown.rating, 5);
        QVERIFY(shown.finding.contains(QStringLiteral("depth")));
        QCOMPARE(shown.candidates, (QList<qint64>{1, 5, 10, 15}));

        // Half the evaluations refine (the odd ones), and they made a quarter of the raises (9).
        for (int i = 0; i < 20; ++i)
            list[i].operation = i % 2 ? Operation::Refine : Operation::Sample;
        QCOMPARE(finding(RunHistory(list), QStringLiteral("depth_width")).rating, 2);

        // One raise says nothing either way, and names no evidence.
        QList<CandidateSummary> once;
        for (int i = 0; i < 20; ++i)
            once.append(i == 3 ? candidate(i + 1, Verdict::Pass, 1.5)
                               : candidate(i + 1, Verdict::Wrong));
        const DiagnosisFinding few = finding(RunHistory(once), QStringLiteral("depth_width"));
        QCOMPARE(few.rating, 1);
        QVERIFY(few.candidates.isEmpty());
    }

    // A suite's tasks are judged apart: task b's late raises are progress although task a's
    // early 3x is faster, and the value counts each task from the reference's 1x.
    void suiteTasksAreJudgedApart()
    {
        QList<CandidateSummary> list;
        for (int i = 0; i < 40; ++i) {
            const bool a = i % 2 == 0;
            list.append(candidate(i + 1, Verdict::Pass, a && i == 0 ? 3.0 : 1.0));
            list.last().task = a ? QStringLiteral("a") : QStringLiteral("b");
        }
        for (int i : {21, 31, 39}) // b rises to 1.2, 1.4, 1.6
            list[i].speedup = 1.0 + 0.2 * (i == 21 ? 1 : i == 31 ? 2 : 3);
        for (CandidateSummary &c : list)
            if (c.speedup)
                c.speedupLow = *c.speedup * 0.98, c.speedupHigh = *c.speedup * 1.02;
        RunHistory history(list);
        QVERIFY(history.isSuite());
        const DiagnosisFinding stagnation = finding(history, QStringLiteral("stagnation"));
        QCOMPARE(stagnation.rating, 1);
        QCOMPARE(stagnation.candidates, QList<qint64>{40});
        QVERIFY2(stagnation.finding.contains(QStringLiteral("on b")),
                 qPrintable(stagnation.finding));
        // (3 + 1.6) / 2 at the end, (3 + 1) / 2 at the half: the later half made a third.
        QCOMPARE(history.valueAt(40), 2.3);
        QCOMPARE(history.valueAt(20), 2.0);
        const DiagnosisFinding cost = finding(history, QStringLiteral("cost_efficiency"));
        QCOMPARE(cost.figures.value(QStringLiteral("late_share_of_gain")).toDouble(), 0.3 / 1.3);
        // Task a's 3x leads the reference by far; task b's 1.6x leads 1.4x by 0.2: b is judged.
        const DiagnosisFinding noise = finding(history, QStringLiteral("evaluator_noise"));
        QCOMPARE(noise.figures.value(QStringLiteral("task")).toString(), QStringLiteral("b"));
        QCOMPARE(noise.candidates.first(), qint64(40));
    }

    void emptyRunSaysSo()
    {
        const QList<DiagnosisFinding> findings = RunDiagnosis::diagnose(RunHistory());
        QCOMPARE(findings.size(), 8);
        for (const DiagnosisFinding &f : findings) {
            QCOMPARE(f.rating, 1);
            QVERIFY(!f.finding.isEmpty());
        }
    }

    void jsonRoundTrips()
    {
        RunHistory history(risingAt(40, {0, 3, 5}));
        const QList<DiagnosisFinding> findings = RunDiagnosis::diagnose(history);
        const QJsonObject document = RunDiagnosis::toJson(7, history, findings);
        const QJsonArray list = document.value(QStringLiteral("findings")).toArray();
        QCOMPARE(list.size(), findings.size());
        for (qsizetype i = 0; i < list.size(); ++i)
            QCOMPARE(DiagnosisFinding::fromJson(list[i].toObject()).toJson(), findings[i].toJson());
        QVERIFY(RunDiagnosis::toText(findings).contains(QStringLiteral("Stagnation")));
    }
};

QTEST_GUILESS_MAIN(TestRunDiagnosis)
#include "tst_rundiagnosis.moc"
